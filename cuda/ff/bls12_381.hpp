//! BLS12-381's fields. Only the moduli are written here; every other constant
//! is derived from them (limbs.hpp, mont.hpp).
#pragma once

#include "fp2.hpp"

namespace cuzk::ff {

/// Scalar field r = 0x73eda753...00000001 (255 bits).
struct fr_params {
    static constexpr int N = 8;
    CUZK_HDC static limbs<N> modulus() {
        return {{0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48,
                 0x73eda753}};
    }
    /// Fr's multiplicative generator, the coset shift of the Groth16 domain
    /// (ff's PrimeField::MULTIPLICATIVE_GENERATOR for blstrs).
    static constexpr uint32_t GENERATOR = 7;
};

/// Base field p = 0x1a0111ea...ffffaaab (381 bits).
struct fp_params {
    static constexpr int N = 12;
    CUZK_HDC static limbs<N> modulus() {
        return {{0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, 0xf38512bf,
                 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea}};
    }
};

using fr_t = mont<fr_params>;
using fp_t = mont<fp_params>;
using fp2_t = quad<fp_t>;

static_assert(sizeof(fr_t) == 32, "Fr must match blstrs Scalar (4 x u64)");
static_assert(sizeof(fp_t) == 48, "Fp must match blstrs Fp (6 x u64)");
static_assert(sizeof(fp2_t) == 96, "Fp2 must match blstrs Fp2 (2 x Fp)");

}  // namespace cuzk::ff
