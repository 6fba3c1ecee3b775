//! Radix-2 decimation-in-time NTT over Fr, natural order in and out, in a few
//! passes over memory instead of one per stage:
//!   - the first pass gathers its input in bit-reversed order (times g^i for
//!     a forward coset transform) and runs the first stages inside shared
//!     memory, one block per contiguous chunk of 2^10 elements;
//!   - each later pass runs up to 9 more stages in shared memory: a block
//!     holds 2^k elements spaced 2^s apart (the butterfly partners of stages
//!     s .. s+k-1) for T = 2^(10-k) neighbouring columns, so its loads and
//!     stores stay coalesced;
//!   - the last pass scales by n^-1 (times g^-i for an inverse coset) as it
//!     stores.
//! A 2^27 transform is three passes (10, 9 and 8 stages) where it was twelve
//! (a bit reversal, one shared-memory pass, nine radix-4/radix-2 passes and a
//! scaling pass).
//! Stage st combines a[i] and a[i + 2^st] with twiddle w^(j * n / 2^(st+1)),
//! j = i mod 2^st, read from one table of w^k, k <= n/2, for both
//! directions: w^-k = w^(n/2) w^(n/2-k) = -w^(n/2-k), so an inverse pass
//! reads entry n/2 - k and swaps its butterfly's sum and difference instead
//! of negating. A second table for w^-k cost n/2 scalars (2.1 GB at 2^27)
//! of device memory that a 24 GB card does not have. Inside a pass a thread
//! keeps four elements in registers and runs two stages between barriers.
//! The passes are bound by the IMAD pipe (Nsight Compute on the H200: the
//! fmaheavy pipe 73-83 % busy), i.e. by the Fr multiplications.
#pragma once

#include <type_traits>

#include "../ff/bls12_381.hpp"

namespace cuzk::ntt {

using ff::fr_t;

/// log2 of the elements one block of a pass holds (1024 x 32 B = 32 KiB).
constexpr uint32_t BLOCK_LOG = 10;
/// Stages a later pass runs at most: it keeps at least 2 columns per block,
/// 64 contiguous bytes per row of its loads. At 7 (8 columns, 256 bytes) a
/// 2^27 transform took a fourth pass; one pass less measured faster on the
/// H200 although its rows are shorter: forward 2^26 21.9 -> 19.7 ms, 2^27
/// 43.5 -> 42.1 ms. Below 2^26 both limits give the same passes.
constexpr uint32_t STRIDED_STAGES = 9;
/// Threads per block: four elements each.
constexpr uint32_t PASS_THREADS = (1u << BLOCK_LOG) / 4;
/// Blocks per SM the pass kernel is compiled for: four (64 registers, 8
/// bytes of spills; the shared memory allows four) instead of the two that
/// its natural 94 registers leave. More warps keep the integer multiplier,
/// which bounds the passes, busier between their barriers and loads: 2^27
/// forward 50.2 -> 43.4 ms on the H200 (three blocks, 77 registers: 47.4).
constexpr int PASS_BLOCKS_PER_SM = 4;

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
static __global__ void split_powers_kernel(fr_t* lo, fr_t* hi, fr_t base, uint32_t lo_log, uint32_t n_hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t n_lo = 1u << lo_log;
    if (i < n_lo) {
        lo[i] = base.pow_u32(i);
    } else if (i < n_lo + n_hi) {
        fr_t step = base.pow_u32(n_lo);
        hi[i - n_lo] = step.pow_u32(i - n_lo);
    }
}

static __global__ void fill_powers_kernel(fr_t* out, split_powers p, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.at(i);
}

__device__ __forceinline__ size_t bit_reverse(size_t i, uint32_t log_n) {
    return size_t(__brevll(uint64_t(i))) >> (64 - log_n);
}

/// (u, v) <- (u + v w, u - v w), or with `negated` (w is the negation of
/// the twiddle) (u - v w, u + v w).
__device__ __forceinline__ void butterfly(fr_t& u, fr_t& v, const fr_t& w, bool negated) {
    const fr_t t = v * w;
    const fr_t sum = u + t, difference = u - t;
    u = negated ? difference : sum;
    v = negated ? sum : difference;
}

/// butterfly with the twiddle w^0 = 1: no multiplication.
__device__ __forceinline__ void butterfly_one(fr_t& u, fr_t& v) {
    const fr_t t = v;
    v = u - t;
    u = u + t;
}

/// a[i] <-> a[rev(i)], in place: the order the first pass of an in-place
/// transform reads (pass_args::gather_from does the same from another
/// array), each element times g^i of its old index i when `shift`.
static __global__ void bit_reverse_kernel(fr_t* a, uint32_t log_n, bool shift, split_powers g) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >> log_n) return;
    const size_t j = bit_reverse(i, log_n);
    if (j < i) return;
    fr_t x = a[i];
    if (shift) x = x * g.at(i);
    if (j == i) {
        a[i] = x;
        return;
    }
    fr_t y = a[j];
    if (shift) y = y * g.at(j);
    a[i] = y;
    a[j] = x;
}

/// What one pass does besides its stages.
struct pass_args {
    /// An inverse transform: twiddle k is -tw[n/2 - k].
    bool inverse;
    /// First pass: read from here in bit-reversed order (else in place).
    const fr_t* gather_from;
    /// First pass of a forward coset transform: multiply input i by g^i.
    bool shift_in;
    /// Last pass of an inverse transform: multiply output i by scale (and
    /// by g^-i when shift_out).
    bool scale_out, shift_out;
    fr_t scale;
    split_powers g, g_inv;
};

/// Stages s .. s+k-1 of the transform of a (2^log_n elements), in place.
/// Block b holds element (m, l) = a[hi * 2^(s+k) + m * 2^s + lo0 + l] at
/// shared index m * T + l, for m < 2^k and l < T = 2^log_t, where
/// k + log_t = BLOCK_LOG (or log_n when the whole transform is one block).
/// blockDim = max(1, 2^(k + log_t) / 4): four elements per thread.
static __global__ void __launch_bounds__(PASS_THREADS, PASS_BLOCKS_PER_SM)
    pass_kernel(fr_t* a, const fr_t* tw, uint32_t log_n, uint32_t s, uint32_t k, uint32_t log_t, pass_args args) {
    __shared__ fr_t sh[1u << BLOCK_LOG];
    // Twiddle k of this direction, up to its sign (butterfly's `negated`).
    const size_t half = size_t(1) << (log_n - 1);
    const auto twiddle = [&](size_t k) -> const fr_t& { return tw[args.inverse ? half - k : k]; };
    const bool neg = args.inverse;
    const uint32_t count = 1u << (k + log_t);
    const uint32_t tiles_log = s - log_t;  // column tiles per row of 2^s columns
    const size_t hi = size_t(blockIdx.x) >> tiles_log;
    const size_t lo0 = (size_t(blockIdx.x) & ((size_t(1) << tiles_log) - 1)) << log_t;
    const size_t base = (hi << (s + k)) + lo0;
    const uint32_t t_mask = (1u << log_t) - 1;

    for (uint32_t e = threadIdx.x; e < count; e += blockDim.x) {
        const size_t i = base + (size_t(e >> log_t) << s) + (e & t_mask);
        if (args.gather_from) {
            const size_t from = bit_reverse(i, log_n);
            fr_t x = args.gather_from[from];
            if (args.shift_in) x = x * args.g.at(from);
            sh[e] = x;
        } else {
            sh[e] = a[i];
        }
    }
    __syncthreads();

    const uint32_t l = threadIdx.x & t_mask;
    const uint32_t q0 = threadIdx.x >> log_t;  // this thread's group of rows
    // Two stages per step: rows m0 + {0, h, 2h, 3h}; stage u pairs (0,1),
    // (2,3); stage u+1 pairs (0,2) with the same j and (1,3) with
    // j + 2^(s+u). The transform's first step (stages 0 and 1, j = 0) has
    // the twiddle w^0 = 1 in three of its four butterflies and skips their
    // multiplications.
    auto step = [&](uint32_t u, auto first) {
        const uint32_t h = 1u << u;
        const uint32_t jm = q0 & (h - 1);
        const uint32_t m0 = ((q0 >> u) << (u + 2)) | jm;
        const uint32_t st = s + u;
        const size_t j = (size_t(jm) << s) + lo0 + l;
        fr_t& e0 = sh[(m0 << log_t) + l];
        fr_t& e1 = sh[((m0 + h) << log_t) + l];
        fr_t& e2 = sh[((m0 + 2 * h) << log_t) + l];
        fr_t& e3 = sh[((m0 + 3 * h) << log_t) + l];
        fr_t x0 = e0, x1 = e1, x2 = e2, x3 = e3;
        if constexpr (decltype(first)::value) {
            butterfly_one(x0, x1);
            butterfly_one(x2, x3);
            butterfly_one(x0, x2);
        } else {
            const fr_t w1 = twiddle(j << (log_n - 1 - st));
            butterfly(x0, x1, w1, neg);
            butterfly(x2, x3, w1, neg);
            butterfly(x0, x2, twiddle(j << (log_n - 2 - st)), neg);
        }
        butterfly(x1, x3, twiddle((j + (size_t(1) << st)) << (log_n - 2 - st)), neg);
        e0 = x0;
        e1 = x1;
        e2 = x2;
        e3 = x3;
        __syncthreads();
    };
    // The branch stays inside the loop: a first step of its own before it
    // raised ptxas's spills from 36 to 96 bytes and measured slower.
    uint32_t u = 0;
    for (; u + 2 <= k; u += 2) {
        if (s == 0 && u == 0) {
            step(0u, std::true_type{});
        } else {
            step(u, std::false_type{});
        }
    }
    if (u < k) {
        // One stage left: butterfly b pairs rows m0 and m0 + h of column b mod T.
        const uint32_t h = 1u << u;
        const uint32_t st = s + u;
        for (uint32_t b = threadIdx.x; b < count / 2; b += blockDim.x) {
            const uint32_t col = b & t_mask, q = b >> log_t;
            const uint32_t jm = q & (h - 1);
            const uint32_t m0 = ((q >> u) << (u + 1)) | jm;
            const size_t j = (size_t(jm) << s) + lo0 + col;
            butterfly(sh[(m0 << log_t) + col], sh[((m0 + h) << log_t) + col], twiddle(j << (log_n - 1 - st)), neg);
        }
        __syncthreads();
    }

    for (uint32_t e = threadIdx.x; e < count; e += blockDim.x) {
        const size_t i = base + (size_t(e >> log_t) << s) + (e & t_mask);
        fr_t x = sh[e];
        if (args.scale_out) x = x * (args.shift_out ? args.scale * args.g_inv.at(i) : args.scale);
        a[i] = x;
    }
}

}  // namespace cuzk::ntt
