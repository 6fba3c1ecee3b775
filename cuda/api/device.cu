//! Device discovery, the device-memory cap, an allocation probe and a device
//! field-multiplication hook: the entry points that are not a kernel of the
//! prover.
#include <mutex>
#include <string>
#include <vector>

#include "../ff/bls12_381.hpp"
#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/hooks.rs.h"
#include "cuzk-ffi/src/lib.rs.h"

namespace cuzk {

static_assert(sizeof(DeviceInfo) == 56, "DeviceInfo layout must match the Rust side");

int32_t device_count() { return cuda::count_devices(); }

DeviceInfo device_info(int32_t id) {
    cuda::use_device(id);
    cudaDeviceProp prop{};
    CUZK_CUDA(cudaGetDeviceProperties(&prop, id));
    uint64_t free = 0, total = 0;
    cuda::memory_info(&free, &total);
    DeviceInfo info;
    info.name = rust::String(prop.name);
    info.id = id;
    info.sm_major = prop.major;
    info.sm_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.total_mem = total;
    info.free_mem = free;
    return info;
}

void set_device_memory_cap(int32_t id, uint64_t bytes, bool enforce) {
    cuda::use_device(id);
    // The pool's unused memory counts as free to the plans: give it back, so
    // that the blocker can take the card above the cap.
    cuda::trim_pool();
    size_t f = 0, t = 0;
    CUZK_CUDA(cudaMemGetInfo(&f, &t));
    if (bytes >= t)
        throw_invalid("device memory cap: " + std::to_string(bytes) + " bytes is not below the device's " +
                      std::to_string(t));
    std::lock_guard<std::mutex> guard(cuda::memory_caps_lock());
    std::vector<cuda::memory_cap>& caps = cuda::memory_caps();
    if (size_t(id) >= caps.size()) caps.resize(size_t(id) + 1);
    cuda::memory_cap& cap = caps[size_t(id)];
    if (cap.blocker) {
        cudaFree(cap.blocker);
        cap.blocker = nullptr;
        cap.blocker_bytes = 0;
    }
    cap.bytes = bytes;
    if (bytes == 0 || !enforce) return;
    // The part of the card above the cap, taken once (outside the fault
    // hook's count: it is not the prover's memory) so that what the prover
    // allocates past the cap fails as it would on the smaller card.
    const uint64_t above = t - bytes;
    const cudaError_t e = cudaMalloc(&cap.blocker, above);
    if (e != cudaSuccess) {
        cudaGetLastError();
        cap.blocker = nullptr;
        cap.bytes = 0;
        throw_invalid("device memory cap: cannot reserve the " + std::to_string(above) + " bytes above a cap of " +
                      std::to_string(bytes) + " (" + std::to_string(f) + " of " + std::to_string(t) +
                      " bytes free): the cap is above what the device has free");
    }
    cap.blocker_bytes = above;
}

void device_alloc_probe(int32_t id, uint64_t bytes) {
    cuda::use_device(id);
    cuda::buffer<uint8_t> b(bytes);
    CUZK_CUDA(cudaMemset(b.get(), 0xa5, bytes));
    CUZK_CUDA(cudaDeviceSynchronize());
}

namespace {

template <class F>
__global__ void mul_kernel(const F* a, const F* b, F* out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * b[i];
}

template <class F>
void gpu_mul(int32_t id, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b, rust::Slice<uint64_t> out) {
    constexpr size_t limbs = sizeof(F) / 8;
    if (a.size() != b.size() || a.size() != out.size() || a.size() % limbs != 0)
        throw_invalid("gpu_field_mul: a, b and out must hold the same whole number of elements");
    size_t n = a.size() / limbs;
    cuda::use_device(id);
    if (n == 0) return;
    cuda::stream s;
    cuda::buffer<F> da(n), db(n), dout(n);
    CUZK_CUDA(cudaMemcpyAsync(da.get(), a.data(), n * sizeof(F), cudaMemcpyHostToDevice, s));
    CUZK_CUDA(cudaMemcpyAsync(db.get(), b.data(), n * sizeof(F), cudaMemcpyHostToDevice, s));
    mul_kernel<F><<<cuda::blocks_for(n, 256), 256, 0, s>>>(da.get(), db.get(), dout.get(), n);
    CUZK_LAUNCHED();
    CUZK_CUDA(cudaMemcpyAsync(out.data(), dout.get(), n * sizeof(F), cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace

void gpu_field_mul(int32_t id, Field field, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
                   rust::Slice<uint64_t> out) {
    switch (field) {
        case Field::Fr: return gpu_mul<ff::fr_t>(id, a, b, out);
        case Field::Fp: return gpu_mul<ff::fp_t>(id, a, b, out);
        case Field::Fp2: return gpu_mul<ff::fp2_t>(id, a, b, out);
    }
    throw_invalid("unknown field");
}

}  // namespace cuzk
