//! The FP64-limb Fp product (cuda/ff/fp64.hpp), compiled for the host,
//! against blstrs: field edge cases (0, 1, R mod p, p-1, p-2, values just
//! below p), Montgomery limbs at the extremes of its radix 2^48 (every limb
//! 2^48 - 1 under a top limb one below p's), both forms of a residue (x and
//! x + p, the product takes inputs below 2p), and random elements and limb
//! patterns. proptest prints the failing seed and input.

use blstrs::Fp;
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use cuzk_gpu::hooks::arith::host_fp64_mul;
use cuzk_gpu::GpuError;
use ff::Field;
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The product's radix: 48-bit limbs, eight of them.
const BITS: u32 = 48;
const MASK: u64 = (1 << BITS) - 1;

/// p as six little-endian u64 limbs.
fn modulus() -> [u64; 6] {
    let mut p = [0u64; 6];
    for (limb, bytes) in p.iter_mut().zip((-Fp::ONE).to_bytes_le().chunks(8)) {
        *limb = u64::from_le_bytes(bytes.try_into().unwrap());
    }
    p[0] += 1; // p - 1 is even, so no carry
    p
}

/// Six u64 limbs as the eight 48-bit limbs of the same 384 bits, and back.
fn limbs48(x: [u64; 6]) -> [u64; 8] {
    std::array::from_fn(|k| {
        let (w, s) = (48 * k / 64, 48 * k % 64);
        let hi = if s > 16 { x[w + 1] << (64 - s) } else { 0 };
        ((x[w] >> s) | hi) & MASK
    })
}
fn from_limbs48(l: [u64; 8]) -> [u64; 6] {
    let mut x = [0u64; 6];
    for (k, &limb) in l.iter().enumerate() {
        let (w, s) = (48 * k / 64, 48 * k % 64);
        x[w] |= limb << s;
        if s > 16 {
            x[w + 1] |= limb >> (64 - s);
        }
    }
    x
}

/// The Fp whose Montgomery limbs are `x` (below p unless the caller means
/// the other form of a residue).
fn with_limbs(x: [u64; 6]) -> Fp {
    let mut f = [Fp::ZERO];
    as_limbs_mut(&mut f).copy_from_slice(&x);
    f[0]
}
fn limbs_of(f: Fp) -> [u64; 6] {
    as_limbs(&[f]).try_into().unwrap()
}

/// x + p over six limbs, and whether it carried out of them.
fn add_p(x: [u64; 6]) -> ([u64; 6], bool) {
    let p = modulus();
    let mut carry = false;
    let sum = std::array::from_fn(|i| {
        let (s, c1) = x[i].overflowing_add(p[i]);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        carry = c1 || c2;
        s
    });
    (sum, carry)
}

/// x minus the small integer k, in Montgomery limbs (x >= k).
fn minus_small(x: [u64; 6], k: u64) -> [u64; 6] {
    let mut borrow = k;
    std::array::from_fn(|i| {
        let (d, b) = x[i].overflowing_sub(borrow);
        borrow = u64::from(b);
        d
    })
}

/// Elements given by their Montgomery limbs, all below p: 0, 1 (R^-1),
/// R mod p (one), p - 1, p - 2 (as limbs and as field elements), every
/// 48-bit limb 2^48 - 1 under a top limb one below p's, the same under a
/// zero top limb, and 2^47 in every limb under half p's top limb.
fn edges() -> Vec<Fp> {
    let p = modulus();
    let p48 = limbs48(p);
    let mut ones_below_p = [MASK; 8];
    ones_below_p[7] = p48[7] - 1;
    let mut ones_below_top = [MASK; 8];
    ones_below_top[7] = 0;
    let mut halves = [1 << 47; 8];
    halves[7] = p48[7] / 2;
    let limbs = [
        [0; 6],
        [1, 0, 0, 0, 0, 0],
        minus_small(p, 1),
        minus_small(p, 2),
        from_limbs48(ones_below_p),
        from_limbs48(ones_below_top),
        from_limbs48(halves),
    ];
    let mut out: Vec<Fp> = limbs.into_iter().map(with_limbs).collect();
    out.extend([Fp::ONE, -Fp::ONE, -Fp::ONE.double()]);
    out
}

/// The product's result for a and b, each given in the form x (`false`) or
/// x + p (`true`), checked against blstrs' a * b.
fn check(a: Fp, b: Fp, a_high: bool, b_high: bool) {
    let form = |x: Fp, high: bool| if high { with_limbs(add_p(limbs_of(x)).0) } else { x };
    let (la, lb) = (form(a, a_high), form(b, b_high));
    let got = host_fp64_mul(&la, &lb).unwrap();
    assert_eq!(got, a * b, "fp64 product of limbs {:x?} and {:x?}", limbs_of(la), limbs_of(lb));
}

#[test]
fn all_pairs_of_edges_in_both_forms() {
    let edges = edges();
    for &a in &edges {
        for &b in &edges {
            for (ha, hb) in [(false, false), (true, false), (false, true), (true, true)] {
                check(a, b, ha, hb);
            }
        }
    }
}

#[test]
fn values_just_below_p() {
    let p = modulus();
    let near: Vec<Fp> = (1..=64).map(|k| with_limbs(minus_small(p, k))).collect();
    for &a in &near {
        for &b in near.iter().step_by(7) {
            check(a, b, false, false);
        }
    }
}

#[test]
fn limbs_at_or_above_2p_are_invalid_input() {
    let p = modulus();
    let (two_p, carried) = add_p(p);
    assert!(!carried);
    let all_ones = with_limbs([u64::MAX; 6]);
    // 2p - 1, the largest input, is the other form of the limbs p - 1.
    let largest = with_limbs(minus_small(two_p, 1));
    assert_eq!(host_fp64_mul(&largest, &largest).unwrap(), with_limbs(minus_small(p, 1)).square());
    for bad in [with_limbs(two_p), all_ones] {
        let err = host_fp64_mul(&bad, &Fp::ONE).unwrap_err();
        assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
        let err = host_fp64_mul(&Fp::ONE, &bad).unwrap_err();
        assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
    }
}

/// Eight 48-bit limbs drawn from 0, 1, 2^47, 2^48 - 1 and random values,
/// the top limb below p's so that the value is below p.
fn limb_pattern() -> impl Strategy<Value = Fp> {
    let top = limbs48(modulus())[7];
    let limb = prop_oneof![Just(0u64), Just(1), Just(1 << 47), Just(MASK), 0..=MASK];
    (prop::collection::vec(limb, 7), prop_oneof![Just(0u64), Just(top - 1), 0..top]).prop_map(|(low, t)| {
        let mut l = [0u64; 8];
        l[..7].copy_from_slice(&low);
        l[7] = t;
        with_limbs(from_limbs48(l))
    })
}

/// Edge cases, limb patterns and random elements.
fn input() -> impl Strategy<Value = Fp> {
    prop_oneof![
        1 => prop::sample::select(edges()),
        2 => limb_pattern(),
        3 => any::<u64>().prop_map(|s| Fp::random(ChaCha20Rng::seed_from_u64(s))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn fp64_product_matches_blstrs(a in input(), b in input(), ha in any::<bool>(), hb in any::<bool>()) {
        check(a, b, ha, hb);
    }
}
