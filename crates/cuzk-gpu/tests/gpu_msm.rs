//! GPU tests of the MSM and batch-addition kernels against blstrs, on fresh
//! random inputs each run (the seed is printed; CUZK_SEED fixes it).
//!
//! The same custom harness as tests/gpu.rs: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU).

mod harness;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_gpu::curve::{G1, G2};
use cuzk_gpu::batch_add::{batch_add, batch_add_resident, batch_add_resident_many};
use cuzk_gpu::msm::{msm, msm_resident, msm_table, window_bits_for, MsmCurve, MsmTable};
use cuzk_gpu::{msm_g1, Device, DeviceBases, DeviceScalars, GpuError};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("msm_small_sizes_match_naive_sum", msm_small_sizes_match_naive_sum),
    ("msm_g1_up_to_2_22_matches_blst", msm_g1_up_to_2_22_matches_blst),
    ("msm_g2_up_to_2_16_matches_blst", msm_g2_up_to_2_16_matches_blst),
    ("msm_equal_scalars_fill_one_bucket", msm_equal_scalars_fill_one_bucket),
    ("msm_width_follows_the_wide_scalars", msm_width_follows_the_wide_scalars),
    ("msm_empty_and_mismatched_inputs", msm_empty_and_mismatched_inputs),
    ("msm_resident_prefixes_and_tiles", msm_resident_prefixes_and_tiles),
    ("msm_long_runs_of_repeated_points", msm_long_runs_of_repeated_points),
    ("msm_tables_match_blst", msm_tables_match_blst),
    ("batch_add_matches_naive_sum", batch_add_matches_naive_sum),
    ("batch_add_rejects_bad_bitmaps", batch_add_rejects_bad_bitmaps),
    ("batch_add_of_several_bitmaps_matches_each_alone", batch_add_of_several_bitmaps_matches_each_alone),
    ("msm_out_of_memory_is_typed_and_recoverable", msm_out_of_memory_is_typed_and_recoverable),
];

fn main() {
    harness::run("GPU MSM", TESTS)
}

/// A curve with the blstrs operations the references need.
trait TestCurve: MsmCurve<Jacobian = Self::P, Affine = Self::A> {
    type P: Group<Scalar = Scalar> + Curve<AffineRepr = Self::A> + std::fmt::Debug;
    type A: PrimeCurveAffine<Curve = Self::P> + std::fmt::Debug;
    fn multi_exp(points: &[Self::P], scalars: &[Scalar]) -> Self::P;
}
impl TestCurve for G1 {
    type P = G1Projective;
    type A = G1Affine;
    fn multi_exp(points: &[G1Projective], scalars: &[Scalar]) -> G1Projective {
        G1Projective::multi_exp(points, scalars)
    }
}
impl TestCurve for G2 {
    type P = G2Projective;
    type A = G2Affine;
    fn multi_exp(points: &[G2Projective], scalars: &[Scalar]) -> G2Projective {
        G2Projective::multi_exp(points, scalars)
    }
}

/// n distinct random points, cheaply: 64 random points, then a walk adding
/// one of them (chosen at random) per step, then one batch normalisation.
fn random_points<C: TestCurve>(rng: &mut ChaCha20Rng, n: usize) -> Vec<C::A> {
    let seeds: Vec<C::P> = (0..64).map(|_| C::P::random(&mut *rng)).collect();
    let mut walk = Vec::with_capacity(n);
    let mut p = C::P::random(&mut *rng);
    for _ in 0..n {
        p += seeds[(rng.next_u32() % 64) as usize];
        walk.push(p);
    }
    let mut out = vec![C::A::identity(); n];
    C::P::batch_normalize(&walk, &mut out);
    out
}

fn random_scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
    (0..n).map(|_| Scalar::random(&mut *rng)).collect()
}

/// Filecoin-like witnesses: mostly 0 and 1, some -1, a few full-width.
fn bit_heavy_scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
    (0..n)
        .map(|_| match rng.next_u32() % 100 {
            0..=44 => Scalar::ZERO,
            45..=89 => Scalar::ONE,
            90..=94 => -Scalar::ONE,
            _ => Scalar::random(&mut *rng),
        })
        .collect()
}

fn naive<C: TestCurve>(bases: &[C::A], scalars: &[Scalar]) -> C::P {
    bases.iter().zip(scalars).fold(C::P::identity(), |acc, (b, s)| acc + b.to_curve() * s)
}

/// blst's MSM over the non-identity bases (the same sum).
fn reference<C: TestCurve>(bases: &[C::A], scalars: &[Scalar]) -> C::P {
    let (points, scalars): (Vec<C::P>, Vec<Scalar>) = bases
        .iter()
        .zip(scalars)
        .filter(|(b, _)| !bool::from(b.is_identity()))
        .map(|(b, s)| (b.to_curve(), *s))
        .unzip();
    if points.is_empty() {
        C::P::identity()
    } else {
        C::multi_exp(&points, &scalars)
    }
}

fn check_msm<C: TestCurve>(device: &Device, bases: &[C::A], scalars: &[Scalar], expected: C::P, what: &str) {
    let got = msm::<C>(device, bases, scalars).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got, expected, "{what}: n = {}", bases.len());
}

/// Every edge at small n: zero, one and minus-one scalars, identity bases,
/// a point repeated (doublings in a bucket), P next to -P (cancellation).
fn small_case<C: TestCurve>(device: &Device, rng: &mut ChaCha20Rng, n: usize) {
    let mut bases = random_points::<C>(rng, n);
    let mut scalars = random_scalars(rng, n);
    for i in 0..n {
        match rng.next_u32() % 8 {
            0 => scalars[i] = Scalar::ZERO,
            1 => scalars[i] = Scalar::ONE,
            2 => scalars[i] = -Scalar::ONE,
            3 => bases[i] = C::A::identity(),
            4 if i > 0 => bases[i] = bases[i - 1],
            5 if i > 0 => {
                bases[i] = (-bases[i - 1].to_curve()).to_affine();
                scalars[i] = scalars[i - 1];
            }
            _ => {}
        }
    }
    check_msm::<C>(device, &bases, &scalars, naive::<C>(&bases, &scalars), "small edge case");
    let ones = vec![Scalar::ONE; n];
    check_msm::<C>(device, &bases, &ones, naive::<C>(&bases, &ones), "all ones");
    let same = vec![bases[0]; n];
    check_msm::<C>(device, &same, &scalars, naive::<C>(&same, &scalars), "one repeated base");
}

fn msm_small_sizes_match_naive_sum(device: &Device, rng: &mut ChaCha20Rng) {
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 65, 100, 257] {
        small_case::<G1>(device, rng, n);
        small_case::<G2>(device, rng, n);
    }
}

fn power_sizes<C: TestCurve>(device: &Device, rng: &mut ChaCha20Rng, logs: &[u32]) {
    let max = (1usize << logs.iter().max().unwrap()) + 1;
    let mut bases = random_points::<C>(rng, max);
    for i in 0..64 {
        let at = (rng.next_u64() as usize) % max;
        bases[at] = if i % 2 == 0 { C::A::identity() } else { bases[(at + 1) % max] };
    }
    let random = random_scalars(rng, max);
    let bits = bit_heavy_scalars(rng, max);
    for &log in logs {
        for n in [1usize << log, (1 << log) + 1] {
            check_msm::<C>(device, &bases[..n], &random[..n], reference::<C>(&bases[..n], &random[..n]), "random");
            check_msm::<C>(device, &bases[..n], &bits[..n], reference::<C>(&bases[..n], &bits[..n]), "bit-heavy");
        }
    }
}

fn msm_g1_up_to_2_22_matches_blst(device: &Device, rng: &mut ChaCha20Rng) {
    power_sizes::<G1>(device, rng, &[6, 10, 13, 16, 19, 22]);
}

fn msm_g2_up_to_2_16_matches_blst(device: &Device, rng: &mut ChaCha20Rng) {
    power_sizes::<G2>(device, rng, &[6, 10, 13, 16]);
}

/// All scalars equal: every point lands in the same bucket of each window,
/// the most uneven split the accumulation can get.
fn msm_equal_scalars_fill_one_bucket(device: &Device, rng: &mut ChaCha20Rng) {
    let n = 1 << 17;
    let bases = random_points::<G1>(rng, n);
    let total: G1Projective = bases.iter().map(|b| b.to_curve()).sum();
    for s in [Scalar::random(&mut *rng), Scalar::ONE, -Scalar::ONE, Scalar::from(3u64)] {
        let scalars = vec![s; n];
        check_msm::<G1>(device, &bases, &scalars, total * s, "equal scalars");
    }
    let bases = random_points::<G2>(rng, 1 << 12);
    let total: G2Projective = bases.iter().map(|b| b.to_curve()).sum();
    let s = Scalar::random(&mut *rng);
    check_msm::<G2>(device, &bases, &vec![s; 1 << 12], total * s, "equal scalars, G2");
}

/// The device counts the scalars that are neither 0 nor 1 and picks the
/// window width for them (plan.hpp's digit_points): the width it reports
/// must be the host model's for the CPU's count, and the sum blst's, for
/// all-zero, all-one, boolean, bit-heavy, 1 %-wide and random scalars.
fn width_case<C: TestCurve>(device: &Device, rng: &mut ChaCha20Rng, n: usize) {
    let bases = random_points::<C>(rng, n);
    let uploaded = DeviceBases::<C>::upload(device, &bases).unwrap();
    let boolean = |rng: &mut ChaCha20Rng| if rng.next_u32() % 2 == 0 { Scalar::ZERO } else { Scalar::ONE };
    let patterns: [(&str, Vec<Scalar>); 6] = [
        ("zeros", vec![Scalar::ZERO; n]),
        ("ones", vec![Scalar::ONE; n]),
        ("boolean", (0..n).map(|_| boolean(&mut *rng)).collect()),
        ("bit-heavy", bit_heavy_scalars(rng, n)),
        (
            "1 % wide",
            (0..n).map(|_| if rng.next_u32() % 100 == 0 { Scalar::random(&mut *rng) } else { boolean(&mut *rng) }).collect(),
        ),
        ("random", random_scalars(rng, n)),
    ];
    for (what, scalars) in patterns {
        let wide = scalars.iter().filter(|s| **s != Scalar::ZERO && **s != Scalar::ONE).count();
        let run = msm_resident(&uploaded, &DeviceScalars::upload(device, &scalars).unwrap()).unwrap();
        assert_eq!(run.window_bits, window_bits_for(n, wide), "{what}: n = {n}, {wide} wide");
        assert_eq!(run.sum, reference::<C>(&bases, &scalars), "{what}: n = {n}");
    }
}

fn msm_width_follows_the_wide_scalars(device: &Device, rng: &mut ChaCha20Rng) {
    for n in [1, 2, 3, 100, (1 << 16) + 1, (1 << 20) + 1] {
        width_case::<G1>(device, rng, n);
    }
    for n in [3, (1 << 12) + 1] {
        width_case::<G2>(device, rng, n);
    }
}

fn msm_empty_and_mismatched_inputs(device: &Device, rng: &mut ChaCha20Rng) {
    assert_eq!(msm_g1(device, &[], &[]).unwrap(), G1Projective::identity());
    let bases = random_points::<G1>(rng, 3);
    let err = msm_g1(device, &bases, &random_scalars(rng, 2)).unwrap_err();
    assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
    let zeros = vec![Scalar::ZERO; 3];
    assert_eq!(msm_g1(device, &bases, &zeros).unwrap(), G1Projective::identity());
}

/// MSMs over precomputed copies of the bases, against blst: every number of
/// copies from one up to one per window (asked for more), full and prefix
/// scalar lengths, and the small cases' edges (zero, one and minus-one
/// scalars, identity bases, repeated and opposite points).
fn table_case<C: TestCurve>(device: &Device, rng: &mut ChaCha20Rng, n: usize, copies: &[u32]) {
    let mut bases = random_points::<C>(rng, n);
    let mut random = random_scalars(rng, n);
    for i in 0..n {
        match rng.next_u32() % 8 {
            0 => random[i] = Scalar::ZERO,
            1 => random[i] = -Scalar::ONE,
            2 => bases[i] = C::A::identity(),
            3 if i > 0 => bases[i] = bases[i - 1],
            4 if i > 0 => bases[i] = (-bases[i - 1].to_curve()).to_affine(),
            _ => {}
        }
    }
    let bits = bit_heavy_scalars(rng, n);
    let resident = DeviceBases::<C>::upload(device, &bases).unwrap();
    for &k in copies {
        let table = MsmTable::build(&resident, k).unwrap_or_else(|e| panic!("table of {n} in {k} copies: {e}"));
        assert_eq!(table.bases(), n);
        assert_eq!(table.points() % n, 0, "whole copies");
        for m in [n, n / 2 + 1] {
            for (name, scalars) in [("random", &random[..m]), ("bit-heavy", &bits[..m])] {
                let on_device = DeviceScalars::upload(device, scalars).unwrap();
                let got =
                    msm_table(&table, &on_device).unwrap_or_else(|e| panic!("{name} {m} of {n}, {k} copies: {e}"));
                assert_eq!(got.sum, reference::<C>(&bases[..m], scalars), "{name}: {m} of {n} bases, {k} copies");
            }
        }
    }
}

fn msm_tables_match_blst(device: &Device, rng: &mut ChaCha20Rng) {
    for n in [1usize, 2, 3, 17, 257, (1 << 13) + 1] {
        table_case::<G1>(device, rng, n, &[1, 2, 3, 5, 64]);
    }
    table_case::<G1>(device, rng, (1 << 18) + 1, &[2, 64]);
    for n in [1usize, 3, 257, (1 << 10) + 1] {
        table_case::<G2>(device, rng, n, &[2, 64]);
    }
    let resident = DeviceBases::<G1>::upload(device, &random_points::<G1>(rng, 10)).unwrap();
    assert!(matches!(MsmTable::build(&resident, 0), Err(GpuError::InvalidInput(_))));
    let table = MsmTable::build(&resident, 3).unwrap();
    let too_many = DeviceScalars::upload(device, &random_scalars(rng, 11)).unwrap();
    assert!(matches!(msm_table(&table, &too_many), Err(GpuError::InvalidInput(_))));
}

fn msm_resident_prefixes_and_tiles(device: &Device, rng: &mut ChaCha20Rng) {
    let bases = random_points::<G1>(rng, 5000);
    let resident = DeviceBases::<G1>::upload(device, &bases).unwrap();
    assert_eq!(resident.len(), 5000);
    for n in [0usize, 1, 1000, 5000] {
        let scalars = random_scalars(rng, n);
        let got = msm_resident(&resident, &DeviceScalars::upload(device, &scalars).unwrap()).unwrap();
        assert_eq!(got.sum, reference::<G1>(&bases[..n], &scalars), "prefix of {n}");
    }
    let too_many = DeviceScalars::upload(device, &random_scalars(rng, 5001)).unwrap();
    assert!(matches!(msm_resident(&resident, &too_many), Err(GpuError::InvalidInput(_))));

    // Tiles of coprime periods.
    tiled_case::<G1>(device, &bases[..7], &random_scalars(rng, 5), 100_003, "tiles");
    let g2 = random_points::<G2>(rng, 3);
    let tiled_g2 = DeviceBases::<G2>::tiled(device, &g2, 10).unwrap();
    let ones = vec![u64::MAX >> 54];
    let sum: G2Projective = (0..10).map(|i| g2[i % 3].to_curve()).sum();
    assert_eq!(batch_add_resident(&tiled_g2, &ones).unwrap().sum, sum);
}

fn bitmap(rng: &mut ChaCha20Rng, n: usize, pattern: u32) -> Vec<u64> {
    let mut words = vec![0u64; n.div_ceil(64)];
    for i in 0..n {
        let set = match pattern {
            0 => false,
            1 => true,
            2 => rng.next_u32() % 2 == 0,
            3 => i < n / 2,
            _ => rng.next_u32() % 97 == 0,
        };
        if set {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    words
}

fn batch_case<C: TestCurve>(device: &Device, rng: &mut ChaCha20Rng, n: usize) {
    let mut bases = random_points::<C>(rng, n);
    if n > 10 {
        bases[n / 3] = C::A::identity();
        bases[n / 2] = bases[n / 2 - 1];
    }
    for pattern in 0..5 {
        let bits = bitmap(rng, n, pattern);
        let expected: C::P =
            (0..n).filter(|&i| (bits[i / 64] >> (i % 64)) & 1 == 1).map(|i| bases[i].to_curve()).sum();
        let got = batch_add::<C>(device, &bases, &bits).unwrap();
        assert_eq!(got, expected, "n = {n}, pattern {pattern}");
    }
}

fn batch_add_matches_naive_sum(device: &Device, rng: &mut ChaCha20Rng) {
    for n in [0, 1, 2, 63, 64, 65, 1000, (1 << 16) + 3, 1 << 20] {
        batch_case::<G1>(device, rng, n);
    }
    for n in [0, 1, 65, 5000, 1 << 16] {
        batch_case::<G2>(device, rng, n);
    }
}

/// One pass over `count` bitmaps end to end (as the host function sums a
/// batch's circuits), against the naive sum of each: every pattern of
/// `bitmap` and, in turn, bitmaps with no bit or one bit, so that thread
/// shares span several bitmaps and empty ones.
fn many_case<C: TestCurve>(device: &Device, rng: &mut ChaCha20Rng, n: usize, count: usize) {
    let bases = random_points::<C>(rng, n);
    let resident = DeviceBases::<C>::upload(device, &bases).unwrap();
    let maps: Vec<Vec<u64>> = (0..count)
        .map(|k| match k % 7 {
            5 => vec![0u64; n.div_ceil(64)],
            6 => {
                let mut one = vec![0u64; n.div_ceil(64)];
                let i = rng.next_u32() as usize % n;
                one[i / 64] |= 1 << (i % 64);
                one
            }
            p => bitmap(rng, n, p as u32),
        })
        .collect();
    let (got, _) = batch_add_resident_many(&resident, &maps.concat(), count).unwrap();
    for (k, bits) in maps.iter().enumerate() {
        let expected: C::P =
            (0..n).filter(|&i| (bits[i / 64] >> (i % 64)) & 1 == 1).map(|i| bases[i].to_curve()).sum();
        assert_eq!(got[k], expected, "n = {n}, bitmap {k} of {count}");
    }
}

fn batch_add_of_several_bitmaps_matches_each_alone(device: &Device, rng: &mut ChaCha20Rng) {
    for (n, count) in [(1, 3), (65, 10), (1000, 7), ((1 << 16) + 3, 10), (1 << 20, 3)] {
        many_case::<G1>(device, rng, n, count);
    }
    for (n, count) in [(65, 7), (5000, 10)] {
        many_case::<G2>(device, rng, n, count);
    }
    let bases = DeviceBases::<G1>::upload(device, &random_points::<G1>(rng, 70)).unwrap();
    for (words, count) in [(vec![0u64; 3], 2), (vec![0u64; 4], 0), (vec![0, 0, 0, 1 << 6], 2)] {
        let err = batch_add_resident_many(&bases, &words, count).unwrap_err();
        assert!(matches!(err, GpuError::InvalidInput(_)), "{words:?} as {count}: {err:?}");
    }
}

fn batch_add_rejects_bad_bitmaps(device: &Device, rng: &mut ChaCha20Rng) {
    let bases = random_points::<G1>(rng, 70);
    for bits in [vec![0u64; 1], vec![0u64; 3], vec![0, 1 << 6]] {
        let err = batch_add::<G1>(device, &bases, &bits).unwrap_err();
        assert!(matches!(err, GpuError::InvalidInput(_)), "{bits:?}: {err:?}");
    }
}

/// The MSM of n bases tiled from `bases` and scalars tiled from `scalars`
/// (base i is bases[i % B], scalar i is scalars[i % S]), against the sum
/// of each (base, scalar) pair times the number of times it occurs.
fn tiled_case<C: TestCurve>(device: &Device, bases: &[C::A], scalars: &[Scalar], n: usize, what: &str) {
    let mut counts = vec![vec![0u64; scalars.len()]; bases.len()];
    for i in 0..n {
        counts[i % bases.len()][i % scalars.len()] += 1;
    }
    let mut expected = C::P::identity();
    for (b, row) in counts.iter().enumerate() {
        for (s, &count) in row.iter().enumerate() {
            expected += bases[b].to_curve() * (scalars[s] * Scalar::from(count));
        }
    }
    let got = DeviceBases::<C>::tiled(device, bases, n)
        .and_then(|b| msm_resident(&b, &DeviceScalars::tiled(device, scalars, n)?))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.sum, expected, "{what}: n = {n}");
}

/// Large MSMs with few distinct scalars, so every bucket is one long run
/// cut across many threads. A single repeated base makes each thread's
/// second mixed addition a doubling (P + P), and equal shares make the
/// keyed sums add equal partial sums (doublings of full additions); seven
/// bases with the identity and a point beside its negation add identities
/// and cancel inside the runs.
fn msm_long_runs_of_repeated_points(device: &Device, rng: &mut ChaCha20Rng) {
    let mut seven = random_points::<G1>(rng, 7);
    seven[3] = G1Affine::identity();
    seven[5] = (-seven[2].to_curve()).to_affine();
    let five = random_scalars(rng, 5);
    for n in [1 << 22, (1 << 22) + 1] {
        tiled_case::<G1>(device, &seven[..1], &five[..3], n, "one base, G1");
        tiled_case::<G1>(device, &seven, &five, n, "seven bases, G1");
    }
    let mut g2 = random_points::<G2>(rng, 7);
    g2[3] = G2Affine::identity();
    g2[5] = (-g2[2].to_curve()).to_affine();
    tiled_case::<G2>(device, &g2[..1], &five[..3], (1 << 20) + 1, "one base, G2");
    tiled_case::<G2>(device, &g2, &five, (1 << 20) + 1, "seven bases, G2");
}

/// An MSM that cannot fit fails with OutOfMemory and leaves the device
/// usable: first a resident array larger than the device, then an MSM whose
/// temporaries no longer fit next to a resident array filling the device.
fn msm_out_of_memory_is_typed_and_recoverable(device: &Device, rng: &mut ChaCha20Rng) {
    let pattern = random_points::<G1>(rng, 16);
    let total = device.info().total_mem as usize;
    let err = DeviceBases::<G1>::tiled(device, &pattern, total / 96 + 1).err().expect("larger than the device");
    assert!(matches!(err, GpuError::OutOfMemory { .. }), "{err:?}");

    let n = 1 << 20;
    let bases = random_points::<G1>(rng, n);
    let scalars = random_scalars(rng, n);
    let expected = reference::<G1>(&bases, &scalars);
    let resident_bases = DeviceBases::<G1>::upload(device, &bases).unwrap();
    let resident_scalars = DeviceScalars::upload(device, &scalars).unwrap();
    let free = cuzk_gpu::devices().unwrap()[0].free_mem as usize;
    // Leave 512 MiB free: far less than the MSM's temporaries need.
    let hog = DeviceBases::<G1>::tiled(device, &pattern, free.saturating_sub(512 << 20) / 96).unwrap();
    let err = msm_resident(&resident_bases, &resident_scalars).unwrap_err();
    assert!(matches!(err, GpuError::OutOfMemory { .. }), "{err:?}");
    drop(hog);
    assert_eq!(msm_resident(&resident_bases, &resident_scalars).unwrap().sum, expected);
}
