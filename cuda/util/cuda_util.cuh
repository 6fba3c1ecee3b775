//! CUDA runtime wrappers for the entry points: every call is checked and
//! turned into a typed cuzk::error (error.hpp); every resource is RAII so
//! an error path releases what it took and leaves the device usable.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "alloc_fault.hpp"
#include "error.hpp"

namespace cuzk::cuda {

[[noreturn]] inline void fail(cudaError_t e, const char* call, const char* file, int line) {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    std::string where = std::string(call) + " at " + file + ":" + std::to_string(line) + ": " +
                        cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) throw_no_gpu(where);
    throw_cuda(int(e), where);
}

#define CUZK_CUDA(call)                                                            \
    do {                                                                           \
        cudaError_t cuzk_e_ = (call);                                              \
        if (cuzk_e_ != cudaSuccess) ::cuzk::cuda::fail(cuzk_e_, #call, __FILE__, __LINE__); \
    } while (0)

/// Checks the launch just made (configuration errors surface here; faults
/// inside the kernel surface at the next synchronisation).
#define CUZK_LAUNCHED() CUZK_CUDA(cudaGetLastError())

inline int32_t count_devices() {
    int n = 0;
    CUZK_CUDA(cudaGetDeviceCount(&n));
    if (n == 0) throw_no_gpu("the CUDA runtime reports no device");
    return n;
}

/// Makes device `id` current for this thread after checking it exists.
/// Device ids are explicit in every entry point; nothing else is global.
inline void use_device(int32_t id) {
    int32_t n = count_devices();
    if (id < 0 || id >= n) throw_no_device(id, n);
    CUZK_CUDA(cudaSetDevice(id));
}

class stream {
public:
    stream() { CUZK_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~stream() { cudaStreamDestroy(s_); }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    operator cudaStream_t() const { return s_; }
    void sync() const { CUZK_CUDA(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_{};
};

/// The current device's stream-ordered memory pool (its default pool), set
/// once per device to keep the memory its allocations free instead of
/// handing it back to the driver. Per-call temporaries come from here: a
/// 2^27 MSM allocates ~28 GB of them per call, which cudaFree took ~14 ms
/// to give back on the H200 (and cudaMalloc ~2 ms to take), and a
/// Filecoin-size batch makes dozens of smaller MSMs and batch additions,
/// each of which paid ~1 ms; from the pool both cost microseconds.
inline cudaMemPool_t memory_pool() {
    static std::mutex lock;
    static std::vector<bool> configured;
    int device = 0;
    CUZK_CUDA(cudaGetDevice(&device));
    cudaMemPool_t pool{};
    CUZK_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
    std::lock_guard<std::mutex> guard(lock);
    if (size_t(device) >= configured.size()) configured.resize(size_t(device) + 1, false);
    if (!configured[size_t(device)]) {
        uint64_t keep_all = ~uint64_t(0);
        CUZK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
        configured[size_t(device)] = true;
    }
    return pool;
}

/// A device's memory as cuzk is told to see it: a card of `bytes` total
/// (the device-memory cap, set_device_memory_cap in api/device.cu), so that
/// every plan (SRS placement, MSM batches, tables) is the one a card that
/// size would get. `blocker` is the allocation that, in enforcing mode,
/// takes the rest of the real card so that going past the cap fails.
struct memory_cap {
    uint64_t bytes = 0;
    void* blocker = nullptr;
    uint64_t blocker_bytes = 0;
};

/// The caps, indexed by device (bytes 0: none), under their lock.
inline std::mutex& memory_caps_lock() {
    static std::mutex lock;
    return lock;
}
inline std::vector<memory_cap>& memory_caps() {
    static std::vector<memory_cap> caps;
    return caps;
}

/// Free and total memory of the current device, where free counts what the
/// pool holds unused: it is there for the next temporaries. Under a cap the
/// device reads as a card of that size: total is the cap, and free is what
/// is left of it (the real free memory, less the part of the card above the
/// cap that no blocker holds).
inline void memory_info(uint64_t* free, uint64_t* total) {
    size_t f = 0, t = 0;
    CUZK_CUDA(cudaMemGetInfo(&f, &t));
    cudaMemPool_t pool = memory_pool();
    uint64_t reserved = 0, used = 0;
    CUZK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CUZK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    *free = f + (reserved > used ? reserved - used : 0);
    *total = t;
    int device = 0;
    CUZK_CUDA(cudaGetDevice(&device));
    std::lock_guard<std::mutex> guard(memory_caps_lock());
    const std::vector<memory_cap>& caps = memory_caps();
    if (size_t(device) >= caps.size() || caps[size_t(device)].bytes == 0) return;
    const memory_cap& cap = caps[size_t(device)];
    const uint64_t above = t > cap.bytes ? t - cap.bytes : 0;
    const uint64_t seen = *free + cap.blocker_bytes;
    *free = seen > above ? seen - above : 0;
    *total = std::min<uint64_t>(t, cap.bytes);
}

/// Hands the pool's unused memory back to the driver, once the frees queued
/// on the current device have run, for allocations outside the pool (an
/// SRS, long-lived buffers).
inline void trim_pool() {
    cudaDeviceSynchronize();
    cudaGetLastError();
    cudaMemPoolTrimTo(memory_pool(), 0);
}

[[noreturn]] inline void fail_alloc(cudaError_t e, size_t bytes, const char* call) {
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        uint64_t free = 0, total = 0;
        memory_info(&free, &total);
        throw_oom(bytes, free, std::string(call) + " of " + std::to_string(bytes) + " bytes failed");
    }
    fail(e, call, __FILE__, __LINE__);
}

/// Where an allocation comes from.
enum class memory_kind {
    /// cudaMalloc: long-lived device memory (`buffer`).
    device,
    /// cudaMallocFromPoolAsync on a stream: temporaries (`scratch`).
    pool,
    /// cudaHostAlloc, portable: pinned host memory for staging and streaming.
    pinned,
};

/// Every allocation of the prover, so that one place counts them and the
/// fault hook (alloc_fault.hpp) can fail any of them as the driver would:
/// an injected failure is the same typed cuda_oom error, thrown before the
/// driver is asked. When the driver has no room, device memory first gives
/// the pool's unused memory back and pool memory first waits for frees in
/// flight on other streams, then each retries once; a second failure is a
/// typed cuda_oom error carrying the request and the free memory then.
/// Zero bytes allocate nothing and return null.
inline void* allocate(memory_kind kind, size_t bytes, cudaStream_t s = nullptr) {
    if (bytes == 0) return nullptr;
    const char* call = kind == memory_kind::device ? "cudaMalloc"
                       : kind == memory_kind::pool ? "cudaMallocFromPoolAsync"
                                                   : "cudaHostAlloc (pinned)";
    if (faults::inject()) fail_alloc(cudaErrorMemoryAllocation, bytes, call);
    void* p = nullptr;
    const auto attempt = [&] {
        switch (kind) {
            case memory_kind::device: return cudaMalloc(&p, bytes);
            case memory_kind::pool: return cudaMallocFromPoolAsync(&p, bytes, memory_pool(), s);
            case memory_kind::pinned: return cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
        }
        return cudaErrorInvalidValue;
    };
    cudaError_t e = attempt();
    if (e == cudaErrorMemoryAllocation && kind != memory_kind::pinned) {
        cudaGetLastError();
        if (kind == memory_kind::device) {
            trim_pool();
        } else {
            // Memory freed on other streams may still be in flight.
            cudaDeviceSynchronize();
            cudaGetLastError();
        }
        e = attempt();
    }
    if (e != cudaSuccess) fail_alloc(e, bytes, call);
    faults::allocated(bytes);
    return p;
}

/// Gives back what `allocate` returned for the same kind, bytes and (pool
/// memory) stream; null is ignored. Never throws: it runs in destructors.
inline void release(memory_kind kind, void* p, size_t bytes, cudaStream_t s = nullptr) {
    if (!p) return;
    faults::released(bytes);
    switch (kind) {
        case memory_kind::device: cudaFree(p); break;
        case memory_kind::pool: cudaFreeAsync(p, s); break;
        case memory_kind::pinned: cudaFreeHost(p); break;
    }
}

/// Device memory for n elements of T that lives as long as its owner (an
/// SRS, a resident shape, the quotient's buffers), from `allocate`.
template <class T>
class buffer {
public:
    explicit buffer(size_t n) : n_(n) { p_ = static_cast<T*>(allocate(memory_kind::device, n * sizeof(T))); }
    ~buffer() { release(memory_kind::device, p_, n_ * sizeof(T)); }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

/// Temporaries of one stream's work: n elements of T from the device's pool,
/// allocated and freed in stream order on `s`. Only work queued on `s` may
/// use them, and `s` must outlive them (declare the stream first). Because
/// the free is queued behind that work, an error that unwinds past queued
/// kernels still frees nothing they use.
template <class T>
class scratch {
public:
    scratch(size_t n, cudaStream_t s) : n_(n), s_(s) {
        p_ = static_cast<T*>(allocate(memory_kind::pool, n * sizeof(T), s));
    }
    ~scratch() { release(memory_kind::pool, p_, n_ * sizeof(T), s_); }
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
    cudaStream_t s_{};
};

inline unsigned blocks_for(size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace cuzk::cuda
