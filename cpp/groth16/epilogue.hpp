// The last step of a Groth16 proof, on the host: the MSM sums combined with
// the verifying key and the blinding factors r, s, then compressed.
#pragma once

#include <cstdint>

#include "rust/cxx.h"
#include "srs.hpp"

namespace cuzk::g16 {

/// The multi-scalar sums of one circuit.
struct circuit_sums {
    g1 a = g1::identity(), b_g1 = g1::identity(), l = g1::identity(), h = g1::identity();
    g2 b_g2 = g2::identity();
};

/// A = α + ΣA + rδ, B = β + ΣB + sδ (G2, and in G1 for C),
/// C = ΣL + ΣH + s·A + r·B₁ − rs·δ; writes A ‖ B ‖ C compressed (192 bytes).
void epilogue(const vk_points& vk, const circuit_sums& sums, const fr_t& r, const fr_t& s, uint8_t out[192]);

}  // namespace cuzk::g16

namespace cuzk {

/// The verifying-key points from limbs: alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2.
vk_points read_vk(rust::Slice<const uint64_t> vk);

}  // namespace cuzk
