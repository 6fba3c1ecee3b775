//! The kernels' field and curve code, compiled for the host, against blstrs:
//! random values and edge cases (0, 1, p-1, identity, P+P, P-P, O+P). The
//! device's carry-chain schedules run here too, against an emulated carry
//! flag, on inputs whose Montgomery limbs make carries run far.
//! proptest prints the failing seed and input.

use blstrs::{Fp, Fp2, G1Projective, G2Projective, Scalar};
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use cuzk_gpu::curve::{G1, G2};
use cuzk_gpu::hooks::arith::{
    host_curve_op, host_field_constants, host_field_op, host_root_of_unity, CurveOp, FieldOp, HookCurve, KernelField,
};
use ff::{Field, PrimeField};
use group::{Curve, Group};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// 0, 1, -1 (= p-1) and random elements.
fn element<F: Field>() -> impl Strategy<Value = F> {
    prop_oneof![
        1 => Just(F::ZERO),
        1 => Just(F::ONE),
        1 => Just(-F::ONE),
        7 => any::<u64>().prop_map(|s| F::random(rng(s))),
    ]
}

fn check_field<F: KernelField + std::fmt::Debug>(a: F, b: F) {
    let inv = Option::<F>::from(a.invert()).unwrap_or(F::ZERO);
    for (op, want) in [
        (FieldOp::Add, a + b),
        (FieldOp::Sub, a - b),
        (FieldOp::Mul, a * b),
        (FieldOp::Sqr, a.square()),
        (FieldOp::Neg, -a),
        (FieldOp::Inv, inv),
    ] {
        assert_eq!(host_field_op(op, &a, &b).unwrap(), want, "{op:?} of {a:?}, {b:?}");
    }
}

/// The canonical value of p - 1 plus one, as little-endian u64 limbs.
fn modulus_of(p_minus_1_le: &[u8]) -> Vec<u64> {
    let mut limbs: Vec<u64> =
        p_minus_1_le.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    limbs[0] += 1; // p - 1 is even, so no carry
    limbs
}

fn check_constants<F: KernelField>(p_minus_1_le: &[u8], limbs: usize) {
    let c = host_field_constants::<F>().unwrap();
    assert_eq!(c.modulus, modulus_of(p_minus_1_le));
    assert_eq!(c.one, as_limbs(&[F::ONE]));
    // 2^(64 limbs) mod p as a field element is R; its Montgomery form is R^2.
    let r_elem = (0..64 * limbs).fold(F::ONE, |x, _| x.double());
    assert_eq!(c.r2, as_limbs(&[r_elem]));
    assert_eq!((c.modulus[0] as u32).wrapping_mul(c.m0), u32::MAX, "m0 = -p^-1 mod 2^32");
}

#[test]
fn montgomery_constants_match_blstrs() {
    check_constants::<Scalar>(&(-Scalar::ONE).to_bytes_le(), 4);
    check_constants::<Fp>(&(-Fp::ONE).to_bytes_le(), 6);
}

#[test]
fn root_of_unity_matches_ff() {
    let mut w = Scalar::ROOT_OF_UNITY;
    for log_n in (0..=Scalar::S).rev() {
        assert_eq!(host_root_of_unity(log_n).unwrap(), w, "log_n = {log_n}");
        w = w.square();
    }
    assert!(host_root_of_unity(Scalar::S + 1).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn fr_matches_blstrs(a in element::<Scalar>(), b in element::<Scalar>()) {
        check_field(a, b);
    }

    #[test]
    fn fp_matches_blstrs(a in element::<Fp>(), b in element::<Fp>()) {
        check_field(a, b);
    }

    #[test]
    fn fp2_matches_blstrs(a in element::<Fp2>(), b in element::<Fp2>()) {
        check_field(a, b);
    }
}

/// A prime field whose device schedules the hooks run.
trait PrimeKernelField: KernelField + std::fmt::Debug {
    /// p - 1 as little-endian bytes.
    fn p_minus_1_le() -> Vec<u8>;
}
impl PrimeKernelField for Scalar {
    fn p_minus_1_le() -> Vec<u8> {
        (-Scalar::ONE).to_bytes_le().to_vec()
    }
}
impl PrimeKernelField for Fp {
    fn p_minus_1_le() -> Vec<u8> {
        (-Fp::ONE).to_bytes_le().to_vec()
    }
}

/// u64 limbs as the kernels' 32-bit words, and back.
fn words(limbs: &[u64]) -> Vec<u32> {
    limbs.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect()
}
fn from_words<F: PrimeKernelField>(w: &[u32]) -> F {
    let mut x = [F::ZERO];
    for (limb, pair) in as_limbs_mut(&mut x).iter_mut().zip(w.chunks(2)) {
        *limb = u64::from(pair[0]) | (u64::from(pair[1]) << 32);
    }
    x[0]
}

/// Elements given by their Montgomery words (what the schedules see), all
/// below p: 0, 1 (the form of R^-1), R - 1, p - 1, all words 0xffffffff
/// under a top word one below p's, and all words 0xffffffff under a zero
/// top word.
fn word_edges<F: PrimeKernelField>() -> Vec<F> {
    let p = words(&modulus_of(&F::p_minus_1_le()));
    let n = p.len();
    let small = |w: u32| {
        let mut v = vec![0; n];
        v[0] = w;
        v
    };
    let minus_one = |mut v: Vec<u32>| {
        let i = v.iter().position(|&w| w != 0).expect("nonzero");
        v[i] -= 1;
        v[..i].iter_mut().for_each(|w| *w = u32::MAX);
        v
    };
    let r_minus_1 = minus_one(words(as_limbs(&[F::ONE])));
    let mut ones_below_p = vec![u32::MAX; n];
    ones_below_p[n - 1] = p[n - 1] - 1;
    let mut ones_below_top = vec![u32::MAX; n];
    ones_below_top[n - 1] = 0;
    let edges = [small(0), small(1), r_minus_1, minus_one(p), ones_below_p, ones_below_top];
    edges.iter().map(|w| from_words(w)).collect()
}

/// Montgomery words drawn from 0, 1, 2^31, 0xffffffff and random words, the
/// top word below p's so that the value is below p.
fn word_pattern<F: PrimeKernelField>() -> impl Strategy<Value = F> {
    let p = words(&modulus_of(&F::p_minus_1_le()));
    let word = prop_oneof![Just(0u32), Just(1), Just(1 << 31), Just(u32::MAX), any::<u32>()];
    let top = p[p.len() - 1];
    (prop::collection::vec(word, p.len() - 1), prop_oneof![Just(0u32), Just(top - 1), 0..top]).prop_map(
        |(mut w, t)| {
            w.push(t);
            from_words::<F>(&w)
        },
    )
}

/// Field edge cases, word edge cases, word patterns and random elements.
fn schedule_input<F: PrimeKernelField>() -> impl Strategy<Value = F> {
    prop_oneof![
        2 => element::<F>(),
        1 => prop::sample::select(word_edges::<F>()),
        2 => word_pattern::<F>(),
    ]
}

fn check_schedules<F: PrimeKernelField>(a: F, b: F) {
    let cases = [
        (FieldOp::AddChain, a + b),
        (FieldOp::SubChain, a - b),
        (FieldOp::MulChain, a * b),
        (FieldOp::WideMulChain, a * b),
        (FieldOp::SqrChain, a.square()),
    ];
    for (op, want) in cases {
        assert_eq!(host_field_op(op, &a, &b).unwrap(), want, "{op:?} of {a:?}, {b:?}");
    }
}

#[test]
fn schedules_on_all_word_edges() {
    fn all_pairs<F: PrimeKernelField>() {
        let edges = word_edges::<F>();
        for &a in &edges {
            for &b in &edges {
                check_schedules(a, b);
            }
        }
    }
    all_pairs::<Scalar>();
    all_pairs::<Fp>();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fr_schedules_match_blstrs(a in schedule_input::<Scalar>(), b in schedule_input::<Scalar>()) {
        check_schedules(a, b);
    }

    #[test]
    fn fp_schedules_match_blstrs(a in schedule_input::<Fp>(), b in schedule_input::<Fp>()) {
        check_schedules(a, b);
    }
}

/// x + p in Montgomery words, for an x with x + p < 2p: the other form of
/// the same residue that the lazily reduced arithmetic may hold.
fn plus_p(x: Fp) -> Fp {
    let p = words(&modulus_of(&Fp::p_minus_1_le()));
    let mut w = words(as_limbs(&[x]));
    let mut carry = 0u64;
    for (wi, pi) in w.iter_mut().zip(&p) {
        let t = u64::from(*wi) + u64::from(*pi) + carry;
        *wi = t as u32;
        carry = t >> 32;
    }
    assert_eq!(carry, 0, "x + p fits the words");
    from_words(&w)
}

/// Whether little-endian words w are at least p.
fn at_least(w: &[u32], p: &[u32]) -> bool {
    w.iter().rev().zip(p.iter().rev()).find(|(a, b)| a != b).map_or(true, |(a, b)| a > b)
}

/// A value below 2p as the canonical element it stands for, checking the bound.
fn canonical(x: Fp, what: &str) -> Fp {
    let p = words(&modulus_of(&Fp::p_minus_1_le()));
    let w = words(as_limbs(&[x]));
    if !at_least(&w, &p) {
        return x;
    }
    let mut d = w.clone();
    let mut borrow = 0i64;
    for (di, pi) in d.iter_mut().zip(&p) {
        let t = i64::from(*di) - i64::from(*pi) - borrow;
        *di = t.rem_euclid(1 << 32) as u32;
        borrow = i64::from(t < 0);
    }
    let reduced = from_words::<Fp>(&d);
    assert!(!at_least(&words(as_limbs(&[reduced])), &p), "{what}: {x:?} is not below 2p");
    reduced
}

/// The lazily reduced Fp arithmetic of the G1 accumulation (ff/loose.hpp)
/// on inputs in either form (x or x + p): results below 2p, and the residues
/// blstrs computes.
fn check_loose(a: Fp, b: Fp, a_high: bool, b_high: bool) {
    let (la, lb) = (if a_high { plus_p(a) } else { a }, if b_high { plus_p(b) } else { b });
    for (op, want) in
        [(FieldOp::LooseMul, a * b), (FieldOp::LooseSqr, a.square()), (FieldOp::LooseAdd, a + b), (FieldOp::LooseSub, a - b)]
    {
        let got = host_field_op(op, &la, &lb).unwrap();
        assert_eq!(canonical(got, &format!("{op:?}")), want, "{op:?} of {la:?}, {lb:?}");
    }
}

#[test]
fn loose_schedules_on_all_word_edges() {
    let edges = word_edges::<Fp>();
    for &a in &edges {
        for &b in &edges {
            for (ha, hb) in [(false, false), (true, false), (false, true), (true, true)] {
                check_loose(a, b, ha, hb);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn loose_schedules_match_blstrs(
        a in schedule_input::<Fp>(), b in schedule_input::<Fp>(), ha in any::<bool>(), hb in any::<bool>()
    ) {
        check_loose(a, b, ha, hb);
    }
}

#[test]
fn loose_schedules_are_fp_only() {
    for op in [FieldOp::LooseMul, FieldOp::LooseSqr, FieldOp::LooseAdd, FieldOp::LooseSub] {
        let err = host_field_op(op, &Scalar::ONE, &Scalar::ONE).unwrap_err();
        assert!(matches!(err, cuzk_gpu::GpuError::InvalidInput(_)), "{op:?}: {err:?}");
    }
}

/// Fp2 elements whose coordinates are Fp's word edges: products whose
/// a0 b0 - a1 b1 is zero, negative and positive, at the largest operands.
fn fp2_word_edges() -> Vec<Fp2> {
    let edges = word_edges::<Fp>();
    edges.iter().flat_map(|&c0| edges.iter().map(move |&c1| Fp2::new(c0, c1))).collect()
}

fn check_fp2_schedule(a: Fp2, b: Fp2) {
    assert_eq!(host_field_op(FieldOp::MulChain, &a, &b).unwrap(), a * b, "MulChain of {a:?}, {b:?}");
}

#[test]
fn fp2_schedule_on_all_word_edges() {
    let edges = fp2_word_edges();
    for &a in &edges {
        for &b in &edges {
            check_fp2_schedule(a, b);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fp2_schedule_matches_blstrs(
        a0 in schedule_input::<Fp>(), a1 in schedule_input::<Fp>(),
        b0 in schedule_input::<Fp>(), b1 in schedule_input::<Fp>()
    ) {
        check_fp2_schedule(Fp2::new(a0, a1), Fp2::new(b0, b1));
    }
}

#[test]
fn fp2_has_only_its_product_schedule() {
    for op in [FieldOp::AddChain, FieldOp::SubChain, FieldOp::SqrChain, FieldOp::WideMulChain] {
        let err = host_field_op(op, &Fp2::ONE, &Fp2::ONE).unwrap_err();
        assert!(matches!(err, cuzk_gpu::GpuError::InvalidInput(_)), "{op:?}: {err:?}");
    }
}

/// Identity or a random multiple of the generator, rescaled so that Z != 1.
fn point<P: Group>() -> impl Strategy<Value = P> {
    prop_oneof![
        1 => Just(P::identity()),
        6 => any::<u64>().prop_map(|s| P::random(rng(s)).double() - P::generator()),
    ]
}

fn check_curve<C: HookCurve>(p: C::Jacobian, q: C::Jacobian)
where
    C::Jacobian: Group + Curve<AffineRepr = C::Affine> + std::fmt::Debug,
    C::Affine: PartialEq + std::fmt::Debug,
{
    let q_aff = q.to_affine();
    // The same point as p with another Z: exercises the P+P branch.
    let p_again = (p + p) - p;
    let cases = [
        (CurveOp::Add, p, as_limbs(&[q]).to_vec(), p + q),
        (CurveOp::Add, p, as_limbs(&[p_again]).to_vec(), p.double()),
        (CurveOp::Add, p, as_limbs(&[-p]).to_vec(), C::Jacobian::identity()),
        (CurveOp::AddAffine, p, as_limbs(&[q_aff]).to_vec(), p + q),
        (CurveOp::AddAffine, p, as_limbs(&[p.to_affine()]).to_vec(), p.double()),
        (CurveOp::AddAffine, p, as_limbs(&[(-p).to_affine()]).to_vec(), C::Jacobian::identity()),
        (CurveOp::Dbl, p, Vec::new(), p.double()),
        (CurveOp::ToAffine, p, Vec::new(), p),
    ];
    for (op, a, b, want) in cases {
        assert_eq!(host_curve_op::<C>(op, &a, &b).unwrap(), want.to_affine(), "{op:?} of {a:?}");
    }
    // O + P with the identity on the left.
    let o = C::Jacobian::identity();
    assert_eq!(host_curve_op::<C>(CurveOp::Add, &o, as_limbs(&[q])).unwrap(), q_aff);
    assert_eq!(host_curve_op::<C>(CurveOp::AddAffine, &o, as_limbs(&[q_aff])).unwrap(), q_aff);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn g1_matches_blstrs(p in point::<G1Projective>(), q in point::<G1Projective>()) {
        check_curve::<G1>(p, q);
    }

    #[test]
    fn g2_matches_blstrs(p in point::<G2Projective>(), q in point::<G2Projective>()) {
        check_curve::<G2>(p, q);
    }
}

#[test]
fn wrong_lengths_are_invalid_input() {
    let p = G1Projective::generator();
    let err = host_curve_op::<G1>(CurveOp::Add, &p, &[0u64; 3]).unwrap_err();
    assert!(matches!(err, cuzk_gpu::GpuError::InvalidInput(_)), "{err:?}");
}
