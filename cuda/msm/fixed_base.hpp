//! Fixed-base multiplication: s G for many scalars s and one generator G,
//! which is every point of a Groth16 setup (~450 M in G1 for a Filecoin
//! PoRep partition). With the signed c-bit digits of digits.hpp and a
//! window table, row w holding d 2^(c w) G for d = 1 .. 2^(c-1),
//!   s G = sum_w sign(d_w) table[w][|d_w| - 1],
//! one mixed addition per non-zero digit (ceil(256 / c) at most) and no
//! doubling. Results leave XYZZ form through Montgomery's trick: a thread
//! converts a strided run of points with one inversion.
//!
//! Host and device share this code: the kernels in fixed_base.cuh, the
//! host hook in cpp/hooks/fixed_base_host.cpp that CI compares with blstrs.
#pragma once

#include <string>

#include "../ec/point.hpp"
#include "../ff/loose.hpp"
#include "../util/error.hpp"
#include "digits.hpp"

namespace cuzk::msm::fixed_base {

using ec::affine;
using ec::xyzz;

/// Window widths the table layout supports; 2^(c-1) points per row.
constexpr uint32_t MIN_BITS = 2;
constexpr uint32_t MAX_BITS = 20;

/// Points of one row (one window) of the table.
CUZK_HDC uint64_t row_len(uint32_t c) { return uint64_t(1) << (c - 1); }

/// Points of the table for c-bit windows.
CUZK_HDC uint64_t table_len(uint32_t c) { return uint64_t(window_count(c)) * row_len(c); }

/// The field the additions run in: G1's Fp kept below 2p (ff/loose.hpp,
/// whose products skip their final subtraction), G2's Fp2 as it is, as
/// in the MSM's bucket accumulation; `strict` returns to canonical form.
CUZK_HD ff::loose<ff::fp_t> lazy(const ff::fp_t& x) { return ff::loose<ff::fp_t>::of(x); }
CUZK_HD ff::fp2_t lazy(const ff::fp2_t& x) { return x; }
CUZK_HD ff::fp_t strict(const ff::loose<ff::fp_t>& x) { return x.canonical(); }
CUZK_HD ff::fp2_t strict(const ff::fp2_t& x) { return x; }

template <class F>
using lazy_field = decltype(lazy(F{}));

/// s G in XYZZ form, s given as blstrs' Montgomery limbs; the identity for s = 0.
template <class F>
CUZK_HD xyzz<F> multiply(const affine<F>* table, uint32_t c, const ff::fr_t& scalar) {
    using A = lazy_field<F>;
    uint32_t s[8];
    canonical_limbs(scalar, s);
    const uint64_t row = row_len(c);
    xyzz<A> acc = xyzz<A>::identity();
    signed_digits(s, c, [&](uint32_t w, int32_t d) {
        if (d == 0) return;
        const affine<F> p = table[w * row + uint32_t(d < 0 ? -d : d) - 1];
        affine<A> q{lazy(p.x), lazy(p.y)};
        if (d < 0) q.y = -q.y;
        acc = acc.add_affine(q);
    });
    return {strict(acc.X), strict(acc.Y), strict(acc.ZZ), strict(acc.ZZZ)};
}

/// Points first, first + stride, ... below n of `points` to affine in
/// `out`, with one inversion shared by all of them: `before[i]` keeps the
/// product of the ZZZ before point i, so that 1/ZZZ_i = before[i] times the
/// inverse of the products up to i, 3 products per point instead of an
/// inversion's ~570. Identities (never in the product) become (0, 0),
/// blst's affine identity.
template <class F>
CUZK_HD void to_affine_strided(const xyzz<F>* points, F* before, uint64_t n, uint64_t first, uint64_t stride,
                               affine<F>* out) {
    if (first >= n) return;
    F product = F::one();
    uint64_t last = first;
    for (uint64_t i = first; i < n; i += stride) {
        before[i] = product;
        if (!points[i].is_identity()) product = product * points[i].ZZZ;
        last = i;
    }
    F inv = product.inverse();
    for (uint64_t i = last;; i -= stride) {
        const xyzz<F> p = points[i];
        if (p.is_identity()) {
            out[i] = affine<F>::identity();
        } else {
            out[i] = p.to_affine_given(inv * before[i]);
            inv = inv * p.ZZZ;
        }
        if (i == first) break;
    }
}

/// The argument checks of every entry point: a table for c-bit windows of
/// points of `point_limbs` limbs, whole scalars, and one output point each.
inline void check_args(uint64_t point_limbs, uint64_t table_limbs, uint32_t c, uint64_t scalar_limbs,
                       uint64_t out_limbs) {
    if (c < MIN_BITS || c > MAX_BITS)
        throw_invalid("fixed_base: window width " + std::to_string(c) + " is outside [" + std::to_string(MIN_BITS) +
                      ", " + std::to_string(MAX_BITS) + "]");
    if (table_limbs != table_len(c) * point_limbs)
        throw_invalid("fixed_base: a table for " + std::to_string(c) + "-bit windows has " +
                      std::to_string(table_len(c)) + " points of " + std::to_string(point_limbs) + " limbs, got " +
                      std::to_string(table_limbs) + " limbs");
    if (scalar_limbs % 4 != 0)
        throw_invalid("fixed_base: " + std::to_string(scalar_limbs) + " limbs are not whole 4-limb scalars");
    if (out_limbs != scalar_limbs / 4 * point_limbs)
        throw_invalid("fixed_base: " + std::to_string(scalar_limbs / 4) + " scalars need " +
                      std::to_string(scalar_limbs / 4 * point_limbs) + " output limbs, got " +
                      std::to_string(out_limbs));
}

}  // namespace cuzk::msm::fixed_base
