//! Fault injection for the prover's allocations: a process-wide counter of
//! device, pool and pinned-host allocations that a test hook arms
//! (cpp/hooks/fault_hooks.cpp) to make the k-th one fail as the driver's
//! out-of-memory would, so tests can fail every allocation site in turn.
//! Off by default: an allocation then pays one relaxed atomic load. Plain
//! C++ (no CUDA headers), so the hooks of the build without CUDA have it too.
#pragma once

#include <atomic>
#include <cstdint>

namespace cuzk::cuda::faults {

/// Whether allocations are being counted (C++17 inline variables: one
/// instance per process, whichever translation unit allocates).
inline std::atomic<bool> armed{false};
/// Allocations counted since the hook armed the counter.
inline std::atomic<uint64_t> counted{0};
/// The allocation (1-based) that fails; 0 only counts.
inline std::atomic<uint64_t> fail_at{0};
/// Bytes allocated minus bytes released while armed: zero after a call
/// that gave back everything it took (negative when it also released
/// memory taken before the arm).
inline std::atomic<int64_t> net_bytes{0};

/// Called once per allocation before the driver is asked: whether this one
/// must fail. Retries inside one allocation do not call it again, so an
/// injected failure is not undone by the retry.
inline bool inject() {
    if (!armed.load(std::memory_order_relaxed)) return false;
    const uint64_t k = counted.fetch_add(1, std::memory_order_relaxed) + 1;
    return k == fail_at.load(std::memory_order_relaxed);
}

/// Records a successful allocation of `bytes` while armed.
inline void allocated(uint64_t bytes) {
    if (armed.load(std::memory_order_relaxed)) net_bytes.fetch_add(int64_t(bytes), std::memory_order_relaxed);
}

/// Records the release of `bytes` while armed.
inline void released(uint64_t bytes) {
    if (armed.load(std::memory_order_relaxed)) net_bytes.fetch_sub(int64_t(bytes), std::memory_order_relaxed);
}

/// Starts counting from zero; the `k`-th allocation fails (0: none does).
inline void arm(uint64_t k) {
    armed.store(false, std::memory_order_seq_cst);
    counted.store(0, std::memory_order_seq_cst);
    net_bytes.store(0, std::memory_order_seq_cst);
    fail_at.store(k, std::memory_order_seq_cst);
    armed.store(true, std::memory_order_seq_cst);
}

/// Stops counting; the allocations counted since `arm` (`net` gets net_bytes).
inline uint64_t disarm(int64_t* net) {
    armed.store(false, std::memory_order_seq_cst);
    *net = net_bytes.load(std::memory_order_seq_cst);
    return counted.load(std::memory_order_seq_cst);
}

}  // namespace cuzk::cuda::faults
