//! The CPU prover after synthesis, on the same circuit and parameters: cuzk's
//! `prove` on a synthesized assignment, bellperson 0.27's logged prover time.
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use cuzk_benches::{peer_timing, Fixture, ProvingPair, BENCH_SEED, CRITERION_CASES};
use cuzk_groth16::{prove, random_nonzero_scalar};
use cuzk_synth::ProvingAssignment;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn cpu_prove(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(BENCH_SEED);
    for (workload, size) in CRITERION_CASES {
        let fixture = Fixture::new(workload, size, BENCH_SEED).expect("bench workload");
        let pair = ProvingPair::generate(&fixture, &mut rng).expect("setup");
        let assignment = [ProvingAssignment::synthesize(fixture.ours()).expect("synthesis")];
        let mut group = c.benchmark_group(format!("cpu-prove/{workload}-{size}"));
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(fixture.constraints() as u64));
        group.bench_function("cuzk", |b| {
            b.iter(|| {
                let rs = [(
                    random_nonzero_scalar(&mut rng),
                    random_nonzero_scalar(&mut rng),
                )];
                prove(&pair.cuzk, &assignment, &rs).expect("prove")
            })
        });
        group.bench_function("bellperson", |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        peer_timing::prove(fixture.peer(), &pair.bellperson, &mut rng)
                            .expect("prove")
                            .1
                            .prove
                    })
                    .sum::<Duration>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, cpu_prove);
criterion_main!(benches);
