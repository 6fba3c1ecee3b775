// A plain fork-join loop over std::thread for the host function's CPU work
// (the split, the epilogue): no pool to keep alive between calls.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace cuzk::g16 {

/// Host-function calls running in this process (one per device at most).
inline std::atomic<unsigned>& calls_in_flight() {
    static std::atomic<unsigned> calls{0};
    return calls;
}

/// Counts one call in flight for its lifetime.
class call_in_flight {
public:
    call_in_flight() { calls_in_flight().fetch_add(1, std::memory_order_relaxed); }
    ~call_in_flight() { calls_in_flight().fetch_sub(1, std::memory_order_relaxed); }
    call_in_flight(const call_in_flight&) = delete;
    call_in_flight& operator=(const call_in_flight&) = delete;
};

/// Threads for one call's CPU work: its share of the hardware threads.
/// Calls for several devices run at once, and each taking every core made
/// them (and the engine's synthesis) fight over the CPU: on 4 H200s sharing
/// 64 cores the split of one call took ten times as long as alone.
inline unsigned cpu_threads() {
    const unsigned calls = std::max(1u, calls_in_flight().load(std::memory_order_relaxed));
    return std::max(1u, std::thread::hardware_concurrency() / calls);
}

/// Runs f(i) for i < n on up to `threads` threads; rethrows the first error.
template <class F>
void parallel_for(size_t n, unsigned threads, F&& f) {
    const size_t workers = std::max<size_t>(1, std::min<size_t>(n, threads));
    std::vector<std::exception_ptr> errors(workers);
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (size_t t = 0; t < workers; t++) {
        pool.emplace_back([&, t] {
            try {
                for (size_t i = t; i < n; i += workers) f(i);
            } catch (...) {
                errors[t] = std::current_exception();
            }
        });
    }
    for (auto& th : pool) th.join();
    for (auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

}  // namespace cuzk::g16
