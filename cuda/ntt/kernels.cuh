// Radix-2 decimation-in-time NTT over Fr on natural-order input:
//   1. bit-reversal permutation (fused with the coset shift a_i *= g^i),
//   2. the first SHARED_LOG stages inside shared memory, one block per
//      contiguous chunk (after bit reversal those stages never leave it),
//   3. the remaining stages in global memory, two per pass (radix 4),
//   4. for inverse transforms, a final scale by n^-1 (and g^-i for cosets).
// Stage s combines a[i] and a[i + 2^s] with twiddle w^(j * n / 2^(s+1)),
// j = i mod 2^s, read from a table of w^k, k < n/2.
#pragma once

#include "../ff/bls12_381.hpp"

namespace cuzk::ntt {

using ff::fr_t;

/// log2 of the chunk the shared-memory kernel transforms (1024 x 32 B = 32 KiB).
constexpr uint32_t SHARED_LOG = 10;

/// base^i = lo[i mod 2^lo_log] * hi[i >> lo_log]: two small tables stand in
/// for a full table of powers.
struct split_powers {
    const fr_t* lo;
    const fr_t* hi;
    uint32_t lo_log;

    __device__ __forceinline__ fr_t at(size_t i) const {
        return lo[i & ((size_t(1) << lo_log) - 1)] * hi[i >> lo_log];
    }
};

/// lo[i] = base^i (i < n_lo), hi[i] = base^(i * n_lo) (i < n_hi), each by
/// square-and-multiply; the tables are small, so this is cheap.
__global__ void split_powers_kernel(fr_t* lo, fr_t* hi, fr_t base, uint32_t lo_log, uint32_t n_hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t n_lo = 1u << lo_log;
    if (i < n_lo) {
        lo[i] = base.pow_u32(i);
    } else if (i < n_lo + n_hi) {
        fr_t step = base.pow_u32(n_lo);
        hi[i - n_lo] = step.pow_u32(i - n_lo);
    }
}

__global__ void fill_powers_kernel(fr_t* out, split_powers p, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.at(i);
}

__device__ __forceinline__ size_t bit_reverse(size_t i, uint32_t log_n) {
    return size_t(__brevll(uint64_t(i))) >> (64 - log_n);
}

/// out[bitrev(i)] = in[i] * (coset ? g^i : 1).
__global__ void bit_reverse_kernel(const fr_t* in, fr_t* out, uint32_t log_n, bool coset, split_powers g) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >> log_n) return;
    fr_t x = in[i];
    if (coset) x = x * g.at(i);
    out[bit_reverse(i, log_n)] = x;
}

__device__ __forceinline__ void butterfly(fr_t& u, fr_t& v, const fr_t& w) {
    fr_t t = v * w;
    v = u - t;
    u = u + t;
}

/// Stages 0 .. stages-1 on chunks of 2^stages elements; blockDim = 2^(stages-1).
__global__ void shared_stages_kernel(fr_t* a, const fr_t* tw, uint32_t log_n, uint32_t stages) {
    __shared__ fr_t s[1u << SHARED_LOG];
    const uint32_t t = threadIdx.x;
    const uint32_t half = 1u << (stages - 1);
    fr_t* chunk = a + (size_t(blockIdx.x) << stages);
    s[t] = chunk[t];
    s[t + half] = chunk[t + half];
    __syncthreads();
    for (uint32_t st = 0; st < stages; st++) {
        uint32_t h = 1u << st;
        uint32_t j = t & (h - 1);
        uint32_t i0 = ((t >> st) << (st + 1)) | j;
        fr_t w = tw[size_t(j) << (log_n - 1 - st)];
        butterfly(s[i0], s[i0 + h], w);
        __syncthreads();
    }
    chunk[t] = s[t];
    chunk[t + half] = s[t + half];
}

/// Stage st alone; one thread per butterfly (n/2 threads).
__global__ void radix2_stage_kernel(fr_t* a, const fr_t* tw, uint32_t log_n, uint32_t st) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= (size_t(1) << (log_n - 1))) return;
    size_t h = size_t(1) << st;
    size_t j = t & (h - 1);
    size_t i0 = ((t >> st) << (st + 1)) | j;
    fr_t u = a[i0], v = a[i0 + h];
    butterfly(u, v, tw[j << (log_n - 1 - st)]);
    a[i0] = u;
    a[i0 + h] = v;
}

/// Stages st and st+1 in one pass; one thread per 4 elements (n/4 threads).
/// Stage st pairs (0,1) and (2,3) with twiddle index j; stage st+1 pairs
/// (0,2) with j and (1,3) with j + 2^st.
__global__ void radix4_stage_kernel(fr_t* a, const fr_t* tw, uint32_t log_n, uint32_t st) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= (size_t(1) << (log_n - 2))) return;
    size_t h = size_t(1) << st;
    size_t j = t & (h - 1);
    size_t i0 = ((t >> st) << (st + 2)) | j;
    fr_t e0 = a[i0], e1 = a[i0 + h], e2 = a[i0 + 2 * h], e3 = a[i0 + 3 * h];
    fr_t w1 = tw[j << (log_n - 1 - st)];
    butterfly(e0, e1, w1);
    butterfly(e2, e3, w1);
    butterfly(e0, e2, tw[j << (log_n - 2 - st)]);
    butterfly(e1, e3, tw[(j + h) << (log_n - 2 - st)]);
    a[i0] = e0;
    a[i0 + h] = e1;
    a[i0 + 2 * h] = e2;
    a[i0 + 3 * h] = e3;
}

/// a[i] *= c * (coset ? g^-i : 1).
__global__ void scale_kernel(fr_t* a, fr_t c, uint32_t log_n, bool coset, split_powers g_inv) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >> log_n) return;
    fr_t f = coset ? c * g_inv.at(i) : c;
    a[i] = a[i] * f;
}

}  // namespace cuzk::ntt
