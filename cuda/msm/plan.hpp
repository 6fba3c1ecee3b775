//! Tuning of the MSM, kept apart from the kernels: the window width for a
//! number of points, and the launch shapes.
#pragma once

#include "digits.hpp"

namespace cuzk::msm {

/// Threads per block of every MSM and batch-addition kernel.
constexpr unsigned THREADS = 128;
/// Slots summed by one thread at the second and later accumulation levels.
constexpr uint64_t SLOT_CHUNK = 16;

/// Windows that share one set of buckets when the bases come with `copies`
/// precomputed copies (copy t holds 2^(c S t) P): window w = t S + u adds
/// copy t's point into bucket set u, so S = ceil(W / copies) sets remain.
/// One copy is the plain MSM, S = W.
inline uint32_t window_stride(uint32_t c, uint32_t copies) {
    const uint32_t windows = window_count(c);
    const uint32_t k = copies == 0 ? 1 : (copies < windows ? copies : windows);
    return (windows + k - 1) / k;
}

/// Relative cost of window width c for n points, in mixed additions:
/// n W digits to add into buckets, and about 4 per bucket to reduce the
/// S 2^(c-1) buckets (two full additions of ~1.4 mixed ones, plus the
/// clearing and segment overhead; S = W without precomputed copies).
inline double window_cost(uint64_t n, uint32_t c, uint32_t copies = 1) {
    const double windows = window_count(c), sets = window_stride(c, copies);
    return double(n) * windows + 4.0 * sets * double(uint64_t(1) << (c - 1));
}

/// Each window's digits pass examines every scalar, which costs about
/// 1/SCAN_SHARE of a mixed addition per scalar (its recoding and its slot).
constexpr uint64_t SCAN_SHARE = 64;

/// The points to choose the window width of a plain MSM for, when `wide` of
/// its n scalars are neither 0 nor 1. A zero adds no digit and a one adds one
/// (in the lowest window) whatever the width, so only the wide scalars weigh
/// against the reduction's buckets: the tail MSMs of mostly-boolean
/// witnesses would otherwise reduce buckets for points that add nothing to
/// them. Narrower windows mean more of them, and each pass over all n
/// scalars, which floors the count at n / SCAN_SHARE.
inline uint64_t digit_points(uint64_t n, uint64_t wide) {
    const uint64_t floor = n / SCAN_SHARE;
    return wide > floor ? wide : floor;
}

/// The window width with the least modelled cost for n points (with
/// `copies` precomputed copies of each base).
inline uint32_t window_bits_for(uint64_t n, uint32_t copies = 1) {
    uint32_t best = MIN_WINDOW_BITS;
    for (uint32_t c = MIN_WINDOW_BITS + 1; c <= MAX_WINDOW_BITS; c++) {
        if (window_cost(n, c, copies) < window_cost(n, best, copies)) best = c;
    }
    return best;
}

/// The copies a table for n bases asked to hold `copies` really stores:
/// those a window uses (copy t serves windows t S ... t S + S - 1).
inline uint32_t table_copies(uint64_t n, uint32_t copies) {
    const uint32_t c = window_bits_for(n, copies), stride = window_stride(c, copies);
    return (window_count(c) + stride - 1) / stride;
}

/// A launch of `want` threads in blocks of at most THREADS; the kernels size
/// their work by the grid, so `threads()` is what actually runs.
struct launch_shape {
    unsigned blocks, block;
    uint64_t threads() const { return uint64_t(blocks) * block; }
};

inline launch_shape shape_for(uint64_t want) {
    if (want == 0) want = 1;
    const unsigned block = unsigned(want < THREADS ? want : THREADS);
    return {unsigned((want + block - 1) / block), block};
}

/// The levels of a keyed segmented sum of m (key, point) slots into their
/// buckets: level(m, shape) sums m slots with `shape` (each thread leaving 2
/// slots), until a level of one thread has left no cut run. Each level has
/// about SLOT_CHUNK / 2 times fewer threads than the one before.
template <class Level>
void for_each_level(uint64_t m, Level&& level) {
    for (;;) {
        const launch_shape shape = shape_for((m + SLOT_CHUNK - 1) / SLOT_CHUNK);
        level(m, shape);
        if (shape.threads() == 1) return;
        m = 2 * shape.threads();
    }
}

/// Slots written by the first level of for_each_level(m).
inline uint64_t first_level_slots(uint64_t m) { return 2 * shape_for((m + SLOT_CHUNK - 1) / SLOT_CHUNK).threads(); }

/// Number of bits needed to write x (0 for 0).
inline uint32_t bit_length(uint64_t x) {
    uint32_t b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

}  // namespace cuzk::msm
