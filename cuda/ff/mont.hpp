// Montgomery arithmetic over a prime p < 2^(32N-1), generic in the modulus.
//
// Representation: N little-endian 32-bit limbs holding a*R mod p with
// R = 2^(32N), i.e. byte for byte what blst/blstrs store in their u64 limbs,
// so buffers move between Rust and C++/CUDA without conversion.
// Every constant is derived from P::modulus() at compile time (limbs.hpp).
#pragma once

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

    CUZK_HD friend mont operator-(const mont& a, const mont& b) {
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
        return mul_ptx(a, b);
#else
        return mul_portable(a, b);
#endif
    }
    CUZK_HD mont& operator*=(const mont& b) { return *this = *this * b; }
    CUZK_HD mont& operator+=(const mont& b) { return *this = *this + b; }
    CUZK_HD mont& operator-=(const mont& b) { return *this = *this - b; }
    CUZK_HD mont sqr() const { return *this * *this; }

    /// Coarsely integrated operand scanning (CIOS): one multiply row, then one
    /// reduction row, per limb of b. The host path and the reference for the
    /// device path.
    CUZK_HD static mont mul_portable(const mont& a, const mont& b) {
        constexpr limbs<N> p = modulus();
        constexpr uint32_t inv = m0();
        uint32_t t[N + 2] = {};
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            uint64_t c = 0;
            CUZK_UNROLL
            for (int j = 0; j < N; j++) {
                uint64_t s = uint64_t(a.v[j]) * b.v[i] + t[j] + c;
                t[j] = uint32_t(s);
                c = s >> 32;
            }
            uint64_t s = uint64_t(t[N]) + c;
            t[N] = uint32_t(s);
            t[N + 1] = uint32_t(s >> 32);

            uint32_t m = t[0] * inv;
            s = uint64_t(m) * p.v[0] + t[0];
            c = s >> 32;
            CUZK_UNROLL
            for (int j = 1; j < N; j++) {
                s = uint64_t(m) * p.v[j] + t[j] + c;
                t[j - 1] = uint32_t(s);
                c = s >> 32;
            }
            s = uint64_t(t[N]) + c;
            t[N - 1] = uint32_t(s);
            t[N] = t[N + 1] + uint32_t(s >> 32);
        }
        mont r;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) r.v[i] = t[i];
        return reduce_once(r);
    }

#if defined(__CUDA_ARCH__)
    /// The same CIOS schedule as mul_portable, written as PTX carry chains:
    /// low halves of a row with mad.lo.cc/madc.lo.cc, high halves with
    /// mad.hi.cc/madc.hi.cc one limb up. t holds N+2 limbs; after each
    /// reduction row t[0] is zero and the window slides down one limb.
    __device__ __forceinline__ static mont mul_ptx(const mont& a, const mont& b) {
        constexpr limbs<N> p = modulus();
        constexpr uint32_t inv = m0();
        uint32_t t[N + 2];
        CUZK_UNROLL
        for (int i = 0; i < N + 2; i++) t[i] = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.v[i];
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.v[0]), "r"(bi));
            CUZK_UNROLL
            for (int j = 1; j < N; j++)
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.v[j]), "r"(bi));
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.v[0]), "r"(bi));
            CUZK_UNROLL
            for (int j = 1; j < N; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.v[j]), "r"(bi));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

            const uint32_t m = t[0] * inv;
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(p.v[0]));
            CUZK_UNROLL
            for (int j = 1; j < N; j++)
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(p.v[j]));
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(p.v[0]));
            CUZK_UNROLL
            for (int j = 1; j < N; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(p.v[j]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

            CUZK_UNROLL
            for (int j = 0; j <= N; j++) t[j] = t[j + 1];
            t[N + 1] = 0;
        }
        mont r;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) r.v[i] = t[i];
        return reduce_once(r);
    }
#endif

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
