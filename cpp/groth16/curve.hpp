//! Host curve arithmetic of the Groth16 host function, on the same field and
//! point code the kernels use (cuda/ff, cuda/ec): finishing MSMs from their
//! window sums, scalar multiplication for the epilogue, and the compressed
//! encodings of blst/blstrs (ZCash format) that proofs are written in.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../cuda/ec/point.hpp"

namespace cuzk::g16 {

using ff::fp2_t;
using ff::fp_t;
using ff::fr_t;
using g1 = ec::xyzz<fp_t>;
using g2 = ec::xyzz<fp2_t>;

/// Number of u64 limbs of a Jacobian point in blst's layout.
template <class F>
constexpr size_t jacobian_limbs = sizeof(ec::jacobian<F>) / 8;

template <class F>
ec::xyzz<F> from_jacobian_limbs(const uint64_t* limbs) {
    ec::jacobian<F> p;
    std::memcpy(&p, limbs, sizeof(p));
    return ec::xyzz<F>::from_jacobian(p);
}

/// sum_w 2^(c w) S_w for `count` window sums S_w (blst Jacobian limbs,
/// lowest window first), by Horner's rule from the top window.
template <class F>
ec::xyzz<F> combine_windows(const uint64_t* sums, size_t count, uint32_t c) {
    ec::xyzz<F> acc = ec::xyzz<F>::identity();
    for (size_t w = count; w-- > 0;) {
        for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(from_jacobian_limbs<F>(sums + w * jacobian_limbs<F>));
    }
    return acc;
}

/// k p by double-and-add over the canonical bits of k (k < r < 2^255).
template <class F>
ec::xyzz<F> mul(const ec::xyzz<F>& p, const fr_t& k) {
    const ff::limbs<fr_t::N> e = k.to_canonical();
    ec::xyzz<F> acc = ec::xyzz<F>::identity();
    for (int bit = 254; bit >= 0; bit--) {
        acc = acc.dbl();
        if (ff::limbs_bit(e, bit)) acc = acc.add(p);
    }
    return acc;
}

/// x as 48 big-endian bytes of its canonical value.
inline void put_be(const fp_t& x, uint8_t* out) {
    const ff::limbs<fp_t::N> c = x.to_canonical();
    for (int k = 0; k < 48; k++) out[47 - k] = uint8_t(c.v[k / 4] >> (8 * (k % 4)));
}

/// Whether y is the larger of {y, -y}: canonical y > (p - 1) / 2.
inline bool lexicographically_largest(const fp_t& y) {
    constexpr ff::limbs<fp_t::N> half = ff::limbs_shr(fp_t::modulus(), 1);
    return !ff::limbs_geq(half, y.to_canonical());
}

// Flag bits of the first byte of a compressed point.
constexpr uint8_t COMPRESSED = 0x80, INFINITY_BIT = 0x40, SIGN = 0x20;

/// blst's compressed G1 encoding: big-endian x, flags in the top bits.
inline void compress(const ec::affine<fp_t>& p, uint8_t out[48]) {
    std::memset(out, 0, 48);
    if (p.is_identity()) {
        out[0] = COMPRESSED | INFINITY_BIT;
        return;
    }
    put_be(p.x, out);
    out[0] |= COMPRESSED | (lexicographically_largest(p.y) ? SIGN : 0);
}

/// blst's compressed G2 encoding: x.c1 then x.c0; the sign is y.c1's, or
/// y.c0's when y.c1 is zero.
inline void compress(const ec::affine<fp2_t>& p, uint8_t out[96]) {
    std::memset(out, 0, 96);
    if (p.is_identity()) {
        out[0] = COMPRESSED | INFINITY_BIT;
        return;
    }
    put_be(p.x.c1, out);
    put_be(p.x.c0, out + 48);
    const bool sign = p.y.c1.is_zero() ? lexicographically_largest(p.y.c0) : lexicographically_largest(p.y.c1);
    out[0] |= COMPRESSED | (sign ? SIGN : 0);
}

}  // namespace cuzk::g16
