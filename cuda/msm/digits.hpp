//! Signed-window recoding of Fr scalars for Pippenger's method.
//!
//! A canonical scalar s < 2^255 is written as s = sum_w d_w 2^(c w) with
//! digits 1 - 2^(c-1) <= d_w <= 2^(c-1): a window whose raw value exceeds
//! half the window is taken as negative and borrows one from the next window.
//! Negating an affine point is free, so each window needs only 2^(c-1)
//! buckets (one per |d|) instead of 2^c - 1, halving the bucket reduction.
#pragma once

#include "../ff/bls12_381.hpp"

namespace cuzk::msm {

/// Widest window: bucket keys (window * 2^(c-1) + |d| - 1, at most 2^27 for
/// any window count) and point indices with a sign bit must fit 32 bits, and
/// 2^21 buckets per window is already past the best width for 2^31 points.
constexpr uint32_t MAX_WINDOW_BITS = 22;
constexpr uint32_t MIN_WINDOW_BITS = 2;

/// Number of c-bit windows of the recoding. The top window must absorb the
/// last borrow without producing one: with s < 2^255 and W c >= 256 its raw
/// value is below 2^(c-1), so raw + 1 <= 2^(c-1) stays non-negative.
CUZK_HDC uint32_t window_count(uint32_t c) { return (256 + c - 1) / c; }

/// Bits [lo, lo + c) of a 256-bit little-endian integer, c <= 32; bits at or
/// above 256 read as zero.
CUZK_HD uint32_t window_raw(const uint32_t (&s)[8], uint32_t lo, uint32_t c) {
    const uint32_t i = lo / 32, shift = lo % 32;
    uint64_t two = i < 8 ? s[i] : 0;
    if (i + 1 < 8) two |= uint64_t(s[i + 1]) << 32;
    return uint32_t(two >> shift) & uint32_t((uint64_t(1) << c) - 1);
}

/// Calls emit(w, d_w) for every window w < window_count(c), lowest first,
/// with the signed digits of the canonical scalar s < 2^255.
template <class Emit>
CUZK_HD void signed_digits(const uint32_t (&s)[8], uint32_t c, Emit&& emit) {
    const uint32_t half = 1u << (c - 1);
    const uint32_t windows = window_count(c);
    uint32_t borrow = 0;
    for (uint32_t w = 0; w < windows; w++) {
        const uint32_t raw = window_raw(s, w * c, c) + borrow;
        borrow = raw > half ? 1u : 0u;
        emit(w, int32_t(raw) - int32_t(borrow << c));
    }
}

/// Where the digit of window w of point i goes in an MSM over a table whose
/// copies are table_n points apart, with `stride` bucket sets (plan.hpp's
/// window_stride): bucket set w mod S, and copy w / S of base i, whose
/// weight 2^(c S (w / S)) the table holds (without a table, S = W: set w,
/// point i).
struct digit_slot {
    uint32_t set, point;
};
CUZK_HD digit_slot slot_of(uint32_t w, uint32_t stride, uint32_t table_n, uint32_t i) {
    return {w % stride, w / stride * table_n + i};
}

/// The canonical little-endian limbs of a Montgomery-form Fr element (the
/// limbs of a blstrs Scalar): one Montgomery multiplication by 1.
CUZK_HD void canonical_limbs(const ff::fr_t& mont, uint32_t (&out)[8]) {
    const ff::limbs<8> c = mont.to_canonical();
    CUZK_UNROLL
    for (int i = 0; i < 8; i++) out[i] = c.v[i];
}

}  // namespace cuzk::msm
