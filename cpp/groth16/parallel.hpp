// A plain fork-join loop over std::thread for the host function's CPU work
// (the split, the epilogue): no pool to keep alive between calls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace cuzk::g16 {

/// Threads for CPU work: every hardware thread.
inline unsigned cpu_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

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
