//! The last step of a Groth16 proof, on the host: the MSM sums combined with
//! the verifying key and the blinding factors r, s, then compressed.
#pragma once

#include <cstdint>

#include "../../cuda/util/span.hpp"
#include "srs.hpp"

namespace cuzk::g16 {

/// The multi-scalar sums of one circuit.
struct circuit_sums {
    g1 a = g1::identity(), b_g1 = g1::identity(), l = g1::identity(), h = g1::identity();
    g2 b_g2 = g2::identity();
};

/// A = α + ΣA + rδ, B = β + ΣB + sδ (G2, and in G1 for C),
/// C = ΣL + ΣH + s·A + r·B₁ − rs·δ. Expanding A and B₁ in C gives
/// C = ΣL + ΣH + s·ΣA + r·ΣB₁ + (sα + rβ + rsδ): every term without a sum
/// depends on the key and r, s alone, so it is computed before the sums
/// exist (on the prep thread, while the device works), which leaves two G1
/// multiplications after the last MSM instead of five and one in G2.
struct blinding {
    fr_t r, s;
    g1 a;     // α + rδ
    g1 c;     // sα + rβ + rsδ
    g2 b_g2;  // β + sδ in G2
};

/// The blinding terms of one proof.
blinding blind(const vk_points& vk, const fr_t& r, const fr_t& s);

/// s·ΣA and r·ΣB₁: the multiplications left once the sums exist, one per
/// `which` (0 or 1), so a batch can run them all in parallel.
g1 sum_product(const blinding& bl, const circuit_sums& sums, int which);

/// Writes A ‖ B ‖ C compressed (192 bytes), given s·ΣA and r·ΣB₁.
void epilogue(const blinding& bl, const circuit_sums& sums, const g1& s_sum_a, const g1& r_sum_b1, uint8_t out[192]);

}  // namespace cuzk::g16

namespace cuzk {

/// The verifying-key points from limbs: alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2.
vk_points read_vk(span<const uint64_t> vk);

}  // namespace cuzk
