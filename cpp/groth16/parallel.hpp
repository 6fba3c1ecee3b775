//! A plain fork-join loop over std::thread for the host function's CPU work
//! (the split, the epilogue): no pool to keep alive between calls.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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
/// One worker's worth runs on the calling thread: the split calls this for
/// every bitmap, and a small one is cheaper to fill than a thread to start.
template <class F>
void parallel_for(size_t n, unsigned threads, F&& f) {
    const size_t workers = std::max<size_t>(1, std::min<size_t>(n, threads));
    if (workers == 1) {
        for (size_t i = 0; i < n; i++) f(i);
        return;
    }
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

/// Gives the pages of [p, p + bytes) back to the system 64 MiB at a time,
/// before the block itself is freed. Freed by one munmap, the gigabytes of a
/// 2^27 call's split stalled the caller's first call by 20-70 ms after it
/// returned, while the freeing thread ran (the memory map is locked while
/// its pages go, and the caller's next mappings wait); in 64 MiB steps the
/// stall is 2-3 ms (PERF round 45).
inline void release_pages(void* p, size_t bytes) noexcept {
#if defined(__linux__)
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const uintptr_t step = uintptr_t(64) << 20;
    const uintptr_t first = (uintptr_t(p) + page - 1) / page * page;
    const uintptr_t end = (uintptr_t(p) + bytes) / page * page;
    for (uintptr_t at = first; at < end; at += step)
        madvise(reinterpret_cast<void*>(at), std::min<uintptr_t>(step, end - at), MADV_DONTNEED);
#else
    (void)p;
    (void)bytes;
#endif
}

/// std::allocator, except that a vector's own elements are default-
/// initialised (left as they are, for the trivial types below) instead of
/// value-initialised, and that a large array's pages are released in steps
/// (release_pages) before it is freed: see host_vector.
template <class T>
struct default_init_allocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };
    default_init_allocator() = default;
    template <class U>
    default_init_allocator(const default_init_allocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    void deallocate(T* p, size_t n) noexcept {
        if (n * sizeof(T) >= RELEASE_IN_STEPS) release_pages(p, n * sizeof(T));
        std::allocator<T>::deallocate(p, n);
    }
    /// Below this an array is freed in one go: glibc keeps smaller blocks
    /// (below its 32 MiB largest mmap threshold) in its heap for reuse.
    static constexpr size_t RELEASE_IN_STEPS = size_t(64) << 20;
};

/// The split's large host arrays (bitmaps, tail positions and scalars).
template <class T>
using host_vector = std::vector<T, default_init_allocator<T>>;

/// n zero elements, zeroed by `threads` threads in 1 MiB blocks. A vector
/// constructed zeroed is written by the allocating thread alone, which
/// faults its fresh pages in at ~1 GB/s: at 2^27 the split's ~0.9 GB of
/// bitmaps and tail scalars took 0.8-1.0 s of the prep thread that way
/// (63-89 ms in parallel on the H200 host's 16 cores).
template <class T>
host_vector<T> zeroed(size_t n, unsigned threads) {
    static_assert(std::is_trivially_copyable<T>::value, "zeroed by memset");
    host_vector<T> v(n);
    const size_t per_block = std::max<size_t>(1, (size_t(1) << 20) / sizeof(T));
    parallel_for((n + per_block - 1) / per_block, threads, [&](size_t b) {
        const size_t first = b * per_block, count = std::min(per_block, n - first);
        std::memset(static_cast<void*>(v.data() + first), 0, count * sizeof(T));
    });
    return v;
}

}  // namespace cuzk::g16
