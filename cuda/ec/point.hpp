//! Short Weierstrass points y^2 = x^3 + b with a = 0, as templates over the
//! coordinate field so G1 (over Fp) and G2 (over Fp2) share one code path.
//! The curve constant b appears in no formula below (a = 0 formulas never
//! need it), so one template serves both groups.
//!
//! Costs are in field multiplications (M) and squarings (S) of F.
#pragma once

#include "../ff/bls12_381.hpp"

namespace cuzk::ec {

/// Affine point; (0, 0) is the identity, as in blst (it is not on the curve).
template <class F>
struct affine {
    F x, y;

    CUZK_HD static affine identity() { return {F::zero(), F::zero()}; }
    CUZK_HD bool is_identity() const { return x.is_zero() && y.is_zero(); }
};

/// Jacobian point (x = X/Z^2, y = Y/Z^3), blst's projective form; Z = 0 is the identity.
template <class F>
struct jacobian {
    F X, Y, Z;
};

/// Extended Jacobian "XYZZ" point: x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2.
/// Mixed addition needs no squaring of Z, which makes it the bucket
/// accumulator of choice for MSM. ZZ = 0 is the identity.
template <class F>
struct xyzz {
    F X, Y, ZZ, ZZZ;

    CUZK_HD static xyzz identity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
    CUZK_HD bool is_identity() const { return ZZ.is_zero(); }

    CUZK_HD static xyzz from_affine(const affine<F>& p) {
        if (p.is_identity()) return identity();
        return {p.x, p.y, F::one(), F::one()};
    }

    // ZZ = Z^2, ZZZ = Z^3: 1M + 1S.
    CUZK_HD static xyzz from_jacobian(const jacobian<F>& p) {
        F zz = p.Z.sqr();
        return {p.X, p.Y, zz, zz * p.Z};
    }

    // One inversion serves both coordinates: Z = ZZZ/ZZ, so 1/Z = ZZ/ZZZ
    // and 1/ZZ = (1/Z)^2: 1I + 3M + 1S.
    CUZK_HD affine<F> to_affine() const {
        if (is_identity()) return affine<F>::identity();
        return to_affine_given(ZZZ.inverse());
    }

    // The same from zzz_inv = 1/ZZZ computed elsewhere (a batch inversion
    // shares one inversion among many points): 3M + 1S. Not the identity.
    CUZK_HD affine<F> to_affine_given(const F& zzz_inv) const {
        F z_inv = zzz_inv * ZZ;
        F zz_inv = z_inv.sqr();
        return {X * zz_inv, Y * zzz_inv};
    }

    // dbl-2008-s-1: 6M + 3S.
    CUZK_HD xyzz dbl() const {
        if (is_identity()) return *this;
        F U = Y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = X * V;
        F Xsq = X.sqr();
        F M = Xsq.dbl() + Xsq;
        F X3 = M.sqr() - S.dbl();
        F Y3 = M * (S - X3) - W * Y;
        return {X3, Y3, V * ZZ, W * ZZZ};
    }

    // Doubling of an affine point (ZZ = ZZZ = 1), mdbl-2008-s-1: 2M + 3S.
    CUZK_HD static xyzz dbl_affine(const affine<F>& p) {
        F U = p.y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = p.x * V;
        F Xsq = p.x.sqr();
        F M = Xsq.dbl() + Xsq;
        F X3 = M.sqr() - S.dbl();
        F Y3 = M * (S - X3) - W * p.y;
        return {X3, Y3, V, W};
    }

    // Mixed addition this + q (q affine), madd-2008-s: 8M + 2S.
    // P = R = 0 means q equals this: double instead; P = 0 alone means
    // q = -this: the sum is the identity.
    CUZK_HD xyzz add_affine(const affine<F>& q) const {
        if (q.is_identity()) return *this;
        if (is_identity()) return from_affine(q);
        F P = q.x * ZZ - X;
        F R = q.y * ZZZ - Y;
        if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : identity();
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = X * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        F Y3 = R * (Q - X3) - Y * PPP;
        return {X3, Y3, ZZ * PP, ZZZ * PPP};
    }

    // Full addition, add-2008-s: 12M + 2S.
    CUZK_HD xyzz add(const xyzz& q) const {
        if (q.is_identity()) return *this;
        if (is_identity()) return q;
        F U1 = X * q.ZZ;
        F U2 = q.X * ZZ;
        F S1 = Y * q.ZZZ;
        F S2 = q.Y * ZZZ;
        F P = U2 - U1;
        F R = S2 - S1;
        if (P.is_zero()) return R.is_zero() ? dbl() : identity();
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = U1 * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        F Y3 = R * (Q - X3) - S1 * PPP;
        return {X3, Y3, ZZ * q.ZZ * PP, ZZZ * q.ZZZ * PPP};
    }

    CUZK_HD xyzz neg() const { return {X, -Y, ZZ, ZZZ}; }
};

using g1_affine = affine<ff::fp_t>;
using g2_affine = affine<ff::fp2_t>;
using g1_jacobian = jacobian<ff::fp_t>;
using g2_jacobian = jacobian<ff::fp2_t>;
using g1_xyzz = xyzz<ff::fp_t>;
using g2_xyzz = xyzz<ff::fp2_t>;

static_assert(sizeof(g1_affine) == 96, "G1 affine must match blstrs G1Affine");
static_assert(sizeof(g2_affine) == 192, "G2 affine must match blstrs G2Affine");
static_assert(sizeof(g1_jacobian) == 144, "G1 Jacobian must match blstrs G1Projective");
static_assert(sizeof(g2_jacobian) == 288, "G2 Jacobian must match blstrs G2Projective");

}  // namespace cuzk::ec
