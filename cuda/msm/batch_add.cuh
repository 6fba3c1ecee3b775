// Bitmap-driven batch addition: sum of bases[i] over the set bits i of a
// bitmap, with no scalar multiplication. Filecoin witnesses are mostly 0/1,
// so the "one" part of each MSM is exactly this sum.
//
//   popcount + exclusive scan   rank of the first set bit of every word
//   batch_add_kernel            equal shares of set bits per thread, XYZZ
//                               mixed additions into one partial per thread
//   keyed_sum                   the partials summed level by level
#pragma once

#include <cub/device/device_scan.cuh>

#include "pippenger.cuh"

namespace cuzk::msm {

/// sum of bases[i] for the set bits of `words` (word_count words, bases
/// device-resident, the bitmap already on the device), as a Jacobian point.
template <class F>
jacobian<F> batch_add(const affine<F>* bases, const uint64_t* words, uint64_t word_count, cudaStream_t s) {
    const launch_shape shape = shape_for(std::min<uint64_t>(word_count * 64, resident_threads(batch_add_kernel<F>)));
    size_t scan_temp = 0;
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_temp, static_cast<uint32_t*>(nullptr),
                                            static_cast<uint32_t*>(nullptr), word_count, s));

    uint64_t free = 0;
    const uint64_t budget = memory_budget(&free);
    const uint64_t slot_count = first_level_slots(shape.threads());
    const uint64_t need = 8 * word_count + scan_temp + (shape.threads() + 2 * slot_count) * (4 + sizeof(xyzz<F>)) +
                          sizeof(xyzz<F>) + sizeof(jacobian<F>);
    if (need > budget) throw_oom(need, free, "batch addition temporaries");

    cuda::scratch<uint32_t> counts(word_count, s), before(word_count, s);
    cuda::scratch<uint8_t> temp(scan_temp, s);
    cuda::scratch<uint32_t> part_keys(shape.threads(), s);
    cuda::scratch<xyzz<F>> parts(shape.threads(), s), total(1, s);
    slot_buffers<F> slots(slot_count, s);
    cuda::scratch<jacobian<F>> sum(1, s);

    CUZK_CUDA(cudaMemsetAsync(total.get(), 0, sizeof(xyzz<F>), s));
    popcount_kernel<<<cuda::blocks_for(word_count, THREADS), THREADS, 0, s>>>(words, word_count, counts.get());
    CUZK_LAUNCHED();
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), scan_temp, counts.get(), before.get(), word_count, s));
    batch_add_kernel<F><<<shape.blocks, shape.block, 0, s>>>(bases, words, before.get(), word_count, part_keys.get(),
                                                             parts.get());
    CUZK_LAUNCHED();
    keyed_sum<F>(part_keys.get(), parts.get(), shape.threads(), total.get(), slots, s);
    to_jacobian_kernel<F><<<1, 1, 0, s>>>(total.get(), 1, sum.get());
    CUZK_LAUNCHED();

    jacobian<F> out;
    CUZK_CUDA(cudaMemcpyAsync(&out, sum.get(), sizeof(out), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    return out;
}

}  // namespace cuzk::msm
