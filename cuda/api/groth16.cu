//! Device helpers of the Groth16 host function (declared in groth16.hpp):
//! SRS memory, uploads, gathers and compaction. The quotient H is
//! quotient.cu's.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "groth16.hpp"

namespace cuzk::g16 {
namespace {

using ff::fr_t;

constexpr unsigned THREADS = 256;

/// cudaMalloc'd memory owned by a DeviceArray, freed on its own device.
struct owned {
    int32_t device;
    cuda::buffer<uint8_t> mem;
};

std::unique_ptr<DeviceArray> own_array(int32_t id, ArrayKind kind, uint64_t len) {
    auto* o = new owned{id, cuda::buffer<uint8_t>(len * array_element_bytes(kind))};
    std::shared_ptr<void> owner(o, [](void* p) {
        auto* m = static_cast<owned*>(p);
        cudaSetDevice(m->device);
        delete m;
    });
    return std::make_unique<DeviceArray>(id, kind, len, o->mem.get(), owner);
}

/// One element of an array kind as plain limbs, for kernels that only move data.
template <int LIMBS>
struct element {
    uint64_t limb[LIMBS];
};

template <class T>
__global__ void gather_kernel(const T* src, const uint32_t* positions, uint64_t count, T* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) out[i] = src[positions[i]];
}

template <class T>
void gather_as(const DeviceArray& src, const uint32_t* positions, uint64_t count, const DeviceArray& out) {
    cuda::stream s;
    cuda::scratch<uint32_t> pos(count, s);
    CUZK_CUDA(cudaMemcpyAsync(pos.get(), positions, count * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    gather_kernel<T><<<cuda::blocks_for(count, THREADS), THREADS, 0, s>>>(
        static_cast<const T*>(src.data()), pos.get(), count, static_cast<T*>(out.data()));
    CUZK_LAUNCHED();
    s.sync();
}

/// out[before[w] + (set bits of word w below bit b)] = src[64 w + b] for
/// every set bit b of density word w: the selected scalars in order.
__global__ void compact_kernel(const fr_t* src, uint64_t n, const uint64_t* density, const uint64_t* before,
                               fr_t* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t word = density[i / 64], bit = i % 64;
    if (!((word >> bit) & 1)) return;
    out[before[i / 64] + uint64_t(__popcll(word & ((uint64_t(1) << bit) - 1)))] = src[i];
}

}  // namespace

pinned_memory::pinned_memory(uint64_t bytes)
    : data_(cuda::allocate(cuda::memory_kind::pinned, bytes)), bytes_(bytes) {}

pinned_memory::~pinned_memory() { cuda::release(cuda::memory_kind::pinned, data_, bytes_); }

void device_memory(int32_t id, uint64_t* free, uint64_t* total) {
    cuda::use_device(id);
    cuda::memory_info(free, total);
}

std::unique_ptr<DeviceArray> allocate(int32_t id, ArrayKind kind, uint64_t len) {
    cuda::use_device(id);
    return own_array(id, kind, len);
}

void copy_to_device(const DeviceArray& dst, const void* host) {
    const uint64_t bytes = dst.len() * array_element_bytes(dst.kind());
    if (bytes == 0) return;
    cuda::use_device(dst.device());
    CUZK_CUDA(cudaMemcpy(dst.data(), host, bytes, cudaMemcpyHostToDevice));
}

std::unique_ptr<DeviceArray> gather(const DeviceArray& src, const uint32_t* positions, uint64_t count) {
    for (uint64_t i = 0; i < count; i++) {
        if (positions[i] >= src.len())
            throw_invalid("gather: position " + std::to_string(positions[i]) + " past " + std::to_string(src.len()) +
                          " elements");
    }
    cuda::use_device(src.device());
    auto out = own_array(src.device(), src.kind(), count);
    if (count == 0) return out;
    switch (src.kind()) {
        case ArrayKind::G1Affine: gather_as<element<12>>(src, positions, count, *out); break;
        case ArrayKind::G2Affine: gather_as<element<24>>(src, positions, count, *out); break;
        case ArrayKind::Scalar: gather_as<element<4>>(src, positions, count, *out); break;
    }
    return out;
}

void compact(const DeviceArray& src, const uint64_t* density, const DeviceArray& out) {
    if (src.kind() != ArrayKind::Scalar || out.kind() != ArrayKind::Scalar)
        throw_invalid("compact: scalars only");
    if (src.device() != out.device()) throw_invalid("compact: the input and the output are on different devices");
    const uint64_t n = src.len(), words = (n + 63) / 64;
    // Ranks of the words on the host (a popcount per word, ~2 M words for
    // 2^27 scalars), so that the device needs no scan; bits past n ignored.
    std::vector<uint64_t> masked(density, density + words), before(words);
    if (n % 64 != 0) masked[words - 1] &= (uint64_t(1) << (n % 64)) - 1;
    uint64_t total = 0;
    for (uint64_t w = 0; w < words; w++) {
        before[w] = total;
        total += uint64_t(__builtin_popcountll(masked[w]));
    }
    if (total != out.len())
        throw_invalid("compact: the density selects " + std::to_string(total) + " of " + std::to_string(n) +
                      " scalars, the output holds " + std::to_string(out.len()));
    if (total == 0) return;
    cuda::use_device(src.device());
    cuda::stream s;
    cuda::scratch<uint64_t> d_density(words, s), d_before(words, s);
    CUZK_CUDA(cudaMemcpyAsync(d_density.get(), masked.data(), words * 8, cudaMemcpyHostToDevice, s));
    CUZK_CUDA(cudaMemcpyAsync(d_before.get(), before.data(), words * 8, cudaMemcpyHostToDevice, s));
    compact_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(static_cast<const fr_t*>(src.data()), n,
                                                                   d_density.get(), d_before.get(),
                                                                   static_cast<fr_t*>(out.data()));
    CUZK_LAUNCHED();
    s.sync();
}

}  // namespace cuzk::g16
