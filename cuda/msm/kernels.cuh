//! Kernels of the Pippenger MSM and the bitmap batch addition, templated over
//! the coordinate field F so G1 (Fp) and G2 (Fp2) share them. The index logic
//! lives in segments.hpp and digits.hpp, where the host tests reach it.
#pragma once

#include "../ec/point.hpp"
#include "accumulation.hpp"
#include "digits.hpp"
#include "plan.hpp"
#include "segments.hpp"

namespace cuzk::msm {

using ec::affine;
using ec::jacobian;
using ec::xyzz;
using ff::fr_t;

/// Blocks per multiprocessor that the mixed-addition loops are compiled for.
/// G1's loop wants ~178 registers, which would leave two 128-thread blocks
/// per SM; capping it at 128 (four blocks) costs ptxas ~60 bytes of spills
/// and measured 2-8 % faster than 168 registers (three blocks) on the H200:
/// more resident warps keep the integer multiplier busier, which bounds the
/// loop (Nsight Compute: the IMAD pipe 82 % busy at four blocks). G2's loop
/// is over the 255-register limit either way, and a 168 cap (three blocks)
/// spills 4 KiB and measured 10 % slower, so G2 gets no cap.
template <class F>
constexpr int addition_blocks() {
    return sizeof(F) == sizeof(ff::fp_t) ? 4 : 1;
}

/// Bit of a sort value marking a negative digit; the rest is the point index.
constexpr uint32_t NEG_BIT = 0x80000000u;

/// blst's Jacobian form of an XYZZ point without an inversion: with
/// Z = ZZZ/ZZ the point (X ZZ^2, Y ZZ^3, ZZZ) is (X Z'^2/ZZ, Y Z'^3/ZZZ) for
/// Z' = ZZZ, because ZZZ^2 = ZZ^3. The identity keeps Z' = 0.
template <class F>
__device__ jacobian<F> to_jacobian(const xyzz<F>& p) {
    if (p.is_identity()) return {F::zero(), F::zero(), F::zero()};
    const F zz2 = p.ZZ.sqr();
    return {p.X * zz2, p.Y * (zz2 * p.ZZ), p.ZZZ};
}

template <class F>
__device__ __noinline__ xyzz<F> add_out_of_line(const xyzz<F> a, const xyzz<F> b) {
    return a.add(b);
}

template <class F>
__device__ __noinline__ xyzz<F> dbl_out_of_line(const xyzz<F> a) {
    return a.dbl();
}

/// An XYZZ point whose full addition and doubling are calls, not inlined
/// copies: the reduction kernels use several per loop, and inlining each
/// multiplies code size, registers and compile time for work that is not
/// the hot loop (the mixed additions of accumulate_points_kernel are).
template <class F>
struct called {
    xyzz<F> p;

    __device__ static called identity() { return {xyzz<F>::identity()}; }
    __device__ bool is_identity() const { return p.is_identity(); }
    __device__ called add(const called& q) const {
        if (q.p.is_identity()) return *this;
        if (p.is_identity()) return q;
        return {add_out_of_line(p, q.p)};
    }
    __device__ called dbl() const { return p.is_identity() ? *this : called{dbl_out_of_line(p)}; }
};

inline __device__ uint64_t global_thread() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

/// Sort pairs for bucket sets [u0, u0 + G) of n scalars, non-zero digits
/// only: window w = t S + u (S = stride, plan.hpp's window_stride) of point
/// i gives key (u - u0) 2^(c-1) + |d| - 1 and value (t table_n + i) | sign,
/// the index of copy t of base i in a table of copies table_n apart (with
/// S = W, t = 0: the bases themselves). Zero digits are dropped here rather
/// than sorted (a bit-heavy witness has almost nothing else above window 0),
/// so the pairs are compacted: each warp reserves room for its pairs with
/// one atomic on *nonzero, then writes them window by window, lanes side by
/// side. blockDim must be a multiple of 32; threads past n take the scalar
/// zero.
__global__ void digits_kernel(const fr_t* scalars, uint32_t n, uint32_t c, uint32_t stride, uint32_t table_n,
                              uint32_t u0, uint32_t group, uint32_t* keys, uint32_t* vals,
                              unsigned long long* nonzero) {
    const uint64_t i = global_thread();
    uint32_t s[8] = {};
    if (i < n) canonical_limbs(scalars[i], s);
    const uint32_t buckets = 1u << (c - 1);
    auto slot = [&](uint32_t w) { return slot_of(w, stride, table_n, uint32_t(i)); };
    auto in_group = [&](uint32_t w) { return slot(w).set >= u0 && slot(w).set < u0 + group; };

    uint32_t count = 0;
    signed_digits(s, c, [&](uint32_t w, int32_t d) { count += in_group(w) && d != 0 ? 1u : 0u; });
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t total = __reduce_add_sync(0xffffffffu, count);
    unsigned long long at = 0;
    if (lane == 0 && total) at = atomicAdd(nonzero, (unsigned long long)total);
    at = __shfl_sync(0xffffffffu, at, 0);

    const uint32_t lanes_below = (1u << lane) - 1;
    signed_digits(s, c, [&](uint32_t w, int32_t d) {
        if (!in_group(w)) return;
        const uint32_t mask = __ballot_sync(0xffffffffu, d != 0);
        if (d != 0) {
            const uint64_t pos = at + __popc(mask & lanes_below);
            keys[pos] = (slot(w).set - u0) * buckets + uint32_t(d < 0 ? -d : d) - 1;
            vals[pos] = slot(w).point | (d < 0 ? NEG_BIT : 0u);
        }
        at += __popc(mask);
    });
}

/// Adds to *count the number of scalars that are neither 0 nor 1, compared in
/// Montgomery form as blstrs stores them (plan.hpp's digit_points). Grid-stride;
/// blockDim must be a multiple of 32.
__global__ void wide_scalars_kernel(const fr_t* scalars, uint32_t n, unsigned long long* count) {
    const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
    const fr_t one = fr_t::one();
    uint32_t wide = 0;
    for (uint64_t i = global_thread(); i < n; i += threads) {
        const fr_t x = scalars[i];
        wide += x.is_zero() || x == one ? 0u : 1u;
    }
    const uint32_t total = __reduce_add_sync(0xffffffffu, wide);
    if ((threadIdx.x & 31) == 0 && total) atomicAdd(count, (unsigned long long)total);
}

/// First level of the bucket accumulation: each of the grid's threads sums an
/// equal share of the *count sorted non-zero digits, adding the affine base
/// (negated for a negative digit) into an XYZZ accumulator. Complete runs are
/// stored straight into their (zero-initialised) bucket; cut runs go to two
/// slots per thread for the keyed-sum levels of reduce_kernel. Sums leave
/// the accumulation field in canonical form.
template <class F>
__global__ void __launch_bounds__(THREADS, addition_blocks<F>())
    accumulate_points_kernel(const uint32_t* keys, const uint32_t* vals, const unsigned long long* count,
                             const affine<F>* bases, xyzz<F>* buckets, uint32_t* slot_keys, xyzz<F>* slot_sums) {
    using A = accumulation_field<F>;
    const uint64_t t = global_thread(), threads = uint64_t(gridDim.x) * blockDim.x;
    const uint64_t m = *count;
    auto add = [&](const xyzz<A>& acc, uint64_t i) {
        const uint32_t v = vals[i];
        affine<A> p = loosened(bases[v & ~NEG_BIT]);
        if (v & NEG_BIT) p.y = -p.y;
        return acc.add_affine(p);
    };
    auto complete = [&](uint32_t key, const xyzz<A>& sum) { buckets[key] = canonical(sum); };
    auto partial = [&](int slot, uint32_t key, const xyzz<A>& sum) {
        slot_keys[2 * t + slot] = key;
        slot_sums[2 * t + slot] = canonical(sum);
    };
    reduce_chunk<xyzz<A>>(keys, m, chunk_of(t, threads, m), add, complete, partial);
}

/// One level of a keyed segmented sum: the same reduce_chunk over m slots
/// of an earlier level (or of window segments, or of batch-addition
/// partials). Complete runs are added into their target, which may already
/// hold a level-1 sum (a run complete at level 1 reappears here only as
/// identities, which are skipped).
template <class F>
__device__ void sum_slots(const uint32_t* in_keys, const xyzz<F>* in_sums, uint64_t m, xyzz<F>* targets,
                          uint32_t* slot_keys, xyzz<F>* slot_sums) {
    const uint64_t t = global_thread(), threads = uint64_t(gridDim.x) * blockDim.x;
    auto add = [&](const called<F>& acc, uint64_t i) { return acc.add({in_sums[i]}); };
    auto complete = [&](uint32_t key, const called<F>& sum) {
        if (key == NO_KEY || sum.is_identity()) return;
        targets[key] = called<F>{targets[key]}.add(sum).p;
    };
    auto partial = [&](int slot, uint32_t key, const called<F>& sum) {
        slot_keys[2 * t + slot] = key;
        slot_sums[2 * t + slot] = sum.p;
    };
    reduce_chunk<called<F>>(in_keys, m, chunk_of(t, threads, m), add, complete, partial);
}

/// Arguments of reduce_kernel, one keyed-sum level.
template <class F>
struct reduce_args {
    const uint32_t* in_keys;
    const xyzz<F>* in_sums;
    uint64_t m;
    xyzz<F>* targets;
    uint32_t* out_keys;
    xyzz<F>* out_sums;
};

/// Every keyed-sum level, in one kernel: ptxas compiles an out-of-line
/// callee into each kernel that calls it, and G2's is slow to compile.
template <class F>
__global__ void reduce_kernel(reduce_args<F> a) {
    sum_slots(a.in_keys, a.in_sums, a.m, a.targets, a.out_keys, a.out_sums);
}

/// Blocks per SM the window reduction's suffix step is compiled for: G1's
/// inlined addition then fits 168 registers.
template <class F>
constexpr int suffix_blocks() {
    return sizeof(F) == sizeof(ff::fp_t) ? 3 : 1;
}

/// Window reduction, step 1: each thread turns its segment of a window's
/// buckets into suffix sums (segments.hpp), in place. A kernel of its own so
/// that its inlined addition keeps only two points live: the old single-step
/// kernel held a running sum, an accumulator and call frames in 255
/// registers with spills, two blocks per SM.
template <class F>
__global__ void __launch_bounds__(THREADS, suffix_blocks<F>())
    suffix_kernel(xyzz<F>* buckets, uint32_t per_window, uint32_t len, uint32_t windows) {
    const segment_span sp = segment_of(global_thread(), per_window, len, windows);
    if (sp.count == 0) return;
    xyzz<F>* window = buckets + uint64_t(sp.g) * per_window;
    suffix_sums<xyzz<F>>([&](uint32_t b) -> xyzz<F>& { return window[b]; }, sp.lo, sp.count);
}

/// Window reduction, step 2: thread t's segment of window g gives
/// sum_b (b + 1) B_b over the segment from its suffix sums, keyed g for the
/// keyed sum that adds a window's segments. Its additions are calls, as in
/// reduce_kernel: lo S_lo needs doublings too, and inlining all three
/// spills kilobytes in G2.
template <class F>
__global__ void __launch_bounds__(THREADS)
    segment_sum_kernel(const xyzz<F>* suffixes, uint32_t per_window, uint32_t len, uint32_t windows,
                       uint32_t* out_keys, xyzz<F>* out_sums) {
    const uint64_t t = global_thread();
    const segment_span sp = segment_of(t, per_window, len, windows);
    if (sp.count == 0) return;
    const xyzz<F>* window = suffixes + uint64_t(sp.g) * per_window;
    const called<F> acc = sum_of_suffixes<called<F>>([&](uint32_t b) { return called<F>{window[b]}; }, sp.lo, sp.count);
    out_keys[t] = sp.g;
    out_sums[t] = acc.add(mul_small(called<F>{window[sp.lo]}, sp.lo)).p;
}

/// Converts `count` sums to blst's Jacobian form for the host.
template <class F>
__global__ void to_jacobian_kernel(const xyzz<F>* in, uint32_t count, jacobian<F>* out) {
    const uint64_t t = global_thread();
    if (t < count) out[t] = to_jacobian(in[t]);
}

/// Set bits per bitmap word, for the exclusive scan that ranks them.
__global__ void popcount_kernel(const uint64_t* words, uint64_t word_count, uint32_t* counts) {
    const uint64_t t = global_thread();
    if (t < word_count) counts[t] = popcount64(words[t]);
}

/// Batch addition of several bitmaps over the same bases (one per circuit
/// of a batch, `per` words each, laid end to end): each thread adds the
/// bases of an equal share of all their set bits (ranks split evenly,
/// wherever the ones lie), keyed by bitmap. Sums wholly inside a thread's
/// share are stored straight into their (zero-initialised) target; cut ones
/// go to two slots per thread for the keyed-sum levels, as in
/// accumulate_points_kernel. One launch serves the whole batch: a launch per
/// circuit paid its fixed costs (scan, levels, round trip) ten times for a
/// PoRep proof. Additions run in accumulation_field<F>, as in
/// accumulate_points_kernel.
template <class F>
__global__ void __launch_bounds__(THREADS, addition_blocks<F>())
    batch_add_kernel(const affine<F>* bases, const uint64_t* words, const uint32_t* before, uint64_t per,
                     uint32_t bitmaps, xyzz<F>* targets, uint32_t* slot_keys, xyzz<F>* slot_sums) {
    const uint64_t t = global_thread(), threads = uint64_t(gridDim.x) * blockDim.x;
    const uint64_t word_count = per * bitmaps;
    const uint64_t total = uint64_t(before[word_count - 1]) + popcount64(words[word_count - 1]);
    const chunk ch = chunk_of(t, threads, total);
    set_bit_cursor cursor(words, before, word_count, per, ch.begin);
    const bitmap_keys keys{&cursor, before, bitmaps};
    using A = accumulation_field<F>;
    auto add = [&](const xyzz<A>& acc, uint64_t) { return acc.add_affine(loosened(bases[cursor.next()])); };
    auto complete = [&](uint32_t key, const xyzz<A>& sum) { targets[key] = canonical(sum); };
    auto partial = [&](int slot, uint32_t key, const xyzz<A>& sum) {
        slot_keys[2 * t + slot] = key;
        slot_sums[2 * t + slot] = canonical(sum);
    };
    reduce_chunk<xyzz<A>>(keys, total, ch, add, complete, partial);
}

/// Copies of one base that table_kernel converts to affine with one
/// shared inversion (Montgomery's trick: 3 products per copy instead of an
/// inversion's ~570, the doublings between copies being ~9 c S).
constexpr uint32_t TABLE_BATCH = 8;

/// The precomputed copies of n bases for an MSM whose windows share buckets
/// (plan.hpp's window_stride): copy t of base i, 2^(shift t) bases[i] with
/// shift = c S, at table[t n + i], affine. One thread per base; its copies
/// leave XYZZ form TABLE_BATCH at a time through one inversion of the
/// product of their ZZZ (an identity, only ever the copies of an identity
/// base, counts as one).
template <class F>
__global__ void table_kernel(const affine<F>* bases, uint64_t n, uint32_t shift, uint32_t copies, affine<F>* table) {
    const uint64_t i = global_thread();
    if (i >= n) return;
    const affine<F> p = bases[i];
    table[i] = p;
    called<F> acc{xyzz<F>::from_affine(p)};
    for (uint32_t t0 = 1; t0 < copies; t0 += TABLE_BATCH) {
        const uint32_t count = copies - t0 < TABLE_BATCH ? copies - t0 : TABLE_BATCH;
        xyzz<F> copy[TABLE_BATCH];
        F before[TABLE_BATCH];  // product of the ZZZ of the copies before
        F product = F::one();
        for (uint32_t j = 0; j < count; j++) {
            for (uint32_t k = 0; k < shift; k++) acc = acc.dbl();
            copy[j] = acc.p;
            before[j] = product;
            if (!copy[j].is_identity()) product = product * copy[j].ZZZ;
        }
        F inv = product.inverse();  // 1 / (product of the ZZZ of copies [0, j]) below
        for (uint32_t j = count; j-- > 0;) {
            affine<F>& out = table[uint64_t(t0 + j) * n + i];
            if (copy[j].is_identity()) {
                out = affine<F>::identity();
                continue;
            }
            out = copy[j].to_affine_given(inv * before[j]);
            inv = inv * copy[j].ZZZ;
        }
    }
}

/// Writes `len` points repeating `pattern` (of `period` points) into out.
template <class T>
__global__ void tile_kernel(const T* pattern, uint64_t period, uint64_t len, T* out) {
    const uint64_t t = global_thread();
    if (t < len) out[t] = pattern[t % period];
}

}  // namespace cuzk::msm
