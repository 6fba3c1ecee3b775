//! The wide products of `mont` (mont.hpp), the schedule behind fp2.hpp's
//! Karatsuba product: the full 2N-limb product of two elements, its
//! Montgomery reduction, and sums and differences over 2N limbs, so that
//! an Fp2 product reduces twice instead of three times. Kept apart from
//! the single-width schedules of mont.hpp, which they build on
//! (first_row, sqr_reduce, shift_frame, frame_result, reduce_once_chain).

#pragma once

#include "mont.hpp"

namespace cuzk::ff {

/// The full 2N-limb product a b, the first half of a Montgomery product
/// whose reduction waits (fp2.hpp adds and subtracts products before
/// reducing). The products are summed in two halves, as in mul_chain, so
/// that each lands on an aligned register pair: e takes those a_j b_i
/// of even i + j at limbs i+j, i+j+1, and o those of odd i + j one limb
/// down; a b = e + o 2^32. Row i then adds one chain of N/2 products to
/// each half; a chain's carry goes into the limb above it, which holds
/// at most one earlier carry (or, for the last row's e, none can come
/// because a b < 2^(64N)). 2N^2 multiplier instructions, as in
/// mul_chain's multiply rows.
template <class P>
template <class C>
CUZK_HD void mont<P>::mul_wide_chain(const mont& a, const mont& b, uint32_t (&t)[2 * N]) {
    // o's last limb stays zero (o is one limb down); it is there so that
    // every row's indices are in bounds to a compiler that does not
    // unroll the rows (g++ warned).
    uint32_t e[2 * N], o[2 * N];
    CUZK_UNROLL
    for (int k = 0; k < 2 * N; k++) {
        e[k] = 0;
        o[k] = 0;
    }
    first_row<C>(a, b, e, o);
    CUZK_UNROLL
    for (int i = 1; i < N; i++) {
        if (i & 1) {
            wide_row<C>(a, b.v[i], 1, e, i + 1, i < N - 1);
            wide_row<C>(a, b.v[i], 0, o, i - 1, true);
        } else {
            wide_row<C>(a, b.v[i], 0, e, i, true);
            wide_row<C>(a, b.v[i], 1, o, i, true);
        }
    }
    t[0] = e[0];
    t[1] = C::add_cc(e[1], o[0]);
    CUZK_UNROLL
    for (int k = 2; k < 2 * N - 1; k++) t[k] = C::addc_cc(e[k], o[k - 1]);
    t[2 * N - 1] = C::addc(e[2 * N - 1], o[2 * N - 2]);
}

/// Adds a_j b_i for j = j0, j0 + 2, ... below N into acc at limbs
/// at + j - j0 (low word) and one above (high word): one chain over N
/// limbs, whose carry, with Carry, goes into limb at + N.
template <class P>
template <class C, int M>
CUZK_HD void mont<P>::wide_row(const mont& a, uint32_t bi, int j0, uint32_t (&acc)[M], int at, bool carry) {
    CUZK_UNROLL
    for (int j = j0; j < N; j += 2) {
        const int k = at + j - j0;
        acc[k] = j == j0 ? C::mad_lo_cc(a.v[j], bi, acc[k]) : C::madc_lo_cc(a.v[j], bi, acc[k]);
        acc[k + 1] =
            j + 2 < N || carry ? C::madc_hi_cc(a.v[j], bi, acc[k + 1]) : C::madc_hi(a.v[j], bi, acc[k + 1]);
    }
    if (carry) acc[at + N] = C::addc(acc[at + N], 0u);
}

/// Montgomery reduction of a 2N-limb t < p R: t / R mod p, below p with
/// Reduce and below 2p without. Only the low half L decides the
/// multiples m of p, so t / R = H + (L + m p) / R exactly for the high
/// half H < p. The reduction rows run on L alone, in sqr_chain's frame
/// with no multiply rows (below 2^32 (p + 2^(32N)), which fits it),
/// giving U <= p; H + U < 2p takes one conditional subtraction.
/// N(N+1) multiplier instructions, as in mul_chain's reduction.
template <class P>
template <class C, bool Reduce>
CUZK_HD mont<P> mont<P>::redc_wide_chain(const uint32_t (&t)[2 * N]) {
    uint32_t e[N], o[N], top = 0;
    CUZK_UNROLL
    for (int k = 0; k < N; k++) {
        e[k] = t[k];
        o[k] = 0;
    }
    sqr_reduce<C, false>(e, o, top);
    CUZK_UNROLL
    for (int i = 1; i < N; i++) {
        shift_frame<C>(e, o, top);
        sqr_reduce<C, true>(e, o, top);
    }
    const mont u = frame_result<C, false>(e, o);
    mont r;
    r.v[0] = C::add_cc(u.v[0], t[N]);
    CUZK_UNROLL
    for (int k = 1; k < N - 1; k++) r.v[k] = C::addc_cc(u.v[k], t[N + k]);
    r.v[N - 1] = C::addc(u.v[N - 1], t[2 * N - 1]);
    if constexpr (Reduce) {
        return reduce_once_chain<C>(r);
    } else {
        return r;
    }
}

/// x + y, or with Sub x - y, over 2N limbs (full products and their
/// sums and differences); with KeepFlag the top limb's carry or borrow
/// stays in the flag for the caller.
template <class P>
template <class C, bool Sub, bool KeepFlag>
CUZK_HD void mont<P>::wide_chain(const uint32_t (&x)[2 * N], const uint32_t (&y)[2 * N], uint32_t (&out)[2 * N]) {
    constexpr int top = 2 * N - 1;
    if constexpr (Sub) {
        out[0] = C::sub_cc(x[0], y[0]);
        CUZK_UNROLL
        for (int k = 1; k < top; k++) out[k] = C::subc_cc(x[k], y[k]);
        out[top] = KeepFlag ? C::subc_cc(x[top], y[top]) : C::subc(x[top], y[top]);
    } else {
        out[0] = C::add_cc(x[0], y[0]);
        CUZK_UNROLL
        for (int k = 1; k < top; k++) out[k] = C::addc_cc(x[k], y[k]);
        out[top] = KeepFlag ? C::addc_cc(x[top], y[top]) : C::addc(x[top], y[top]);
    }
}

/// x - y over 2N limbs, plus p R (p in the high half) when it borrowed;
/// the carry out of that addition is the wrap back above zero.
template <class P>
template <class C>
CUZK_HD void mont<P>::wide_sub_plus_pr(const uint32_t (&x)[2 * N], const uint32_t (&y)[2 * N], uint32_t (&out)[2 * N]) {
    constexpr limbs<N> p = modulus();
    wide_chain<C, true, true>(x, y, out);
    const uint32_t mask = C::subc(0u, 0u);
    out[N] = C::add_cc(out[N], p.v[0] & mask);
    CUZK_UNROLL
    for (int k = 1; k < N - 1; k++) out[N + k] = C::addc_cc(out[N + k], p.v[k] & mask);
    out[2 * N - 1] = C::addc(out[2 * N - 1], p.v[N - 1] & mask);
}

}  // namespace cuzk::ff
