//! Synthesis of the same circuit by cuzk (`ProvingAssignment::synthesize`),
//! by cuzk's recorded path (witness-only synthesis, the sparse products, and
//! both) and by bellperson 0.27 (the synthesis time its prover logs; it has
//! no public entry point for synthesis alone).
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use cuzk_benches::{peer_timing, Fixture, ProvingPair, BENCH_SEED, CRITERION_CASES};
use cuzk_synth::{ProvingAssignment, RecordedShape};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn synthesis(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(BENCH_SEED);
    for (workload, size) in CRITERION_CASES {
        let fixture = Fixture::new(workload, size, BENCH_SEED).expect("bench workload");
        // bellperson only synthesizes inside its prover, which needs parameters.
        let pair = ProvingPair::generate(&fixture, &mut rng).expect("setup");
        let mut group = c.benchmark_group(format!("synthesis/{workload}-{size}"));
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(fixture.constraints() as u64));
        group.bench_function("cuzk", |b| {
            b.iter_batched(
                || fixture.ours(),
                |circuit| ProvingAssignment::synthesize(circuit).expect("synthesis"),
                BatchSize::PerIteration,
            )
        });
        let (shape, _) = RecordedShape::record(fixture.ours()).expect("record");
        group.bench_function("recorded", |b| {
            b.iter_batched(
                || fixture.ours(),
                |circuit| shape.synthesize(circuit).expect("recorded synthesis"),
                BatchSize::PerIteration,
            )
        });
        group.bench_function("recorded-witness", |b| {
            b.iter_batched(
                || fixture.ours(),
                |circuit| shape.witness(circuit).expect("witness"),
                BatchSize::PerIteration,
            )
        });
        let witness = shape.witness(fixture.ours()).expect("witness");
        group.bench_function("recorded-spmv", |b| {
            b.iter_batched(
                || witness.clone(),
                |w| shape.evaluate(w).expect("evaluation"),
                BatchSize::PerIteration,
            )
        });
        group.bench_function("bellperson", |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        peer_timing::prove(fixture.peer(), &pair.bellperson, &mut rng)
                            .expect("prove")
                            .1
                            .synthesis
                    })
                    .sum::<Duration>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, synthesis);
criterion_main!(benches);
