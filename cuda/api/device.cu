//! Device discovery, an allocation probe and a device field-multiplication
//! hook: the entry points that are not a kernel of the prover.
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
