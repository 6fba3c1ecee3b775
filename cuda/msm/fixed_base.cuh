//! Kernels of the fixed-base multiplication (fixed_base.hpp): one thread per
//! scalar for the additions, then one thread per strided run of AFFINE_RUN
//! points for the conversion to affine, both templated over the coordinate
//! field F so G1 (Fp) and G2 (Fp2) share them.
#pragma once

#include "fixed_base.hpp"
#include "plan.hpp"

namespace cuzk::msm::fixed_base {

/// Points per thread of the conversion to affine: one inversion (~570
/// products) spread over 32 points is ~18 products each, next to the ~160
/// of a point's additions, and a chunk of 2^22 still gives 2^17 threads.
constexpr uint64_t AFFINE_RUN = 32;

/// Threads of the conversion of n points, each taking every stride-th point.
inline uint64_t affine_stride(uint64_t n) { return (n + AFFINE_RUN - 1) / AFFINE_RUN; }

/// Blocks per multiprocessor the additions are compiled for: as for the
/// MSM's bucket accumulation (kernels.cuh's addition_blocks, whose file
/// defines kernels of its own and so is not included twice), four in G1,
/// where capping the registers at 128 measured faster, and no cap in G2.
template <class F>
constexpr int multiply_blocks() {
    return sizeof(F) == sizeof(ff::fp_t) ? 4 : 1;
}

__device__ inline uint64_t thread_index() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

/// out[i] = scalars[i] G in XYZZ form for i < n: the hot loop.
template <class F>
__global__ void __launch_bounds__(THREADS, multiply_blocks<F>())
    multiply_kernel(const affine<F>* table, uint32_t c, const ff::fr_t* scalars, uint32_t n, xyzz<F>* out) {
    const uint64_t i = thread_index();
    if (i < n) out[i] = multiply(table, c, scalars[i]);
}

/// Thread t converts points t, t + stride, ... below n to affine.
template <class F>
__global__ void to_affine_kernel(const xyzz<F>* points, F* before, uint32_t n, uint32_t stride, affine<F>* out) {
    const uint64_t t = thread_index();
    if (t < stride) to_affine_strided(points, before, n, t, stride, out);
}

}  // namespace cuzk::msm::fixed_base
