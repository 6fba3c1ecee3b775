//! Partitions that carry the verifier's public inputs: a partition whose
//! synthesized inputs differ fails its job typed, before any device sees
//! it, gives its bytes back, and the engine goes on; in each synthesis path.

use std::path::Path;
use std::sync::Arc;

use blstrs::Scalar;
use cuzk_pipeline::{Config, Engine, EngineError, Job, ProveBackend, SynthesisMode};
use cuzk_synth::workloads::Workload;
use cuzk_synth::RecordedShape;

use crate::devices::WitnessTaking;
use crate::{assert_verifies, config, params, Buf, SIZE};

/// Changes what partition `i` expects.
type Tamper = Box<dyn Fn(usize, &mut Vec<Scalar>)>;

/// A job of `n` mul-chain partitions, each expecting its inputs after
/// `tamper` changed them (partition index, inputs).
fn expecting(path: &Path, n: usize, seed: u64, tamper: impl Fn(usize, &mut Vec<Scalar>)) -> (Job, Vec<Vec<Scalar>>) {
    let mut job = Job::new(path);
    let mut honest = Vec::new();
    for i in 0..n {
        let c = Workload::MulChain.circuit::<Scalar>(SIZE, seed * 100 + i as u64).unwrap();
        let mut inputs = c.public_inputs();
        honest.push(inputs.clone());
        tamper(i, &mut inputs);
        job = job.partition_expecting(c, inputs);
    }
    (job, honest)
}

/// The engines of the three synthesis paths, each with room for the
/// parameters, a recording and one partition at a time: a partition whose
/// bytes were not given back would stall every later job.
fn engines() -> Vec<(&'static str, Engine, Buf)> {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = Engine::partition_bytes(params);
    let recording = RecordedShape::record(Workload::MulChain.circuit::<Scalar>(SIZE, 0).unwrap()).unwrap().0;
    let budget = file_len + recording.heap_bytes() as u64 + one + one / 2;
    let witness_taking: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(WitnessTaking::new(std::time::Duration::ZERO))];
    let configs = [
        ("classic", Config { synthesis: SynthesisMode::Classic, ..config(1) }),
        ("recorded, a, b, c on the CPU", Config { synthesis: SynthesisMode::Recorded, ..config(1) }),
        ("recorded, witnesses to the device", Config { backends: Some(witness_taking), ..config(1) }),
    ];
    configs
        .into_iter()
        .map(|(what, cfg)| {
            let timeline = Buf::default();
            let cfg = Config { memory_budget: budget, timeline: Some(Box::new(timeline.clone())), ..cfg };
            (what, Engine::new(cfg).unwrap(), timeline)
        })
        .collect()
}

#[test]
fn inputs_other_than_the_verifiers_fail_the_job_typed_before_any_device_and_the_engine_goes_on() {
    let (path, _) = params();
    for (what, engine, timeline) in engines() {
        // Twice, so the second round runs against the recording the first made.
        for round in 0..2u64 {
            let seed = 80 + round * 10;
            let (good, inputs) = expecting(path, 2, seed, |_, _| {});
            let r = engine.submit(good).unwrap().wait().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_verifies(&r.proofs, &inputs);

            // A wrong value in partition 1, then one input too many in partition 0.
            let cases: [(usize, usize, Tamper); 2] = [
                (1, 0, Box::new(|i, x: &mut Vec<Scalar>| if i == 1 { x[0] += Scalar::from(1u64) })),
                (0, 1, Box::new(|i, x: &mut Vec<Scalar>| if i == 0 { x.push(Scalar::from(7u64)) })),
            ];
            for (n, (partition, index, tamper)) in cases.into_iter().enumerate() {
                let (bad, _) = expecting(path, 2, seed + 1 + n as u64, tamper);
                let handle = engine.submit(bad).unwrap();
                let id = handle.id();
                match handle.wait() {
                    Err(EngineError::PublicInputs { job, partition: p, index: i, expected, synthesized }) => {
                        assert_eq!((job, p, i), (id, partition, index), "{what}");
                        assert_eq!((expected, synthesized), (1 + index, 1), "{what}");
                    }
                    other => panic!("{what}: expected a public-inputs error, got {other:?}"),
                }
                let proved = timeline.events().into_iter().any(|e| {
                    let parts = e["partitions"].as_array().unwrap();
                    e["event"] == "prove_start" && e["job"] == id && parts.iter().any(|p| p == partition)
                });
                assert!(!proved, "{what}: job {id}'s failing partition reached a device");
            }

            let (after, inputs) = expecting(path, 2, seed + 5, |_, _| {});
            let r = engine.submit(after).unwrap().wait().unwrap_or_else(|e| panic!("{what}, after the failures: {e}"));
            assert_verifies(&r.proofs, &inputs);
        }
    }
}

#[test]
fn the_error_names_the_job_the_partition_and_the_index() {
    let err = EngineError::PublicInputs { job: 4, partition: 2, index: 17, expected: 132, synthesized: 132 };
    let text = err.to_string();
    for part in ["job 4", "partition 2", "public input 17", "132"] {
        assert!(text.contains(part), "`{part}` missing from {text}");
    }
    assert_eq!(err.unsatisfied_constraint(), None);
    assert!(!err.is_out_of_memory());
}
