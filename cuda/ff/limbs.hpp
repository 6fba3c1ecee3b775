//! Compile-time multi-precision helpers that derive every Montgomery constant
//! (R, R^2, -p^-1, p-2, ...) from the modulus alone, so no constant table is
//! ever typed in by hand. Everything here runs inside constant expressions.
#pragma once

#include "common.hpp"

namespace cuzk::ff {

/// N little-endian 32-bit limbs; the same bytes as blst's little-endian u64 limbs.
template <int N>
struct limbs {
    uint32_t v[N];
};

template <int N>
CUZK_HDC bool limbs_geq(const limbs<N>& a, const limbs<N>& b) {
    for (int i = N - 1; i >= 0; i--) {
        if (a.v[i] != b.v[i]) return a.v[i] > b.v[i];
    }
    return true;
}

/// a - b, ignoring the final borrow (callers ensure a >= b or want wrap-around).
template <int N>
CUZK_HDC limbs<N> limbs_sub(const limbs<N>& a, const limbs<N>& b) {
    limbs<N> r{};
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        uint64_t d = uint64_t(a.v[i]) - b.v[i] - borrow;
        r.v[i] = uint32_t(d);
        borrow = (d >> 32) & 1;
    }
    return r;
}

template <int N>
CUZK_HDC limbs<N> limbs_small(uint32_t x) {
    limbs<N> r{};
    r.v[0] = x;
    return r;
}

/// 2a mod p for a < p, assuming p < 2^(32N-1) so 2a cannot overflow N limbs.
template <int N>
CUZK_HDC limbs<N> limbs_dbl_mod(const limbs<N>& a, const limbs<N>& p) {
    limbs<N> r{};
    uint32_t carry = 0;
    for (int i = 0; i < N; i++) {
        r.v[i] = (a.v[i] << 1) | carry;
        carry = a.v[i] >> 31;
    }
    return limbs_geq(r, p) ? limbs_sub(r, p) : r;
}

/// 2^k mod p by repeated doubling of 1: slow, but only ever evaluated by the compiler.
template <int N>
CUZK_HDC limbs<N> limbs_pow2_mod(int k, const limbs<N>& p) {
    limbs<N> r = limbs_small<N>(1);
    for (int i = 0; i < k; i++) r = limbs_dbl_mod(r, p);
    return r;
}

/// -p^-1 mod 2^32 by Newton iteration (each step doubles the correct low bits).
CUZK_HDC uint32_t neg_inv32(uint32_t p0) {
    uint32_t x = 1;
    for (int i = 0; i < 5; i++) x = x * (2 - p0 * x);
    return 0u - x;
}

/// -p0^-1 mod 2^64 for odd p0 (Newton's iteration, as neg_inv32).
CUZK_HDC uint64_t neg_inv64(uint64_t p0) {
    uint64_t x = 1;
    for (int i = 0; i < 6; i++) x = x * (2 - p0 * x);
    return 0 - x;
}

/// a >> k for 0 <= k < 32N.
template <int N>
CUZK_HDC limbs<N> limbs_shr(const limbs<N>& a, int k) {
    limbs<N> r{};
    int w = k / 32, b = k % 32;
    for (int i = 0; i < N; i++) {
        uint64_t lo = (i + w < N) ? a.v[i + w] : 0;
        uint64_t hi = (i + w + 1 < N) ? a.v[i + w + 1] : 0;
        r.v[i] = uint32_t(((hi << 32) | lo) >> b);
    }
    return r;
}

/// Number of trailing zero bits (the two-adicity of p-1 when applied to it).
template <int N>
CUZK_HDC int limbs_ctz(const limbs<N>& a) {
    for (int i = 0; i < 32 * N; i++) {
        if ((a.v[i / 32] >> (i % 32)) & 1) return i;
    }
    return 32 * N;
}

template <int N>
CUZK_HDC bool limbs_bit(const limbs<N>& a, int i) {
    return (a.v[i / 32] >> (i % 32)) & 1;
}

}  // namespace cuzk::ff
