//! Transforms of one size on one device, with their tables built once: what
//! the Fr NTT entry points and the Groth16 quotient both run (cuda/api/ntt.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "../ff/bls12_381.hpp"

namespace cuzk::ntt {

/// Device tables for transforms of 2^log_n elements in both directions: the
/// twiddles w^k and w^-k (k < n/2) and the split powers of g and g^-1 for
/// cosets. Building them costs more than a transform, so callers keep one.
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

    uint32_t log_n() const { return log_n_; }

private:
    struct tables;
    uint32_t log_n_;
    std::unique_ptr<tables> t_;
};

}  // namespace cuzk::ntt
