//! The fixed-base kernels' point and conversion code (cuda/msm/fixed_base.hpp),
//! compiled for the host, against blstrs' s·g: random scalars and the edges
//! (0, 1, −1 = r − 1, repeats, digits at the window boundaries), every
//! window width the plan can take at small sizes, conversion runs of every
//! stride, G1 and G2; and the layout: results are blstrs affine points, the
//! identity as zeros. proptest prints the failing seed and input.

use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_gpu::curve::{G1, G2};
use cuzk_gpu::hooks::arith::HookCurve;
use cuzk_gpu::hooks::setup::{fixed_base_on_host, fixed_base_on_host_with_table};
use cuzk_gpu::setup::{window_table, SetupCurve};
use cuzk_gpu::GpuError;
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The scalars whose digits sit at the recoding's edges, besides random ones:
/// 0, 1, −1 (r − 1), 2, a window's half (its largest positive digit) and
/// half + 1 (its first borrow), 2^254 (the top window), and a repeat.
fn edge_scalars(c: u32) -> Vec<Scalar> {
    let two = Scalar::from(2u64);
    let half = two.pow_vartime([u64::from(c - 1)]);
    vec![
        Scalar::ZERO,
        Scalar::ONE,
        -Scalar::ONE,
        two,
        half,
        half + Scalar::ONE,
        half * two.pow_vartime([u64::from(c)]) + half,
        two.pow_vartime([254]),
        -two,
        -Scalar::ONE,
    ]
}

fn check<C: SetupCurve + HookCurve>(g: C::Projective, scalars: &[Scalar], c: u32, stride: u64)
where
    C::Affine: std::fmt::Debug,
{
    let got = fixed_base_on_host::<C>(g, scalars, c, stride).unwrap();
    assert_eq!(got.len(), scalars.len());
    for (i, (s, p)) in scalars.iter().zip(&got).enumerate() {
        assert_eq!(*p, (g * s).to_affine(), "scalar {i} = {s:?}, c = {c}, stride = {stride}");
    }
}

fn scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        1 => Just(Scalar::ZERO),
        1 => Just(Scalar::ONE),
        1 => Just(-Scalar::ONE),
        6 => any::<u64>().prop_map(|s| Scalar::random(ChaCha20Rng::seed_from_u64(s))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn g1_matches_blstrs(
        scalars in prop::collection::vec(scalar(), 0..24),
        c in 2u32..=8,
        stride in 1u64..6,
        seed in any::<u64>(),
    ) {
        let g = G1Projective::random(ChaCha20Rng::seed_from_u64(seed));
        check::<G1>(g, &scalars, c, stride);
    }

    #[test]
    fn g2_matches_blstrs(
        scalars in prop::collection::vec(scalar(), 0..8),
        c in 2u32..=6,
        stride in 1u64..4,
        seed in any::<u64>(),
    ) {
        let g = G2Projective::random(ChaCha20Rng::seed_from_u64(seed));
        check::<G2>(g, &scalars, c, stride);
    }
}

#[test]
fn edge_scalars_at_every_small_width() {
    let g = G1Projective::random(ChaCha20Rng::seed_from_u64(1));
    for c in 2..=10 {
        let scalars = edge_scalars(c);
        for stride in [1, 3, scalars.len() as u64, 64] {
            check::<G1>(g, &scalars, c, stride);
        }
    }
    let g2 = G2Projective::random(ChaCha20Rng::seed_from_u64(2));
    check::<G2>(g2, &edge_scalars(4), 4, 2);
}

#[test]
fn the_widest_plan_window() {
    // 16 bits, as the plan takes from 2^24 scalars up: 16 rows of 2^15 points.
    let g = G1Projective::random(ChaCha20Rng::seed_from_u64(3));
    let mut scalars = edge_scalars(16);
    scalars.extend((0..6).map(|i| Scalar::random(ChaCha20Rng::seed_from_u64(i))));
    check::<G1>(g, &scalars, 16, 4);
}

#[test]
fn the_identity_generator_gives_identities() {
    let got = fixed_base_on_host::<G1>(G1Projective::identity(), &edge_scalars(4), 4, 2).unwrap();
    assert!(got.iter().all(|p| bool::from(p.is_identity())));
    // blstrs' identity is all-zero limbs, which the kernels write for it.
    assert_eq!(cuzk_ffi::cast::as_limbs(&got[..1]), &[0u64; 12][..]);
}

#[test]
fn malformed_arguments_are_typed_errors() {
    let g = G1Projective::generator();
    let table = window_table::<G1>(g, 4).unwrap();
    let s = [Scalar::ONE];
    let invalid = |r: Result<_, GpuError>| matches!(r, Err(GpuError::InvalidInput(_)));
    assert!(invalid(fixed_base_on_host_with_table::<G1>(&table[1..], &s, 4, 1)), "short table");
    assert!(invalid(fixed_base_on_host_with_table::<G1>(&table, &s, 5, 1)), "table of another width");
    assert!(invalid(fixed_base_on_host_with_table::<G1>(&table, &s, 1, 1)), "width below 2");
    assert!(invalid(fixed_base_on_host_with_table::<G1>(&table, &s, 4, 0)), "stride 0");
    assert!(fixed_base_on_host_with_table::<G1>(&table, &[], 4, 0).unwrap().is_empty());
}
