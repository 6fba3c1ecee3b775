//! The index logic of the MSM and batch-addition kernels, generic in the
//! group so that the host tests run it with plain integers (cpp/hooks/msm_models.cpp)
//! and the kernels with curve points (kernels.cuh).
//!
//! A group type A provides A::identity(), a.is_identity(), a.add(b) and
//! a.dbl(); the point types are ec::xyzz<F>.
#pragma once

#include "../ff/common.hpp"

namespace cuzk::msm {

/// Key of a partial-sum slot that holds nothing; sorts after every bucket.
constexpr uint32_t NO_KEY = 0xffffffffu;

/// The items [begin, end) of thread t when m items are split evenly over
/// `threads` threads; trailing threads may get nothing.
struct chunk {
    uint64_t begin, end;
};

CUZK_HD chunk chunk_of(uint64_t t, uint64_t threads, uint64_t m) {
    const uint64_t len = (m + threads - 1) / threads;
    const uint64_t b = t * len < m ? t * len : m;
    const uint64_t e = b + len < m ? b + len : m;
    return {b, e};
}

/// One thread's share of a segmented sum over key-sorted items: the sum of
/// each run of equal keys. Every thread gets the same number of items however
/// uneven the runs are (all scalars equal puts every point in one bucket), so
/// a run may be cut by chunk boundaries:
///  - a run wholly inside [begin, end) is complete: complete(key, sum);
///  - the run cut at `begin` goes to slot 0, the run cut at `end` to slot 1,
///    through partial(slot, key, sum); a run cut at both ends takes slot 0.
/// Both slots are always written (identity when unused, keyed with the
/// chunk's first and last key, or NO_KEY for an empty chunk) so the 2T slots
/// of T threads are again key-sorted, and the next level sums them with this
/// same function until one thread covers everything.
///
/// add(acc, i) returns acc plus item i. keys[i] is item i's key: an array,
/// or an object that computes it (bitmap_keys); within the chunk, keys[i]
/// is read just before add(acc, i), in increasing i.
template <class A, class Keys, class Add, class Complete, class Partial>
CUZK_HD void reduce_chunk(const Keys& keys, uint64_t m, chunk ch, Add&& add, Complete&& complete,
                          Partial&& partial) {
    if (ch.begin >= ch.end) {
        partial(0, NO_KEY, A::identity());
        partial(1, NO_KEY, A::identity());
        return;
    }
    uint32_t cur = keys[ch.begin];
    const bool cut_begin = ch.begin > 0 && keys[ch.begin - 1] == cur;
    bool first_open = true;
    A acc = A::identity();
    for (uint64_t i = ch.begin; i < ch.end; i++) {
        const uint32_t k = keys[i];
        if (k != cur) {
            if (first_open && cut_begin) {
                partial(0, cur, acc);
            } else {
                complete(cur, acc);
                if (first_open) partial(0, cur, A::identity());
            }
            first_open = false;
            cur = k;
            acc = A::identity();
        }
        acc = add(acc, i);
    }
    const bool cut_end = ch.end < m && keys[ch.end] == cur;
    if (first_open) {
        if (cut_begin) {
            partial(0, cur, acc);
            partial(1, cur, A::identity());
        } else if (cut_end) {
            partial(0, cur, A::identity());
            partial(1, cur, acc);
        } else {
            complete(cur, acc);
            partial(0, cur, A::identity());
            partial(1, cur, A::identity());
        }
    } else if (cut_end) {
        partial(1, cur, acc);
    } else {
        complete(cur, acc);
        partial(1, cur, A::identity());
    }
}

/// k p by double-and-add, for the small k of the window reduction.
template <class A>
CUZK_HD A mul_small(const A& p, uint32_t k) {
    A r = A::identity();
    for (int bit = 31; bit >= 0; bit--) {
        r = r.dbl();
        if ((k >> bit) & 1) r = r.add(p);
    }
    return r;
}

/// Segment j of each window in the window reduction: buckets [lo, lo +
/// count) of window g, for thread t of a launch over `windows` windows of
/// `per_window` buckets in segments of `len` (the last one of a window may
/// be shorter); count = 0 for threads past the last segment.
struct segment_span {
    uint32_t g, lo, count;
};

CUZK_HD uint32_t segments_per_window(uint32_t per_window, uint32_t len) { return (per_window + len - 1) / len; }

CUZK_HD segment_span segment_of(uint64_t t, uint32_t per_window, uint32_t len, uint32_t windows) {
    const uint32_t segments = segments_per_window(per_window, len);
    if (t >= uint64_t(windows) * segments) return {0, 0, 0};
    const uint32_t g = uint32_t(t / segments), lo = uint32_t(t % segments) * len;
    return {g, lo, per_window - lo < len ? per_window - lo : len};
}

/// First step of a segment's weighted sum: its suffix sums, in place,
/// B_b <- B_b + ... + B_(lo+count-1). One addition per bucket, with only a
/// running sum and one bucket live. bucket(b) returns a reference.
template <class A, class Bucket>
CUZK_HD void suffix_sums(Bucket&& bucket, uint32_t lo, uint32_t count) {
    A run = A::identity();
    for (uint32_t b = lo + count; b-- > lo;) {
        run = run.add(bucket(b));
        bucket(b) = run;
    }
}

/// Second step: the plain sum of the suffix sums S_b of segment [lo, lo +
/// count), which is sum_b (b - lo + 1) B_b. The weighted sum sum_b (b + 1)
/// B_b adds lo S_lo (mul_small) to it.
template <class A, class Suffix>
CUZK_HD A sum_of_suffixes(Suffix&& suffix, uint32_t lo, uint32_t count) {
    A acc = A::identity();
    for (uint32_t b = lo; b < lo + count; b++) acc = acc.add(suffix(b));
    return acc;
}

/// Number of set bits of a 64-bit word.
CUZK_HD uint32_t popcount64(uint64_t w) {
#if defined(__CUDA_ARCH__)
    return uint32_t(__popcll(w));
#else
    return uint32_t(__builtin_popcountll(w));
#endif
}

/// Index of the lowest set bit of a non-zero word.
CUZK_HD uint32_t lowest_bit(uint64_t w) {
#if defined(__CUDA_ARCH__)
    return uint32_t(__ffsll(static_cast<long long>(w)) - 1);
#else
    return uint32_t(__builtin_ctzll(w));
#endif
}

/// The set bits of `bitmaps` bitmaps of `per` words each, laid end to end,
/// in rank order from a given rank (rank = position among all the set bits;
/// bit i of a bitmap's word i/64 stands for its item i), given before[w] =
/// the number of set bits in words [0, w). Splitting ranks evenly over
/// threads balances the work however the ones are spread.
struct set_bit_cursor {
    const uint64_t* words;
    uint64_t per;
    uint64_t w = 0, word = 0;
    /// The rank next() returns next, and the bitmap word w belongs to.
    uint64_t rank;
    uint32_t bitmap = 0;

    /// At rank r (word_count >= 1 words in all).
    CUZK_HD set_bit_cursor(const uint64_t* words_, const uint32_t* before, uint64_t word_count, uint64_t per_,
                           uint64_t r)
        : words(words_), per(per_), rank(r) {
        // The word holding rank r: the last w with before[w] <= r.
        uint64_t lo = 0, hi = word_count;
        while (hi - lo > 1) {
            const uint64_t mid = (lo + hi) / 2;
            if (before[mid] <= r) lo = mid; else hi = mid;
        }
        w = lo;
        word = words[w];
        for (uint64_t skip = r - before[w]; skip > 0 && word != 0; skip--) word &= word - 1;
        bitmap = uint32_t(w / per);
    }

    /// The bitmap of the set bit of rank `rank` (which must exist).
    CUZK_HD uint32_t peek_bitmap() {
        settle();
        return bitmap;
    }

    /// The item of the set bit of rank `rank` (which must exist) within its
    /// bitmap; moves on to the next rank.
    CUZK_HD uint64_t next() {
        settle();
        const uint64_t item = (w - uint64_t(bitmap) * per) * 64 + lowest_bit(word);
        word &= word - 1;
        rank++;
        return item;
    }

private:
    CUZK_HD void settle() {
        while (word == 0) word = words[++w];
        while (w >= uint64_t(bitmap + 1) * per) bitmap++;
    }
};

/// reduce_chunk's keys over the set bits a cursor walks: the bitmap holding
/// rank i. The rank the cursor stands at is read from it; any other (the
/// neighbours of a chunk) by a binary search over the bitmaps' first ranks.
struct bitmap_keys {
    set_bit_cursor* cursor;
    const uint32_t* before;
    uint32_t bitmaps;

    CUZK_HD uint32_t operator[](uint64_t i) const {
        if (i == cursor->rank) return cursor->peek_bitmap();
        // The last bitmap whose first rank is <= i (empty ones share theirs
        // with the next and are passed over).
        uint32_t lo = 0, hi = bitmaps;
        while (hi - lo > 1) {
            const uint32_t mid = (lo + hi) / 2;
            if (before[uint64_t(mid) * cursor->per] <= i) lo = mid; else hi = mid;
        }
        return lo;
    }
};

}  // namespace cuzk::msm
