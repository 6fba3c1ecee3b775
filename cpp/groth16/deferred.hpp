//! MSM sums finished on the CPU beside the device's next MSM.
#pragma once

#include <functional>
#include <future>
#include <vector>

#include "curve.hpp"

namespace cuzk::g16 {

/// Window sums of finished MSMs, each combined (~255 doublings: 0.17 ms in
/// G1, 0.57 ms in G2 on one core of the build machine) on a thread of its
/// own, so that the device runs the next MSM meanwhile instead of waiting
/// for the host. Targets are written only by finish(), on the caller's
/// thread, so they need no lock; they must outlive it.
class deferred_sums {
public:
    /// Adds sum_w 2^(c w) S_w of `windows` (blst Jacobian limbs, lowest
    /// window first, as MsmWindows carries them) into target at finish().
    template <class F>
    void add(ec::xyzz<F>& target, std::vector<uint64_t> windows, uint32_t c) {
        std::shared_future<ec::xyzz<F>> sum = std::async(std::launch::async, [w = std::move(windows), c] {
            return combine_windows<F>(w.data(), w.size() / jacobian_limbs<F>, c);
        });
        pending_.push_back([&target, sum] { target = target.add(sum.get()); });
    }

    /// Waits for every combination and adds it into its target.
    void finish() {
        for (auto& add_into_target : pending_) add_into_target();
        pending_.clear();
    }

private:
    std::vector<std::function<void()>> pending_;
};

}  // namespace cuzk::g16
