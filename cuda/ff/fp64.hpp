//! A prototype of BLS12-381's Fp Montgomery product with its partial
//! products formed on the FP64 pipe (DFMA) instead of the integer multiplier
//! (IMAD), which bounds the MSMs (docs/PERF.md, 2026-12-07). Hybrid: the
//! doubles form each 48 x 48-bit product exactly as two integer parts; the
//! parts are summed in 64-bit integer columns. The same code compiles with
//! g++ (host tests, cpp/hooks/fp64_host.cpp) and nvcc (cuda/api/bench.cu).
//!
//! Form. Eight little-endian limbs of 48 bits, each an integer below 2^48
//! held exactly in a double. 8 x 48 = 384 bits, so the Montgomery constant
//! is R = 2^384, fp_t's own (mont.hpp): converting is re-slicing the same
//! bits, and the product is fp_t's product bit for bit.
//!
//! The exact split of one product P = ab, integers a, b < 2^48 (P < 2^96):
//!   hi = fma(a, b, 2^100)         = 2^100 + H 2^48. In [2^100, 2^101) the
//!                                   ulp is 2^48, so H 2^48 is the multiple
//!                                   of 2^48 nearest P: |P - H 2^48| <= 2^47,
//!                                   and H <= 2^48 - 2 keeps hi in that binade.
//!   s  = (2^100 + 1.5 2^52) - hi  = 1.5 2^52 - H 2^48, exact (Sterbenz: both
//!                                   operands lie in [2^100, 2^101)).
//!   lo = fma(a, b, s)             = 1.5 2^52 + L, L = P - H 2^48, |L| <= 2^47:
//!                                   an integer in [2^52, 2^53), where the ulp
//!                                   is 1, so the fma's rounding is exact.
//! Both results sit in a fixed binade, so their bit patterns are integers
//! with a fixed offset: bits(hi) = bits(2^100) + H, bits(lo) = bits(1.5 2^52)
//! + L (two's complement for L < 0). Each pattern is added to a uint64
//! column, H to column k + 1 and L to column k for a product at column k,
//! and each column starts at minus the offsets it will receive (known at
//! compile time), so it holds the exact signed column sum once complete.
//! Sums wrap mod 2^64 harmlessly: a complete column is below 2^53 in
//! magnitude (16 low parts of at most 2^47, 16 high parts below 2^48 and a
//! carry below 2^5), far inside int64.
//! Nothing else is rounded: every double in play is an integer below 2^101
//! or a sum above, no value is subnormal (so flush-to-zero cannot change a
//! result), and every rounding is round-to-nearest-even, written as
//! __fma_rn / __dsub_rn on the device and std::fma / `-` on the host, where
//! both are IEEE-754 binary64 operations, correctly rounded: the host run
//! is a faithful reference of the device's.
//!
//! The reduction (separated operand scanning): after the 64 products of
//! a b, row i takes m = t_i (-p^-1) mod 2^48 (the column offsets are
//! multiples of 2^48, so t_i's low 48 bits are already exact), adds m p
//! (8 more split products) and carries t_i / 2^48 (exact: m p zeroes its
//! low 48 bits) into t_(i+1). Then columns 8..15 hold (ab + Mp) / 2^384 <
//! 2p as signed 48-bit-radix digits; one carry pass and one conditional
//! subtraction of p give the canonical limbs. Inputs below 2p are allowed
//! (4p < 2^384 keeps the result below 2p before that subtraction).
//!
//! Operations per product (the PTX of cuda/api/bench.cu's chain loop,
//! before ptxas): 128 split products = 256 DFMA + 128 DADD on the FP64
//! pipe; 285 64-bit integer additions (IADD3 pairs, the ALU pipe); 8
//! reduction factors (a 64-bit low product each, about 3 IMAD: ~24 IMAD in
//! all); 16 integer-to-double conversions (8 factors, 8 result limbs); 55
//! shifts, masks and selects for the carries and the final subtraction. The integer product
//! (mont.hpp's mul_chain) takes ~277 IMAD.WIDE per product on sm_90
//! (docs/PERF.md). On sm_90 a DFMA and an IMAD issue at the same rate per
//! SM, so this form alone is not expected to beat mul_chain (384 FP64
//! instructions against 277 IMAD); what it offers is a second pipe, for a
//! hybrid that splits products between both. The device figure is still to
//! be measured (kernels bench, `fp64_mul`).
#pragma once

#include <cstring>

#include "bls12_381.hpp"

#if !defined(__CUDA_ARCH__)
#include <cfloat>
#include <cmath>
// x87's 80-bit intermediates would round twice; SSE2 (x86-64's default)
// evaluates every double operation in binary64.
static_assert(FLT_EVAL_METHOD == 0, "fp64.hpp needs binary64 evaluation (SSE2, not x87)");
#endif

namespace cuzk::ff {

/// Fp in radix 2^48: limbs v[0..8), each an integer in [0, 2^48) as a
/// double, value sum v[k] 2^(48k), in Montgomery form with R = 2^384.
struct fp64 {
    static constexpr int N = 8;
    static constexpr int BITS = 48;
    static constexpr uint64_t MASK = (uint64_t(1) << BITS) - 1;
    double v[N];
};

namespace fp64_detail {

/// fma(a, b, HI_BIAS) rounds ab to a multiple of 2^48 (the ulp of [2^100, 2^101)).
constexpr double HI_BIAS = 0x1p100;
/// The low part lives in [2^52, 2^53), where the ulp is 1, centred at 1.5 2^52.
constexpr double LO_BIAS = 0x1.8p52;
/// HI_BIAS + LO_BIAS: exact, as 2^52 and 2^51 are multiples of 2^100's ulp 2^48.
constexpr double SPLIT = HI_BIAS + LO_BIAS;
static_assert(SPLIT - HI_BIAS == LO_BIAS, "2^100 + 1.5 2^52 must be a double");

/// The binary64 patterns of HI_BIAS (exponent 1023 + 100, mantissa 0) and
/// LO_BIAS (exponent 1023 + 52, mantissa 2^51): a split part's pattern minus
/// these is the part. Both are multiples of 2^48.
constexpr uint64_t HI_BITS = uint64_t(1023 + 100) << 52;
constexpr uint64_t LO_BITS = (uint64_t(1023 + 52) << 52) | (uint64_t(1) << 51);
static_assert(((HI_BITS | LO_BITS) & fp64::MASK) == 0, "offsets leave the low 48 bits of a column alone");

/// p in radix 2^48, from the 32-bit limbs of fp_params (nothing typed in).
struct limbs48 {
    uint64_t v[fp64::N];
};
CUZK_HDC limbs48 modulus48() {
    const limbs<12> p = fp_params::modulus();
    limbs48 r{};
    for (int k = 0; k < fp64::N; k++) {
        for (int b = 0; b < fp64::BITS; b++) {
            const int bit = fp64::BITS * k + b;
            r.v[k] |= uint64_t((p.v[bit / 32] >> (bit % 32)) & 1) << b;
        }
    }
    return r;
}

/// -p^-1 mod 2^48, the reduction factor's multiplier.
CUZK_HDC uint64_t inv48() {
    const limbs<12> p = fp_params::modulus();
    return neg_inv64(uint64_t(p.v[0]) | (uint64_t(p.v[1]) << 32)) & fp64::MASK;
}

/// How many split products have their low part in column k (i + j = k, i, j < N).
CUZK_HDC uint64_t products_at(int k) {
    return k < 0 || k > 2 * fp64::N - 2 ? 0 : uint64_t(k < fp64::N ? k + 1 : 2 * fp64::N - 1 - k);
}

/// What column k must start at so that, complete, it holds its exact sum:
/// minus the offsets of the low parts of its products and the high parts of
/// column k - 1's, for a b and for the reduction's m p alike (mod 2^64).
CUZK_HDC uint64_t column_start(int k) {
    return 0 - 2 * (products_at(k) * LO_BITS + products_at(k - 1) * HI_BITS);
}

CUZK_HD uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return uint64_t(__double_as_longlong(x));
#else
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}

/// Round-to-nearest fma and subtraction, spelled so that no compiler fuses
/// or splits them (the device's __dsub_rn is never contracted into an fma).
CUZK_HD double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
CUZK_HD double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

/// Adds ab (a, b integers below 2^48) into columns lo (its weight) and hi
/// (the next): 2 DFMA, 1 DADD and two 64-bit integer additions.
CUZK_HD void mul_acc(double a, double b, uint64_t& lo, uint64_t& hi) {
    const double h = fma_rn(a, b, HI_BIAS);
    const double l = fma_rn(a, b, sub_rn(SPLIT, h));
    hi += bits_of(h);
    lo += bits_of(l);
}

/// 48-bit limbs, as integers, of the 384-bit little-endian words x.
CUZK_HD void slice48(const uint64_t (&x)[6], uint64_t (&out)[fp64::N]) {
    CUZK_UNROLL
    for (int k = 0; k < fp64::N; k++) {
        const int bit = fp64::BITS * k, w = bit / 64, s = bit % 64;
        uint64_t l = x[w] >> s;
        if (s > 64 - fp64::BITS) l |= x[w + 1] << (64 - s);
        out[k] = l & fp64::MASK;
    }
}

}  // namespace fp64_detail

/// fp_t's Montgomery limbs re-sliced into radix 2^48 (same value, same R).
CUZK_HD fp64 fp64_from_mont(const fp_t& x) {
    uint64_t w[6], l[fp64::N];
    CUZK_UNROLL
    for (int j = 0; j < 6; j++) w[j] = uint64_t(x.v[2 * j]) | (uint64_t(x.v[2 * j + 1]) << 32);
    fp64_detail::slice48(w, l);
    fp64 r;
    CUZK_UNROLL
    for (int k = 0; k < fp64::N; k++) r.v[k] = double(l[k]);
    return r;
}

/// The inverse of fp64_from_mont; the limbs must be integers below 2^48.
CUZK_HD fp_t fp64_to_mont(const fp64& x) {
    uint64_t w[6] = {};
    CUZK_UNROLL
    for (int k = 0; k < fp64::N; k++) {
        const uint64_t l = uint64_t(x.v[k]);
        const int bit = fp64::BITS * k, j = bit / 64, s = bit % 64;
        w[j] |= l << s;
        if (s > 64 - fp64::BITS) w[j + 1] |= l >> (64 - s);
    }
    fp_t r;
    CUZK_UNROLL
    for (int j = 0; j < 6; j++) {
        r.v[2 * j] = uint32_t(w[j]);
        r.v[2 * j + 1] = uint32_t(w[j] >> 32);
    }
    return r;
}

/// a b R^-1 mod p, canonical, for a, b below 2p in fp64 form (see the top
/// of this file for the schedule and why every step is exact).
CUZK_HD fp64 fp64_mul(const fp64& a, const fp64& b) {
    using namespace fp64_detail;
    constexpr int N = fp64::N;
    constexpr limbs48 p = modulus48();
    constexpr uint64_t inv = inv48();
    uint64_t t[2 * N];
    CUZK_UNROLL
    for (int k = 0; k < 2 * N; k++) t[k] = column_start(k);
    CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        CUZK_UNROLL
        for (int j = 0; j < N; j++) mul_acc(a.v[i], b.v[j], t[i + j], t[i + j + 1]);
    }
    CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        const double m = double((t[i] * inv) & fp64::MASK);
        CUZK_UNROLL
        for (int j = 0; j < N; j++) mul_acc(m, double(p.v[j]), t[i + j], t[i + j + 1]);
        t[i + 1] += uint64_t(int64_t(t[i]) >> fp64::BITS);
    }
    // Columns N..2N-1 are signed digits of a value in [0, 2p): carry them
    // into [0, 2^48); the carry out of the top is zero as 2p < 2^384.
    uint64_t r[N], d[N];
    CUZK_UNROLL
    for (int k = 0; k < N; k++) {
        r[k] = t[N + k] & fp64::MASK;
        if (k + 1 < N) t[N + k + 1] += uint64_t(int64_t(t[N + k]) >> fp64::BITS);
    }
    int64_t borrow = 0;
    CUZK_UNROLL
    for (int k = 0; k < N; k++) {
        const int64_t s = int64_t(r[k]) - int64_t(p.v[k]) + borrow;
        d[k] = uint64_t(s) & fp64::MASK;
        borrow = s >> fp64::BITS;
    }
    fp64 out;
    CUZK_UNROLL
    for (int k = 0; k < N; k++) out.v[k] = double(borrow ? r[k] : d[k]);
    return out;
}

}  // namespace cuzk::ff
