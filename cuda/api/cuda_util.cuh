// CUDA runtime wrappers for the entry points: every call is checked and
// turned into a typed cuzk::error (cpp/error.hpp); every resource is RAII so
// an error path releases what it took and leaves the device usable.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "../../cpp/error.hpp"

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

/// Device memory for n elements of T; an allocation failure is a typed
/// cuda_oom error carrying the request and the free memory at that moment.
template <class T>
class buffer {
public:
    explicit buffer(size_t n) : n_(n) {
        if (n == 0) return;
        size_t bytes = n * sizeof(T);
        cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&p_), bytes);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            size_t free = 0, total = 0;
            cudaMemGetInfo(&free, &total);
            throw_oom(bytes, free, "cudaMalloc of " + std::to_string(bytes) + " bytes failed");
        }
        if (e != cudaSuccess) fail(e, "cudaMalloc", __FILE__, __LINE__);
    }
    ~buffer() {
        if (p_) cudaFree(p_);
    }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

inline unsigned blocks_for(size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace cuzk::cuda
