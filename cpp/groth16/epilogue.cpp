//! The proof epilogue (epilogue.hpp) and the verifying key read from limbs.
#include "epilogue.hpp"

#include <cstring>
#include <string>

#include "../../cuda/util/error.hpp"
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

vk_points read_vk(span<const uint64_t> vk) {
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

}  // namespace cuzk
