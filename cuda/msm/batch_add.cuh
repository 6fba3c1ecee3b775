//! Bitmap-driven batch addition: sum of bases[i] over the set bits i of a
//! bitmap, with no scalar multiplication. Filecoin witnesses are mostly 0/1,
//! so the "one" part of each MSM is exactly this sum. A batch's circuits share
//! the bases, so their bitmaps are summed in one pass:
//!
//!   popcount + exclusive scan   rank of the first set bit of every word
//!   batch_add_kernel            equal shares of all set bits per thread, XYZZ
//!                               mixed additions, keyed by bitmap
//!   keyed_sum                   the cut sums added level by level
#pragma once

#include <cub/device/device_scan.cuh>

#include <vector>

#include "pippenger.cuh"

namespace cuzk::msm {

/// For each of `bitmaps` bitmaps of `per` words (laid end to end in
/// `words`, already on the device; per * bitmaps >= 1 and their set bits
/// fewer than 2^32), the sum of bases[i] over its set bits i, as Jacobian
/// points (bases device-resident).
template <class F>
std::vector<jacobian<F>> batch_add(const affine<F>* bases, const uint64_t* words, uint64_t per, uint32_t bitmaps,
                                   cudaStream_t s) {
    const uint64_t word_count = per * bitmaps;
    const launch_shape shape = shape_for(std::min<uint64_t>(word_count * 64, resident_threads(batch_add_kernel<F>)));
    size_t scan_temp = 0;
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_temp, static_cast<uint32_t*>(nullptr),
                                            static_cast<uint32_t*>(nullptr), word_count, s));

    uint64_t free = 0;
    const uint64_t budget = memory_budget(&free);
    // Two slot sets, each holding the kernel's 2 slots per thread or a level's output.
    const uint64_t slot_count = std::max<uint64_t>(2 * shape.threads(), first_level_slots(2 * shape.threads()));
    const uint64_t need = 8 * word_count + scan_temp + 2 * slot_count * (4 + sizeof(xyzz<F>)) +
                          bitmaps * (sizeof(xyzz<F>) + sizeof(jacobian<F>));
    if (need > budget) throw_oom(need, free, "batch addition temporaries");

    cuda::scratch<uint32_t> counts(word_count, s), before(word_count, s);
    cuda::scratch<uint8_t> temp(scan_temp, s);
    slot_buffers<F> slots(slot_count, s);
    cuda::scratch<xyzz<F>> targets(bitmaps, s);
    cuda::scratch<jacobian<F>> sums(bitmaps, s);

    CUZK_CUDA(cudaMemsetAsync(targets.get(), 0, bitmaps * sizeof(xyzz<F>), s));
    popcount_kernel<<<cuda::blocks_for(word_count, THREADS), THREADS, 0, s>>>(words, word_count, counts.get());
    CUZK_LAUNCHED();
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), scan_temp, counts.get(), before.get(), word_count, s));
    batch_add_kernel<F><<<shape.blocks, shape.block, 0, s>>>(bases, words, before.get(), per, bitmaps, targets.get(),
                                                             slots.keys0.get(), slots.sums0.get());
    CUZK_LAUNCHED();
    keyed_sum<F>(slots.keys0.get(), slots.sums0.get(), 2 * shape.threads(), targets.get(), slots, s);
    to_jacobian_kernel<F><<<cuda::blocks_for(bitmaps, THREADS), THREADS, 0, s>>>(targets.get(), bitmaps, sums.get());
    CUZK_LAUNCHED();

    std::vector<jacobian<F>> out(bitmaps);
    CUZK_CUDA(cudaMemcpyAsync(out.data(), sums.get(), bitmaps * sizeof(jacobian<F>), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    return out;
}

}  // namespace cuzk::msm
