//! Transforms of one size on one device, with their tables built once: what
//! the Fr NTT entry points and the Groth16 quotient both run (cuda/api/ntt.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "../ff/bls12_381.hpp"

namespace cuzk::ntt {

/// Device tables for transforms of 2^log_n elements in both directions: the
/// twiddles w^k (k <= n/2; the inverse reads them backwards, ntt/kernels.cuh)
/// and the split powers of g and g^-1 for cosets: n/2 + 1 scalars and a few
/// thousand. Building them costs more than a transform, so callers keep one.
class domain {
public:
    /// Builds the tables on stream s (the caller orders later work after it).
    domain(uint32_t log_n, cudaStream_t s);
    ~domain();
    domain(const domain&) = delete;
    domain& operator=(const domain&) = delete;

    /// out = the transform of in, natural order both, in and out distinct,
    /// with the CPU domain's conventions:
    ///   forward       A_k = sum_i a_i w^(ik)
    ///   inverse       a_i = n^-1 sum_k A_k w^(-ik)
    ///   coset forward the forward transform of (a_i g^i)
    ///   coset inverse the inverse, then a_i *= g^-i
    /// where w is the 2^log_n-th root of unity of roots.hpp and g Fr's generator.
    void run(const ff::fr_t* in, ff::fr_t* out, bool inverse, bool coset, cudaStream_t s) const;

    /// As run, in place: a bit-reversal pass over `a` first (the coset
    /// shift applied there), then the same passes. One pass more than
    /// run (~3 ms at 2^27 on the H200), for callers without the memory for
    /// a second array.
    void run_in_place(ff::fr_t* a, bool inverse, bool coset, cudaStream_t s) const;

    uint32_t log_n() const { return log_n_; }

private:
    /// The passes of a transform into `out`: the first reads gather_from in
    /// bit-reversed order (times g^i when shift_in), or `out` as it is when
    /// null.
    void passes(const ff::fr_t* gather_from, ff::fr_t* out, bool shift_in, bool inverse, bool coset,
                cudaStream_t s) const;

    struct tables;
    uint32_t log_n_;
    std::unique_ptr<tables> t_;
};

}  // namespace cuzk::ntt
