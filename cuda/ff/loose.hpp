//! Lazy reduction: elements of a Montgomery field kept in [0, 2p) instead of
//! [0, p) between operations. When 4p <= 2^(32N) a Montgomery product of two
//! such values is again below 2p, so a multiplication or squaring skips its
//! final conditional subtraction (a 12-limb borrow chain and a select per
//! limb in Fp, ~9 % of the instructions of a mixed addition and a stretch
//! of its dependency chain); sums and differences reduce modulo 2p at the
//! cost of the canonical ones. Zero has two forms, 0 and p, and values leave
//! through canonical(). The MSM's bucket accumulation in G1 runs on these.
#pragma once

#include "mont.hpp"

namespace cuzk::ff {

template <class F>
struct loose {
    F v;

    /// The carry-chain primitives of this compilation pass: the device's
    /// instructions, or their host emulation (carry.hpp).
#if defined(__CUDA_ARCH__)
    using chain = ptx;
#else
    using chain = emulated;
#endif

    static constexpr int N = F::N;
    // 4p <= 2^(32N) for the products; 5p <= 2^(32N) for sqr_chain's frame
    // without its extra word (mont.hpp), both read off the top limb.
    static_assert(5 * (uint64_t(F::modulus().v[N - 1]) + 1) <= (uint64_t(1) << 32),
                  "lazy reduction needs 5p <= 2^(32N)");

    CUZK_HD static loose zero() { return {F::zero()}; }
    CUZK_HD static loose one() { return {F::one()}; }
    /// A canonical element (below p), as it is.
    CUZK_HD static loose of(const F& x) { return {x}; }
    /// The canonical form, below p.
    CUZK_HD F canonical() const { return F::template reduce_once_chain<chain>(v); }

    CUZK_HD bool is_zero() const {
        constexpr limbs<N> p = F::modulus();
        uint32_t zero = 0, is_p = 0;
        CUZK_UNROLL
        for (int i = 0; i < N; i++) {
            zero |= v.v[i];
            is_p |= v.v[i] ^ p.v[i];
        }
        return zero == 0 || is_p == 0;
    }

    CUZK_HD friend loose operator*(const loose& a, const loose& b) {
        return {F::template mul_chain<chain, false>(a.v, b.v)};
    }
    CUZK_HD loose sqr() const { return {F::template sqr_chain<chain, false>(v)}; }
    CUZK_HD friend loose operator+(const loose& a, const loose& b) {
        return {F::template add_chain<chain, true>(a.v, b.v)};
    }
    CUZK_HD friend loose operator-(const loose& a, const loose& b) {
        return {F::template sub_chain<chain, true>(a.v, b.v)};
    }
    CUZK_HD loose operator-() const { return zero() - *this; }
    CUZK_HD loose dbl() const { return *this + *this; }
};

}  // namespace cuzk::ff
