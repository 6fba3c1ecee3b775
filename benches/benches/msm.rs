//! cuzk's CPU multi-scalar multiplication next to blst's multi-threaded
//! Pippenger (through blstrs' `multi_exp`) on random 255-bit scalars, the case
//! that dominates mul-chain proofs. blstrs takes projective bases and converts
//! them to affine inside the call; that conversion is included in its figure.
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use cuzk_benches::BENCH_SEED;
use cuzk_groth16::msm::msm;
use ff::Field;
use group::prime::{PrimeCurve, PrimeCurveAffine};
use group::{Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// n distinct points R, R+Q, R+2Q, …: a walk is as good as random points for
/// an MSM and costs one addition per point instead of a scalar multiplication.
fn walk<G: Group + Curve>(rng: &mut ChaCha20Rng, n: usize) -> Vec<G> {
    let step = G::random(&mut *rng);
    std::iter::successors(Some(G::random(&mut *rng)), |p| Some(*p + step))
        .take(n)
        .collect()
}

fn affine<G: PrimeCurve>(points: &[G]) -> Vec<G::Affine> {
    let mut out = vec![G::Affine::identity(); points.len()];
    G::batch_normalize(points, &mut out);
    out
}

fn msm_g1_g2(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(BENCH_SEED);
    let mut group = c.benchmark_group("cpu-msm");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for log_n in [16, 20] {
        let n = 1usize << log_n;
        let scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let points: Vec<G1Projective> = walk(&mut rng, n);
        let bases: Vec<G1Affine> = affine(&points);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("g1/cuzk", log_n), &n, |b, _| {
            b.iter(|| msm::<G1Projective>(&bases, &scalars).expect("msm"))
        });
        group.bench_with_input(BenchmarkId::new("g1/blst", log_n), &n, |b, _| {
            b.iter(|| G1Projective::multi_exp(&points, &scalars))
        });
    }
    for log_n in [16, 18] {
        let n = 1usize << log_n;
        let scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let points: Vec<G2Projective> = walk(&mut rng, n);
        let bases: Vec<G2Affine> = affine(&points);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("g2/cuzk", log_n), &n, |b, _| {
            b.iter(|| msm::<G2Projective>(&bases, &scalars).expect("msm"))
        });
        group.bench_with_input(BenchmarkId::new("g2/blst", log_n), &n, |b, _| {
            b.iter(|| G2Projective::multi_exp(&points, &scalars))
        });
    }
    group.finish();
}

criterion_group!(benches, msm_g1_g2);
criterion_main!(benches);
