//! Pippenger's multi-scalar multiplication on one device, stream-ordered:
//!
//!   for each group of windows that fits in memory:
//!     digits   one thread per scalar: Montgomery -> canonical, signed digits,
//!              (bucket key, point index | sign) pairs of the non-zero digits,
//!              compacted (their count comes back to the host)
//!     sort     CUB radix sort of those pairs by bucket key
//!     buckets  equal shares of the sorted non-zero digits per thread, XYZZ
//!              mixed additions, cut runs summed level by level (segments.hpp)
//!     windows  per window sum_b (b + 1) B_b in segments (suffix sums, then
//!              their sum), then a keyed sum
//!   -> one Jacobian sum S_w per window; the caller forms sum_w 2^(c w) S_w,
//!      a chain of ~256 doublings that the host does far faster than one thread.
//!
//! Every allocation happens before the first launch, so running out of memory
//! fails cleanly with nothing queued. Temporaries come from the device's
//! memory pool in the order of the call's stream (cuda::scratch), so calls
//! after the first allocate and free them without the driver.
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <vector>

#include "../util/cuda_util.cuh"
#include "kernels.cuh"
#include "plan.hpp"

namespace cuzk::msm {

/// Device memory free for one call, leaving headroom for the CUDA context,
/// CUB and other streams.
inline uint64_t memory_budget(uint64_t* free_out) {
    uint64_t free = 0, total = 0;
    cuda::memory_info(&free, &total);
    *free_out = free;
    const uint64_t reserve = std::max<uint64_t>(uint64_t(256) << 20, total / 64);
    return free > reserve ? free - reserve : 0;
}

/// Resident threads of a kernel over the whole device: the thread count at
/// which one wave fills every multiprocessor.
template <class Kernel>
uint64_t resident_threads(Kernel kernel) {
    int device = 0, sms = 0, blocks = 0;
    CUZK_CUDA(cudaGetDevice(&device));
    CUZK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUZK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, THREADS, 0));
    return uint64_t(std::max(blocks, 1)) * uint64_t(sms) * THREADS;
}

/// Two ping-pong sets of (key, point) slots for the keyed-sum levels.
template <class F>
struct slot_buffers {
    cuda::scratch<uint32_t> keys0, keys1;
    cuda::scratch<xyzz<F>> sums0, sums1;

    slot_buffers(uint64_t n, cudaStream_t s) : keys0(n, s), keys1(n, s), sums0(n, s), sums1(n, s) {}
};

/// targets[key] += the sum of the m points with that key (keys sorted;
/// NO_KEY slots ignored), level after level (for_each_level). The input may
/// be set 0 of `slots`; outputs alternate between the sets it does not hold.
template <class F>
void keyed_sum(const uint32_t* keys, const xyzz<F>* sums, uint64_t m, xyzz<F>* targets, slot_buffers<F>& slots,
               cudaStream_t s) {
    bool into_first = keys != slots.keys0.get();
    for_each_level(m, [&](uint64_t count, const launch_shape& shape) {
        uint32_t* out_keys = into_first ? slots.keys0.get() : slots.keys1.get();
        xyzz<F>* out_sums = into_first ? slots.sums0.get() : slots.sums1.get();
        reduce_kernel<F><<<shape.blocks, shape.block, 0, s>>>(
            reduce_args<F>{keys, sums, count, targets, out_keys, out_sums});
        CUZK_LAUNCHED();
        keys = out_keys;
        sums = out_sums;
        into_first = !into_first;
    });
}

/// The sizes of one MSM's temporaries for groups of `group` bucket sets
/// (windows, without precomputed copies).
struct msm_layout {
    uint32_t c, windows, buckets, group;
    uint64_t pairs;
    launch_shape level1;
    uint32_t segment_len, segments;
    uint64_t slots;
    size_t sort_temp;

    template <class F>
    uint64_t bytes() const {
        const uint64_t point = sizeof(xyzz<F>), keyed = 4 + point;
        return 16 * pairs + sort_temp + uint64_t(group) * buckets * point + 2 * slots * keyed +
               uint64_t(group) * segments * keyed + uint64_t(group) * point + uint64_t(windows) * sizeof(jacobian<F>) +
               8;
    }
};

/// `windows` is the number of bucket sets, each taking the digits of
/// `per_set` windows of the n scalars.
inline msm_layout layout_for(uint32_t n, uint32_t c, uint32_t windows, uint32_t per_set, uint32_t group,
                             uint64_t level1_cap, uint64_t segment_cap, cudaStream_t s) {
    msm_layout l{};
    l.c = c;
    l.windows = windows;
    l.buckets = 1u << (l.c - 1);
    l.group = group;
    l.pairs = uint64_t(n) * group * per_set;
    l.level1 = shape_for(std::min(l.pairs, level1_cap));
    // Segments short enough to give the window reduction a full wave.
    const uint64_t segs = std::max<uint64_t>(1, std::min<uint64_t>(l.buckets, segment_cap / group));
    l.segment_len = uint32_t((l.buckets + segs - 1) / segs);
    l.segments = segments_per_window(l.buckets, l.segment_len);
    l.slots = std::max(2 * l.level1.threads(), first_level_slots(uint64_t(group) * l.segments));
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    CUZK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, l.sort_temp, k, v, l.pairs, 0,
                                              int(bit_length(uint64_t(group) * l.buckets)), s));
    return l;
}

/// The number of the n scalars that are neither 0 nor 1 (wide_scalars_kernel),
/// waited for: one read of the scalars, ~1 ms at 2^27.
inline uint64_t count_wide(const fr_t* scalars, uint32_t n, cudaStream_t s) {
    cuda::scratch<unsigned long long> count(1, s);
    CUZK_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), s));
    const unsigned blocks = std::min(cuda::blocks_for(n, THREADS), 16384u);
    wide_scalars_kernel<<<blocks, THREADS, 0, s>>>(scalars, n, count.get());
    CUZK_LAUNCHED();
    unsigned long long wide = 0;
    CUZK_CUDA(cudaMemcpyAsync(&wide, count.get(), sizeof(wide), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    return wide;
}

/// The per-window sums of sum_i scalars[i] bases[i] (both device-resident,
/// n > 0 of each), as Jacobian points in window order; returns the window
/// width. With copies > 1, `bases` is a table of that many copies table_n
/// apart (table_kernel) and the sums are those of the window_stride bucket
/// sets, S_u of weight 2^(c u) as without copies.
template <class F>
uint32_t msm_windows(const affine<F>* bases, uint32_t table_n, uint32_t copies, const fr_t* scalars, uint32_t n,
                     cudaStream_t s, std::vector<jacobian<F>>& out) {
    const uint64_t level1_cap = resident_threads(accumulate_points_kernel<F>);
    const uint64_t segment_cap =
        std::min(resident_threads(suffix_kernel<F>), resident_threads(segment_sum_kernel<F>));
    // A table fixed the width when it was built; a plain MSM takes it for
    // its wide scalars (digit_points).
    const uint32_t c = copies > 1 ? window_bits_for(table_n, copies)
                                  : window_bits_for(digit_points(n, count_wide(scalars, n, s)));
    const uint32_t stride = window_stride(c, copies);
    const uint32_t windows = stride;
    const uint32_t per_set = (window_count(c) + stride - 1) / stride;

    // The largest group of bucket sets whose temporaries fit; a group's
    // pairs stay below 2^31 so that sort offsets and point indices fit 32 bits.
    uint64_t free = 0;
    const uint64_t budget = memory_budget(&free);
    const uint64_t per_group_set = uint64_t(n) * per_set;
    uint32_t group =
        uint32_t(std::min<uint64_t>(windows, std::max<uint64_t>(1, ((uint64_t(1) << 31) - 1) / per_group_set)));
    auto layout = [&](uint32_t g) { return layout_for(n, c, windows, per_set, g, level1_cap, segment_cap, s); };
    msm_layout l = layout(group);
    while (l.bytes<F>() > budget && group > 1) l = layout(--group);
    if (l.bytes<F>() > budget)
        throw_oom(l.bytes<F>(), free, "MSM of " + std::to_string(n) + " points needs " +
                                          std::to_string(l.bytes<F>()) + " bytes of temporaries for one window");

    cuda::scratch<uint32_t> keys0(l.pairs, s), keys1(l.pairs, s), vals0(l.pairs, s), vals1(l.pairs, s);
    cuda::scratch<uint8_t> sort_temp(l.sort_temp, s);
    cuda::scratch<xyzz<F>> buckets(uint64_t(group) * l.buckets, s);
    slot_buffers<F> slots(l.slots, s);
    cuda::scratch<uint32_t> seg_keys(uint64_t(group) * l.segments, s);
    cuda::scratch<xyzz<F>> seg_sums(uint64_t(group) * l.segments, s), window_sums(group, s);
    cuda::scratch<jacobian<F>> sums(windows, s);
    cuda::scratch<unsigned long long> nonzero(1, s);

    for (uint32_t w0 = 0; w0 < windows; w0 += group) {
        const uint32_t g = std::min(group, windows - w0);
        CUZK_CUDA(cudaMemsetAsync(buckets.get(), 0, uint64_t(g) * l.buckets * sizeof(xyzz<F>), s));
        CUZK_CUDA(cudaMemsetAsync(window_sums.get(), 0, uint64_t(g) * sizeof(xyzz<F>), s));
        CUZK_CUDA(cudaMemsetAsync(nonzero.get(), 0, sizeof(unsigned long long), s));
        digits_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(scalars, n, c, stride, table_n, w0, g,
                                                                       keys0.get(), vals0.get(), nonzero.get());
        CUZK_LAUNCHED();

        // The sort's length is a host argument: wait for the count of non-zero digits.
        unsigned long long m = 0;
        CUZK_CUDA(cudaMemcpyAsync(&m, nonzero.get(), sizeof(m), cudaMemcpyDeviceToHost, s));
        CUZK_CUDA(cudaStreamSynchronize(s));

        cub::DoubleBuffer<uint32_t> k(keys0.get(), keys1.get()), v(vals0.get(), vals1.get());
        if (m > 0) {
            size_t temp = l.sort_temp;
            CUZK_CUDA(cub::DeviceRadixSort::SortPairs(sort_temp.get(), temp, k, v, m, 0,
                                                      int(bit_length(uint64_t(g) * l.buckets)), s));
        }

        const launch_shape first = shape_for(std::min<uint64_t>(m, level1_cap));
        accumulate_points_kernel<F><<<first.blocks, first.block, 0, s>>>(
            k.Current(), v.Current(), nonzero.get(), bases, buckets.get(), slots.keys0.get(), slots.sums0.get());
        CUZK_LAUNCHED();
        keyed_sum<F>(slots.keys0.get(), slots.sums0.get(), 2 * first.threads(), buckets.get(), slots, s);

        const uint64_t seg_threads = uint64_t(g) * l.segments;
        const unsigned seg_blocks = cuda::blocks_for(seg_threads, THREADS);
        suffix_kernel<F><<<seg_blocks, THREADS, 0, s>>>(buckets.get(), l.buckets, l.segment_len, g);
        CUZK_LAUNCHED();
        segment_sum_kernel<F><<<seg_blocks, THREADS, 0, s>>>(buckets.get(), l.buckets, l.segment_len, g,
                                                              seg_keys.get(), seg_sums.get());
        CUZK_LAUNCHED();
        keyed_sum<F>(seg_keys.get(), seg_sums.get(), seg_threads, window_sums.get(), slots, s);

        to_jacobian_kernel<F><<<1, g, 0, s>>>(window_sums.get(), g, sums.get() + w0);
        CUZK_LAUNCHED();
    }

    out.resize(windows);
    CUZK_CUDA(cudaMemcpyAsync(out.data(), sums.get(), windows * sizeof(jacobian<F>), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    return c;
}

}  // namespace cuzk::msm
