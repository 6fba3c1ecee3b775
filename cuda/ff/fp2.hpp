// Quadratic extension F[u]/(u^2 + 1) over a Montgomery field; the layout
// (c0 then c1) matches blst's fp2 and blstrs' Fp2.
#pragma once

#include "mont.hpp"

namespace cuzk::ff {

#if defined(__CUDACC__)
template <class F>
__device__ __noinline__ F mul_out_of_line(const F a, const F b) {
    return a * b;
}
#endif

/// A base-field product that is a call on the device. One G2 mixed addition
/// makes 28 of them; inlined, they push the G2 kernels past 255 registers
/// into ~600 bytes of spills (and ptxas takes minutes), while as calls the
/// kernels spill a few bytes for ~30 register moves per product.
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

    // Karatsuba: 3M + 5A over the base field.
    CUZK_HD friend quad operator*(const quad& a, const quad& b) {
        F t0 = base_mul(a.c0, b.c0);
        F t1 = base_mul(a.c1, b.c1);
        F t2 = base_mul(a.c0 + a.c1, b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
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
