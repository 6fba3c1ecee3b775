// The proof epilogue and its host test hook.
#include "epilogue.hpp"

#include <cstring>
#include <string>

#include "../error.hpp"
#include "bridge.hpp"

namespace cuzk::g16 {

blinding blind(const vk_points& vk, const fr_t& r, const fr_t& s) {
    const g1 delta1 = g1::from_affine(vk.delta_g1);
    blinding bl;
    bl.r = r;
    bl.s = s;
    bl.a = g1::from_affine(vk.alpha_g1).add(mul(delta1, r));
    bl.b_g2 = g2::from_affine(vk.beta_g2).add(mul(g2::from_affine(vk.delta_g2), s));
    bl.c = mul(g1::from_affine(vk.alpha_g1), s).add(mul(g1::from_affine(vk.beta_g1), r)).add(mul(delta1, r * s));
    return bl;
}

g1 sum_product(const blinding& bl, const circuit_sums& sums, int which) {
    return which == 0 ? mul(sums.a, bl.s) : mul(sums.b_g1, bl.r);
}

void epilogue(const blinding& bl, const circuit_sums& sums, const g1& s_sum_a, const g1& r_sum_b1, uint8_t out[192]) {
    const g1 a = sums.a.add(bl.a);
    const g2 b2 = sums.b_g2.add(bl.b_g2);
    const g1 c = sums.l.add(sums.h).add(s_sum_a).add(r_sum_b1).add(bl.c);
    compress(a.to_affine(), out);
    compress(b2.to_affine(), out + 48);
    compress(c.to_affine(), out + 144);
}

}  // namespace cuzk::g16

namespace cuzk {

vk_points read_vk(rust::Slice<const uint64_t> vk) {
    constexpr size_t g1_limbs = sizeof(ec::affine<ff::fp_t>) / 8, g2_limbs = sizeof(ec::affine<ff::fp2_t>) / 8;
    if (vk.size() != 3 * g1_limbs + 2 * g2_limbs)
        throw_invalid("vk: expected " + std::to_string(3 * g1_limbs + 2 * g2_limbs) + " limbs, got " +
                      std::to_string(vk.size()));
    const uint64_t* p = vk.data();
    auto take = [&](auto& point) {
        std::memcpy(&point, p, sizeof(point));
        p += sizeof(point) / 8;
    };
    vk_points out;
    take(out.alpha_g1);
    take(out.beta_g1);
    take(out.beta_g2);
    take(out.delta_g1);
    take(out.delta_g2);
    return out;
}

void groth16_epilogue_hook(rust::Slice<const uint64_t> vk, rust::Slice<const uint64_t> sums,
                           rust::Slice<const uint64_t> rs, rust::Slice<uint8_t> proof) {
    using namespace g16;
    constexpr size_t j1 = jacobian_limbs<ff::fp_t>, j2 = jacobian_limbs<ff::fp2_t>;
    if (sums.size() != 4 * j1 + j2) throw_invalid("epilogue: sums must be ΣA, ΣB1, ΣB2, ΣL, ΣH as Jacobian limbs");
    if (rs.size() != 8) throw_invalid("epilogue: rs must be r then s (4 limbs each)");
    if (proof.size() != 192) throw_invalid("epilogue: a proof is 192 bytes");
    const uint64_t* p = sums.data();
    circuit_sums s;
    s.a = from_jacobian_limbs<ff::fp_t>(p);
    s.b_g1 = from_jacobian_limbs<ff::fp_t>(p + j1);
    s.b_g2 = from_jacobian_limbs<ff::fp2_t>(p + 2 * j1);
    s.l = from_jacobian_limbs<ff::fp_t>(p + 2 * j1 + j2);
    s.h = from_jacobian_limbs<ff::fp_t>(p + 3 * j1 + j2);
    fr_t r, sc;
    std::memcpy(&r, rs.data(), 32);
    std::memcpy(&sc, rs.data() + 4, 32);
    const blinding bl = blind(read_vk(vk), r, sc);
    epilogue(bl, s, sum_product(bl, s, 0), sum_product(bl, s, 1), proof.data());
}

}  // namespace cuzk
