//! Roots of unity of Fr, derived from the multiplicative generator and the
//! modulus (no literal root tables): with p - 1 = t * 2^S, t odd,
//! g^t has order 2^S, and squaring it S - k times gives a 2^k-th root.
#pragma once

#include "../ff/bls12_381.hpp"

namespace cuzk::ntt {

using ff::fr_t;

constexpr ff::limbs<fr_t::N> fr_p_minus_1() { return ff::limbs_sub(fr_t::modulus(), ff::limbs_small<fr_t::N>(1)); }

/// S: the largest power of two dividing p - 1 (32 for BLS12-381's Fr).
constexpr uint32_t TWO_ADICITY = ff::limbs_ctz(fr_p_minus_1());

/// A primitive 2^log_n-th root of unity, log_n <= TWO_ADICITY; the same one
/// as ff's ROOT_OF_UNITY squared down, which the CPU domain uses.
inline fr_t root_of_unity(uint32_t log_n) {
    constexpr ff::limbs<fr_t::N> t = ff::limbs_shr(fr_p_minus_1(), int(TWO_ADICITY));
    fr_t w = fr_t::from_u32(ff::fr_params::GENERATOR).pow(t);
    for (uint32_t i = log_n; i < TWO_ADICITY; i++) w = w.sqr();
    return w;
}

}  // namespace cuzk::ntt
