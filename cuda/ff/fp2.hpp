//! Quadratic extension F[u]/(u^2 + 1) over a Montgomery field; the layout
//! (c0 then c1) matches blst's fp2 and blstrs' Fp2.
#pragma once

#include "mont.hpp"

namespace cuzk::ff {

template <class F>
struct quad;

#if defined(__CUDA_ARCH__)
template <class F>
__device__ __noinline__ F mul_out_of_line(const F a, const F b) {
    return a * b;
}

template <class F>
__device__ __noinline__ quad<F> mul_out_of_line(const quad<F> a, const quad<F> b) {
    return quad<F>::template mul_lazy<ptx>(a, b);
}
#endif

/// A base-field product that is a call on the device. One G2 mixed addition
/// makes 28 base-field products; inlined, they push the G2 kernels past 255
/// registers into ~600 bytes of spills (and ptxas takes minutes), while as
/// calls the kernels spill a few bytes for ~30 register moves per product.
/// Fp2 products are calls of their own (quad::mul_lazy) for the same reason.
template <class F>
CUZK_HD F base_mul(const F& a, const F& b) {
#if defined(__CUDA_ARCH__)
    return mul_out_of_line(a, b);
#else
    return a * b;
#endif
}

template <class F>
struct quad {
    F c0, c1;

    CUZK_HD static quad zero() { return {F::zero(), F::zero()}; }
    CUZK_HD static quad one() { return {F::one(), F::zero()}; }
    CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    CUZK_HD friend bool operator==(const quad& a, const quad& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    CUZK_HD friend bool operator!=(const quad& a, const quad& b) { return !(a == b); }

    CUZK_HD friend quad operator+(const quad& a, const quad& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    CUZK_HD friend quad operator-(const quad& a, const quad& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    CUZK_HD quad operator-() const { return {-c0, -c1}; }
    CUZK_HD quad dbl() const { return {c0.dbl(), c1.dbl()}; }
    CUZK_HD quad& operator+=(const quad& b) { return *this = *this + b; }
    CUZK_HD quad& operator-=(const quad& b) { return *this = *this - b; }
    CUZK_HD quad& operator*=(const quad& b) { return *this = *this * b; }

    // Karatsuba: 3M + 5A over the base field; on the device mul_lazy.
    CUZK_HD friend quad operator*(const quad& a, const quad& b) {
#if defined(__CUDA_ARCH__)
        return mul_out_of_line(a, b);
#else
        F t0 = base_mul(a.c0, b.c0);
        F t1 = base_mul(a.c1, b.c1);
        F t2 = base_mul(a.c0 + a.c1, b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
#endif
    }

    /// Karatsuba with the reductions deferred, the device schedule (C = ptx;
    /// see carry.hpp): the three products stay 2N-limb integers, and
    /// c0 = a0 b0 - a1 b1 and c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 are
    /// reduced once each, two Montgomery reductions instead of three, about
    /// a sixth fewer multiplier instructions (the multiplier bounds the G2
    /// kernels as it does G1's). The sums a0 + a1, b0 + b1 stay unreduced
    /// (below 2p), so c1's integer is exactly a0 b1 + a1 b0 < 2p^2 < p R;
    /// c0's, in (-p^2, p^2), gets p R added when negative, which the
    /// reduction divides back to p, so both fit redc_wide_chain.
    template <class C>
    CUZK_HD static quad mul_lazy(const quad& a, const quad& b) {
        constexpr int W = 2 * F::N;
        const F sa = F::template add_unreduced_chain<C>(a.c0, a.c1);
        const F sb = F::template add_unreduced_chain<C>(b.c0, b.c1);
        uint32_t t0[W], t1[W], d[W];
        F::template mul_wide_chain<C>(a.c0, b.c0, t0);
        F::template mul_wide_chain<C>(a.c1, b.c1, t1);
        F::template wide_sub_plus_pr<C>(t0, t1, d);
        F::template wide_chain<C, false>(t0, t1, t0);
        const F c0 = F::template redc_wide_chain<C>(d);
        F::template mul_wide_chain<C>(sa, sb, t1);
        F::template wide_chain<C, true>(t1, t0, d);
        return {c0, F::template redc_wide_chain<C>(d)};
    }

    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2M.
    CUZK_HD quad sqr() const {
        F t = base_mul(c0, c1);
        return {base_mul(c0 + c1, c0 - c1), t.dbl()};
    }

    // 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2); zero maps to zero.
    CUZK_HD quad inverse() const {
        F n = (c0.sqr() + c1.sqr()).inverse();
        return {c0 * n, -(c1 * n)};
    }
};

}  // namespace cuzk::ff
