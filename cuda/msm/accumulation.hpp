//! The arithmetic of the mixed-addition loops (bucket accumulation, batch
//! addition), apart from the kernels so that the arithmetic benchmark
//! (api/bench.cu) times the very addition they run.
#pragma once

#include "../ec/point.hpp"
#include "../ff/loose.hpp"

namespace cuzk::msm {

using ec::affine;
using ec::xyzz;

/// The field a mixed-addition loop accumulates in: G1's Fp kept below 2p
/// (ff/loose.hpp), whose products skip their final subtraction; G2's Fp2
/// as it is. loosened() takes a canonical element in, canonical() out.
__device__ inline ff::loose<ff::fp_t> loosened(const ff::fp_t& x) { return ff::loose<ff::fp_t>::of(x); }
__device__ inline ff::fp2_t loosened(const ff::fp2_t& x) { return x; }
__device__ inline ff::fp_t canonical(const ff::loose<ff::fp_t>& x) { return x.canonical(); }
__device__ inline ff::fp2_t canonical(const ff::fp2_t& x) { return x; }

template <class F>
using accumulation_field = decltype(loosened(F{}));

template <class F>
__device__ affine<accumulation_field<F>> loosened(const affine<F>& p) {
    return {loosened(p.x), loosened(p.y)};
}

template <class A>
__device__ auto canonical(const xyzz<A>& p) -> xyzz<decltype(canonical(p.X))> {
    return {canonical(p.X), canonical(p.Y), canonical(p.ZZ), canonical(p.ZZZ)};
}

}  // namespace cuzk::msm
