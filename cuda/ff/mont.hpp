//! Montgomery arithmetic over a prime p < 2^(32N-1), generic in the modulus.
//!
//! Representation: N little-endian 32-bit limbs holding a*R mod p with
//! R = 2^(32N), i.e. byte for byte what blst/blstrs store in their u64 limbs,
//! so buffers move between Rust and C++/CUDA without conversion.
//! Every constant is derived from P::modulus() at compile time (limbs.hpp).
#pragma once

#include "carry.hpp"
#include "limbs.hpp"

namespace cuzk::ff {

template <class P>
struct alignas(16) mont {
    static constexpr int N = P::N;
    uint32_t v[N];

    CUZK_HDC static limbs<N> modulus() { return P::modulus(); }
    /// -p^-1 mod 2^32, the per-limb reduction factor.
    CUZK_HDC static uint32_t m0() { return neg_inv32(P::modulus().v[0]); }
    /// R mod p: the Montgomery form of 1.
    CUZK_HDC static limbs<N> r() { return limbs_pow2_mod<N>(32 * N, P::modulus()); }
    /// R^2 mod p: multiplying by it converts into Montgomery form.
    CUZK_HDC static limbs<N> r2() { return limbs_pow2_mod<N>(64 * N, P::modulus()); }

    CUZK_HD static mont from_raw(const limbs<N>& l) {
        mont r;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) r.v[i] = l.v[i];
        return r;
    }
    CUZK_HD static mont zero() { return from_raw(limbs<N>{}); }
    CUZK_HD static mont one() {
        constexpr limbs<N> R = r();
        return from_raw(R);
    }
    /// Montgomery form of a canonical integer x < p.
    CUZK_HD static mont from_canonical(const limbs<N>& x) {
        constexpr limbs<N> R2 = r2();
        return from_raw(x) * from_raw(R2);
    }
    CUZK_HD static mont from_u32(uint32_t x) { return from_canonical(limbs_small<N>(x)); }
    CUZK_HD limbs<N> to_canonical() const {
        mont c = *this * from_raw(limbs_small<N>(1));
        limbs<N> out;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) out.v[i] = c.v[i];
        return out;
    }

    CUZK_HD bool is_zero() const {
        uint32_t acc = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    CUZK_HD friend bool operator==(const mont& a, const mont& b) {
        uint32_t acc = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) acc |= a.v[i] ^ b.v[i];
        return acc == 0;
    }
    CUZK_HD friend bool operator!=(const mont& a, const mont& b) { return !(a == b); }

    /// r - p if r >= p (r < 2p on entry).
    CUZK_HD static mont reduce_once(const mont& r) {
        constexpr limbs<N> p = modulus();
        mont d;
        uint64_t borrow = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            uint64_t t = uint64_t(r.v[i]) - p.v[i] - borrow;
            d.v[i] = uint32_t(t);
            borrow = (t >> 32) & 1;
        }
        return borrow ? r : d;
    }

    // a + b < 2p < 2^(32N) because p < 2^(32N-1): no carry out of the top limb.
    CUZK_HD friend mont operator+(const mont& a, const mont& b) {
#if defined(__CUDA_ARCH__)
        return add_chain<ptx>(a, b);
#else
        return add_portable(a, b);
#endif
    }

    CUZK_HD friend mont operator-(const mont& a, const mont& b) {
#if defined(__CUDA_ARCH__)
        return sub_chain<ptx>(a, b);
#else
        return sub_portable(a, b);
#endif
    }

    /// The host path and the reference for add_chain.
    CUZK_HD static mont add_portable(const mont& a, const mont& b) {
        mont s;
        uint64_t carry = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            uint64_t t = uint64_t(a.v[i]) + b.v[i] + carry;
            s.v[i] = uint32_t(t);
            carry = t >> 32;
        }
        return reduce_once(s);
    }

    /// The host path and the reference for sub_chain.
    CUZK_HD static mont sub_portable(const mont& a, const mont& b) {
        constexpr limbs<N> p = modulus();
        mont d;
        uint64_t borrow = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            uint64_t t = uint64_t(a.v[i]) - b.v[i] - borrow;
            d.v[i] = uint32_t(t);
            borrow = (t >> 32) & 1;
        }
        // On underflow add p back; the mask keeps this branch-free.
        uint32_t mask = 0u - uint32_t(borrow);
        uint64_t carry = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            uint64_t t = uint64_t(d.v[i]) + (p.v[i] & mask) + carry;
            d.v[i] = uint32_t(t);
            carry = t >> 32;
        }
        return d;
    }

    CUZK_HD mont operator-() const { return zero() - *this; }
    CUZK_HD mont dbl() const { return *this + *this; }

    CUZK_HD friend mont operator*(const mont& a, const mont& b) {
#if defined(__CUDA_ARCH__)
        return mul_chain<ptx>(a, b);
#else
        return mul_host(a, b);
#endif
    }
    CUZK_HD mont& operator*=(const mont& b) { return *this = *this * b; }
    CUZK_HD mont& operator+=(const mont& b) { return *this = *this + b; }
    CUZK_HD mont& operator-=(const mont& b) { return *this = *this - b; }
    CUZK_HD mont sqr() const {
#if defined(__CUDA_ARCH__)
        return sqr_chain<ptx>(*this);
#else
        return mul_host(*this, *this);
#endif
    }

#if !defined(__CUDA_ARCH__)
    /// The host's product: coarsely integrated operand scanning (CIOS), one
    /// multiply row, then one reduction row, per word of b, over 64-bit
    /// words that pair the 32-bit limbs (N is even; x86 and the device are
    /// both little-endian). The host function combines each MSM's windows
    /// (~255 doublings) and forms the proof's points on the CPU, on the path
    /// of every proof: over 32-bit limbs an Fp product took 102 ns there,
    /// over 64-bit words 54 ns (one core of this project's build machine).
    static mont mul_host(const mont& a, const mont& b) {
        static_assert(N % 2 == 0, "64-bit words pair the 32-bit limbs");
        using u128 = unsigned __int128;
        constexpr int M = N / 2;
        constexpr limbs<N> p32 = modulus();
        uint64_t p[M], x[M], y[M], t[M + 2] = {};
        for (int j = 0; j < M; j++) {
            p[j] = uint64_t(p32.v[2 * j]) | (uint64_t(p32.v[2 * j + 1]) << 32);
            x[j] = uint64_t(a.v[2 * j]) | (uint64_t(a.v[2 * j + 1]) << 32);
            y[j] = uint64_t(b.v[2 * j]) | (uint64_t(b.v[2 * j + 1]) << 32);
        }
        constexpr uint64_t inv = neg_inv64(uint64_t(p32.v[0]) | (uint64_t(p32.v[1]) << 32));
        for (int i = 0; i < M; i++) {
            uint64_t c = 0;
            for (int j = 0; j < M; j++) {
                const u128 s = u128(x[j]) * y[i] + t[j] + c;
                t[j] = uint64_t(s);
                c = uint64_t(s >> 64);
            }
            u128 s = u128(t[M]) + c;
            t[M] = uint64_t(s);
            t[M + 1] = uint64_t(s >> 64);
            const uint64_t m = t[0] * inv;
            c = uint64_t((u128(m) * p[0] + t[0]) >> 64);
            for (int j = 1; j < M; j++) {
                s = u128(m) * p[j] + t[j] + c;
                t[j - 1] = uint64_t(s);
                c = uint64_t(s >> 64);
            }
            s = u128(t[M]) + c;
            t[M - 1] = uint64_t(s);
            t[M] = t[M + 1] + uint64_t(s >> 64);
        }
        mont r;
        for (int j = 0; j < M; j++) {
            r.v[2 * j] = uint32_t(t[j]);
            r.v[2 * j + 1] = uint32_t(t[j] >> 32);
        }
        return reduce_once(r);
    }
#endif

    /// Even/odd-split CIOS, the device schedule (C = ptx; see carry.hpp).
    /// The running sum is kept in two N-limb halves, e at weight 2^0 and o
    /// at weight 2^32: the products a_j b_i of even j land, low and high
    /// word, in e[j], e[j+1] and those of odd j in o[j-1], o[j], so each
    /// half takes its N products as one unbroken mad.lo/madc.hi carry chain,
    /// with no separate chain for the high words. After each reduction e[0]
    /// is zero; the division by 2^32 swaps the roles: the next e is o plus
    /// e[1], whose carry enters the chain that builds the next o from
    /// e[2..] shifted down. Sums stay below 2p 2^32 <= 2^(32(N+1)) (a, b < p,
    /// p < 2^(32N-1)), so the top limb of o never carries out and the carry
    /// out of an e chain always fits in o[N-1]. N must be even. Reduce =
    /// false skips the final conditional subtraction: the result is then
    /// only below 2p, also for a, b < 2p when 4p <= 2^(32N) (the frame then
    /// stays below 2^32 3p; loose.hpp).
    template <class C, bool Reduce = true>
    CUZK_HD static mont mul_chain(const mont& a, const mont& b) {
        static_assert(N % 2 == 0, "the even/odd split needs an even number of limbs");
        uint32_t e[N], o[N];
        first_row<C>(a, b, e, o);
        reduce_row<C>(e, o);
        CUZK_UNROLL
        for (int i = 1; i < N; i++) {
            const uint32_t bi = b.v[i];
            uint32_t e2[N], o2[N];
            e2[0] = C::add_cc(o[0], e[1]);
            CUZK_UNROLL
            for (int j = 1; j < N - 1; j += 2) {
                o2[j - 1] = C::madc_lo_cc(a.v[j], bi, e[j + 1]);
                o2[j] = C::madc_hi_cc(a.v[j], bi, e[j + 2]);
            }
            o2[N - 2] = C::madc_lo_cc(a.v[N - 1], bi, 0u);
            o2[N - 1] = C::madc_hi(a.v[N - 1], bi, 0u);
            e2[0] = C::mad_lo_cc(a.v[0], bi, e2[0]);
            e2[1] = C::madc_hi_cc(a.v[0], bi, o[1]);
            CUZK_UNROLL
            for (int j = 2; j < N; j += 2) {
                e2[j] = C::madc_lo_cc(a.v[j], bi, o[j]);
                e2[j + 1] = C::madc_hi_cc(a.v[j], bi, o[j + 1]);
            }
            o2[N - 1] = C::addc(o2[N - 1], 0u);
            reduce_row<C>(e2, o2);
            CUZK_UNROLL
            for (int k = 0; k < N; k++) {
                e[k] = e2[k];
                o[k] = o2[k];
            }
        }
        return frame_result<C, Reduce>(e, o);
    }

    /// Row 0 of mul_chain's and mul_wide_chain's products, a b_0, in their
    /// even and odd halves: limbs 0..N-1 of each are set, the rest untouched.
    template <class C, int M>
    CUZK_HD static void first_row(const mont& a, const mont& b, uint32_t (&e)[M], uint32_t (&o)[M]) {
        static_assert(M >= N, "a row spans N limbs");
        CUZK_UNROLL
        for (int j = 0; j < N; j += 2) {
            e[j] = C::mul_lo(a.v[j], b.v[0]);
            e[j + 1] = C::mul_hi(a.v[j], b.v[0]);
            o[j] = C::mul_lo(a.v[j + 1], b.v[0]);
            o[j + 1] = C::mul_hi(a.v[j + 1], b.v[0]);
        }
    }

    /// The last division by 2^32 of a mul_chain or sqr_chain frame (e[0] is
    /// zero), then, with Reduce, the one conditional subtraction.
    template <class C, bool Reduce>
    CUZK_HD static mont frame_result(const uint32_t (&e)[N], const uint32_t (&o)[N]) {
        mont r;
        r.v[0] = C::add_cc(o[0], e[1]);
        CUZK_UNROLL
        for (int k = 1; k < N - 1; k++) r.v[k] = C::addc_cc(o[k], e[k + 1]);
        r.v[N - 1] = C::addc(o[N - 1], 0u);
        if constexpr (Reduce) {
            return reduce_once_chain<C>(r);
        } else {
            return r;
        }
    }

    /// The products m p_j of even j added into e, low and high words, as one
    /// carry chain whose carry out stays in the flag for the caller.
    template <class C, int M>
    CUZK_HD static void reduce_even(uint32_t (&e)[M], uint32_t m) {
        static_assert(M >= N, "the chain spans N limbs");
        constexpr limbs<N> p = modulus();
        e[0] = C::mad_lo_cc(m, p.v[0], e[0]);
        e[1] = C::madc_hi_cc(m, p.v[0], e[1]);
        CUZK_UNROLL
        for (int j = 2; j < N; j += 2) {
            e[j] = C::madc_lo_cc(m, p.v[j], e[j]);
            e[j + 1] = C::madc_hi_cc(m, p.v[j], e[j + 1]);
        }
    }

    /// Adds m p with m = e[0] (-p^-1) mod 2^32, which zeroes e[0]. Where
    /// p_1 = 2^32 - 1 (Fr), m p_1 = m 2^32 - m is one subtraction, taken
    /// while no carry is live: two multiplier instructions fewer per row,
    /// and the multiplier bounds the NTT (PERF round 31).
    template <class C>
    CUZK_HD static void reduce_row(uint32_t (&e)[N], uint32_t (&o)[N]) {
        constexpr limbs<N> p = modulus();
        constexpr uint32_t inv = m0();
        const uint32_t m = e[0] * inv;
        reduce_even<C>(e, m);
        o[N - 1] = C::addc(o[N - 1], 0u);
        if constexpr (p.v[1] == 0xffffffffu) {
            const uint32_t lo = C::sub_cc(0u, m);
            const uint32_t hi = C::subc(m, 0u);
            o[0] = C::add_cc(o[0], lo);
            o[1] = C::addc_cc(o[1], hi);
        } else {
            o[0] = C::mad_lo_cc(m, p.v[1], o[0]);
            o[1] = C::madc_hi_cc(m, p.v[1], o[1]);
        }
        CUZK_UNROLL
        for (int j = 3; j < N - 1; j += 2) {
            o[j - 1] = C::madc_lo_cc(m, p.v[j], o[j - 1]);
            o[j] = C::madc_hi_cc(m, p.v[j], o[j]);
        }
        o[N - 2] = C::madc_lo_cc(m, p.v[N - 1], o[N - 2]);
        o[N - 1] = C::madc_hi(m, p.v[N - 1], o[N - 1]);
    }

    /// Montgomery squaring, the device schedule (C = ptx; see carry.hpp):
    /// the CIOS frame of mul_chain with the multiply rows cut to a triangle.
    /// a^2 = sum_i a_i 2^(32i) (a_i 2^(32i) + 2 sum_(j>i) a_j 2^(32j)), so
    /// row i multiplies a_i by W_j = a_i (j = i), a_(i+1) << 1 (j = i+1) and
    /// limb j of 2a (j > i+1), for j >= i only: each cross product a_i a_j
    /// is formed once, already doubled, and the diagonal a_i^2 joins the
    /// same chain. 2a needs no limb N because a < p < 2^(32N-1). That is
    /// N(N+1)/2 products (78 for Fp, instead of 144) and the N^2 of the
    /// reduction.
    ///
    /// Row i's products land at frame limbs j..j+1 for j >= i, so its two
    /// chains (even j into e, odd j into o, as in mul_chain) start in the
    /// middle of the frame and end at its top, where mul_chain's chains end
    /// too. Below them nothing is added, so the division by 2^32 is a
    /// renaming except for e[1] + o[0]; its carry (weight 2^32) goes into
    /// the odd reduction chain, which runs first and starts with madc. For
    /// i >= 1 no product reaches frame limb 0, so m is known right after
    /// that addition.
    ///
    /// Doubling early raises the frame: before row i's division it holds
    /// (L (2a - L) + M) / 2^(32i) < 2^32 (2a + p), with L = a mod
    /// 2^(32(i+1)) and M < 2^(32(i+1)) p the reduction multiples so far,
    /// where mul_chain's frame stays below 2^32 2p. When 3p <= 2^(32N)
    /// (Fp) that still fits the frame's N+1 limbs and chains end in o[N-1]
    /// as in mul_chain; otherwise (Fr, p > 2^(32N)/3) one more word `top`
    /// takes their carries and becomes o[N-1] of the next frame. The result
    /// is below 2p either way, as in mul_chain. N must be even. Reduce as in
    /// mul_chain (for a < 2p the frame is below 2^32 5p, which must fit
    /// without `top`; loose.hpp checks it).
    template <class C, bool Reduce = true>
    CUZK_HD static mont sqr_chain(const mont& a) {
        static_assert(N % 2 == 0, "the even/odd split needs an even number of limbs");
        uint32_t d[N];  // limb j of 2a, for the j >= 2 that rows read
        CUZK_UNROLL
        for (int j = 2; j < N; j++) d[j] = (a.v[j] << 1) | (a.v[j - 1] >> 31);
        uint32_t e[N], o[N], top = 0;
        CUZK_UNROLL
        for (int j = 0; j < N; j += 2) {
            const uint32_t w0 = sqr_operand(a, d, 0, j), w1 = sqr_operand(a, d, 0, j + 1);
            e[j] = C::mul_lo(a.v[0], w0);
            e[j + 1] = C::mul_hi(a.v[0], w0);
            o[j] = C::mul_lo(a.v[0], w1);
            o[j + 1] = C::mul_hi(a.v[0], w1);
        }
        sqr_reduce<C, false>(e, o, top);
        CUZK_UNROLL
        for (int i = 1; i < N; i++) {
            shift_frame<C>(e, o, top);
            sqr_reduce<C, true>(e, o, top);
            sqr_row<C>(a, d, i, e, o, top);
        }
        return frame_result<C, Reduce>(e, o);
    }

    /// Divides a sqr_chain frame (e[0] zero) by 2^32: the next e is o with
    /// e[1] added at limb 0, whose carry stays in the flag for the reduction
    /// chain that follows (sqr_reduce with CarryIn); the next o is e from
    /// limb 2 on, topped by `top`, which starts again at zero.
    template <class C>
    CUZK_HD static void shift_frame(uint32_t (&e)[N], uint32_t (&o)[N], uint32_t& top) {
        uint32_t e2[N], o2[N];
        e2[0] = C::add_cc(o[0], e[1]);
        CUZK_UNROLL
        for (int k = 1; k < N; k++) e2[k] = o[k];
        CUZK_UNROLL
        for (int k = 0; k < N - 2; k++) o2[k] = e[k + 2];
        o2[N - 2] = 0;
        o2[N - 1] = top;
        top = 0;
        CUZK_UNROLL
        for (int k = 0; k < N; k++) {
            e[k] = e2[k];
            o[k] = o2[k];
        }
    }

    /// Whether sqr_chain's frame needs the extra word: 3p > 2^(32N) may hold
    /// unless 3 (p_(N-1) + 1) <= 2^32.
    CUZK_HDC static bool sqr_needs_top() {
        return 3 * (uint64_t(P::modulus().v[N - 1]) + 1) > (uint64_t(1) << 32);
    }

    /// W_j of row i in sqr_chain (j >= i): a_i, then a_(i+1) << 1 (limb i+1
    /// of 2a without the bit of a_i, whose product is in a_i^2 already),
    /// then the limbs of 2a.
    CUZK_HD static uint32_t sqr_operand(const mont& a, const uint32_t (&d)[N], int i, int j) {
        return j == i ? a.v[i] : j == i + 1 ? a.v[j] << 1 : d[j];
    }

    /// The last high word of a chain, into o[N-1]; with `top`, its carry
    /// goes there instead of being known to be zero.
    template <class C>
    CUZK_HD static uint32_t sqr_end_hi(uint32_t x, uint32_t y, uint32_t o_top, uint32_t& top) {
        if constexpr (sqr_needs_top()) {
            const uint32_t r = C::madc_hi_cc(x, y, o_top);
            top = C::addc(top, 0u);
            return r;
        } else {
            return C::madc_hi(x, y, o_top);
        }
    }

    /// The carry out of an e chain (weight 2^(32N)) into o[N-1], and on into `top`.
    template <class C>
    CUZK_HD static void sqr_carry_up(uint32_t (&o)[N], uint32_t& top) {
        if constexpr (sqr_needs_top()) {
            o[N - 1] = C::addc_cc(o[N - 1], 0u);
            top = C::addc(top, 0u);
        } else {
            o[N - 1] = C::addc(o[N - 1], 0u);
        }
    }

    /// Adds m p with m = e[0] (-p^-1) mod 2^32, which zeroes e[0]. The odd
    /// chain runs first so that, with CarryIn, it takes the carry of the
    /// addition that formed e[0].
    template <class C, bool CarryIn>
    CUZK_HD static void sqr_reduce(uint32_t (&e)[N], uint32_t (&o)[N], uint32_t& top) {
        constexpr limbs<N> p = modulus();
        constexpr uint32_t inv = m0();
        const uint32_t m = e[0] * inv;
        if constexpr (CarryIn) {
            o[0] = C::madc_lo_cc(m, p.v[1], o[0]);
        } else {
            o[0] = C::mad_lo_cc(m, p.v[1], o[0]);
        }
        CUZK_UNROLL
        for (int j = 1; j < N; j += 2) {
            if (j > 1) o[j - 1] = C::madc_lo_cc(m, p.v[j], o[j - 1]);
            o[j] = j == N - 1 ? sqr_end_hi<C>(m, p.v[j], o[j], top) : C::madc_hi_cc(m, p.v[j], o[j]);
        }
        reduce_even<C>(e, m);
        sqr_carry_up<C>(o, top);
    }

    /// Adds row i of sqr_chain, a_i W_j at frame limb j for j >= i.
    template <class C>
    CUZK_HD static void sqr_row(const mont& a, const uint32_t (&d)[N], int i, uint32_t (&e)[N], uint32_t (&o)[N],
                                uint32_t& top) {
        const uint32_t ai = a.v[i];
        const int even = i + (i & 1), odd = i + 1 - (i & 1);
        if (even < N) {
            CUZK_UNROLL
            for (int j = even; j < N; j += 2) {
                const uint32_t w = sqr_operand(a, d, i, j);
                e[j] = j == even ? C::mad_lo_cc(ai, w, e[j]) : C::madc_lo_cc(ai, w, e[j]);
                e[j + 1] = C::madc_hi_cc(ai, w, e[j + 1]);
            }
            sqr_carry_up<C>(o, top);
        }
        CUZK_UNROLL
        for (int j = odd; j < N; j += 2) {
            const uint32_t w = sqr_operand(a, d, i, j);
            o[j - 1] = j == odd ? C::mad_lo_cc(ai, w, o[j - 1]) : C::madc_lo_cc(ai, w, o[j - 1]);
            o[j] = j == N - 1 ? sqr_end_hi<C>(ai, w, o[j], top) : C::madc_hi_cc(ai, w, o[j]);
        }
    }

    /// The wide products behind fp2.hpp's Karatsuba product: the full
    /// 2N-limb product, its Montgomery reduction, and 2N-limb sums and
    /// differences; defined in mont_wide.hpp, documented there.
    template <class C>
    CUZK_HD static void mul_wide_chain(const mont& a, const mont& b, uint32_t (&t)[2 * N]);
    template <class C, int M>
    CUZK_HD static void wide_row(const mont& a, uint32_t bi, int j0, uint32_t (&acc)[M], int at, bool carry);
    template <class C, bool Reduce = true>
    CUZK_HD static mont redc_wide_chain(const uint32_t (&t)[2 * N]);
    template <class C, bool Sub, bool KeepFlag = false>
    CUZK_HD static void wide_chain(const uint32_t (&x)[2 * N], const uint32_t (&y)[2 * N], uint32_t (&out)[2 * N]);
    template <class C>
    CUZK_HD static void wide_sub_plus_pr(const uint32_t (&x)[2 * N], const uint32_t (&y)[2 * N], uint32_t (&out)[2 * N]);

    /// a + b with no reduction (below 2p < 2^(32N) for canonical a, b).
    template <class C>
    CUZK_HD static mont add_unreduced_chain(const mont& a, const mont& b) {
        mont s;
        s.v[0] = C::add_cc(a.v[0], b.v[0]);
        CUZK_UNROLL
        for (int i = 1; i < N - 1; i++) s.v[i] = C::addc_cc(a.v[i], b.v[i]);
        s.v[N - 1] = C::addc(a.v[N - 1], b.v[N - 1]);
        return s;
    }

    /// 2p, the modulus of loose.hpp's sums and differences (fits N limbs
    /// because p < 2^(32N-1)).
    CUZK_HDC static limbs<N> twice_modulus() {
        limbs<N> t{};
        const limbs<N> p = modulus();
        for (int i = N - 1; i > 0; i--) t.v[i] = (p.v[i] << 1) | (p.v[i - 1] >> 31);
        t.v[0] = p.v[0] << 1;
        return t;
    }

    /// reduce_once as one subtraction chain and a select per limb; Twice
    /// subtracts 2p (r < 4p on entry) instead.
    template <class C, bool Twice = false>
    CUZK_HD static mont reduce_once_chain(const mont& r) {
        constexpr limbs<N> p = Twice ? twice_modulus() : modulus();
        mont d;
        d.v[0] = C::sub_cc(r.v[0], p.v[0]);
        CUZK_UNROLL
        for (int i = 1; i < N; i++) d.v[i] = C::subc_cc(r.v[i], p.v[i]);
        const uint32_t borrow = C::subc(0u, 0u);
        CUZK_UNROLL
        for (int i = 0; i < N; i++) d.v[i] = borrow ? r.v[i] : d.v[i];
        return d;
    }

    /// a + b, then reduce_once_chain (Twice: modulo 2p, for a, b < 2p with
    /// 4p <= 2^(32N)).
    template <class C, bool Twice = false>
    CUZK_HD static mont add_chain(const mont& a, const mont& b) {
        return reduce_once_chain<C, Twice>(add_unreduced_chain<C>(a, b));
    }

    /// a - b, plus p (Twice: 2p) when it borrowed (the mask keeps it branch-free).
    template <class C, bool Twice = false>
    CUZK_HD static mont sub_chain(const mont& a, const mont& b) {
        constexpr limbs<N> p = Twice ? twice_modulus() : modulus();
        mont d;
        d.v[0] = C::sub_cc(a.v[0], b.v[0]);
        CUZK_UNROLL
        for (int i = 1; i < N; i++) d.v[i] = C::subc_cc(a.v[i], b.v[i]);
        const uint32_t mask = C::subc(0u, 0u);
        d.v[0] = C::add_cc(d.v[0], p.v[0] & mask);
        CUZK_UNROLL
        for (int i = 1; i < N - 1; i++) d.v[i] = C::addc_cc(d.v[i], p.v[i] & mask);
        d.v[N - 1] = C::addc(d.v[N - 1], p.v[N - 1] & mask);
        return d;
    }

    /// a^e for an e given as limbs, most significant bit first.
    template <int M>
    CUZK_HD mont pow(const limbs<M>& e) const {
        mont r = one();
        for (int i = 32 * M - 1; i >= 0; i--) {
            r = r.sqr();
            if (limbs_bit(e, i)) r = r * *this;
        }
        return r;
    }
    CUZK_HD mont pow_u32(uint32_t e) const {
        mont r = one(), b = *this;
        while (e) {
            if (e & 1) r = r * b;
            b = b.sqr();
            e >>= 1;
        }
        return r;
    }

    /// a^(p-2) = a^-1 (Fermat); zero maps to zero, as callers check for it.
    CUZK_HD mont inverse() const {
        constexpr limbs<N> e = limbs_sub(modulus(), limbs_small<N>(2));
        return pow(e);
    }
};

}  // namespace cuzk::ff

#include "mont_wide.hpp"
