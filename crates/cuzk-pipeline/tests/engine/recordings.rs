use std::path::Path;

use blstrs::Scalar;
use cuzk_pipeline::{Config, Engine, Job, RecordingStatus, SynthesisMode};
use cuzk_synth::workloads::Workload;
use cuzk_synth::RecordedShape;

use crate::{assert_verifies, job, only_recording, params, sequential, SIZE};

#[test]
fn recorded_synthesis_records_once_then_runs_witness_only() {
    let (path, _) = params();
    let engine = Engine::new(sequential(None)).unwrap();
    let (j, inputs) = job(path, 3, 7);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    let t = &r.timings;
    assert!(t.stage("synth_record_ms").is_some(), "the first partition records: {:?}", t.stages);
    assert!(t.stage("synth_witness_ms").is_some() && t.stage("synth_spmv_ms").is_some(), "{:?}", t.stages);
    assert_eq!(t.stage("synth_classic_ms"), None, "{:?}", t.stages);
    assert!(only_recording(&engine).outcome.contains("kept in memory"));

    let (j, inputs) = job(path, 2, 8);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert_eq!(r.timings.stage("synth_record_ms"), None, "a later job reuses the recording");
}

#[test]
fn classic_synthesis_records_nothing() {
    let (path, _) = params();
    let engine = Engine::new(Config { synthesis: SynthesisMode::Classic, ..sequential(None) }).unwrap();
    let (j, inputs) = job(path, 2, 9);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(r.timings.stage("synth_classic_ms").is_some());
    assert_eq!(r.timings.stage("synth_witness_ms"), None);
    assert!(engine.recordings().is_empty());
}

/// Runs one job of two partitions on a fresh engine that keeps recordings in
/// `dir`, waits until a fresh recording is saved, and returns the job's stage
/// names and the recording's status.
fn run_with_recordings(dir: &Path, seed: u64) -> (Vec<String>, RecordingStatus) {
    let (path, _) = params();
    let engine = Engine::new(sequential(Some(dir.to_path_buf()))).unwrap();
    let (j, inputs) = job(path, 2, seed);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    engine.finish_recordings();
    (r.timings.stages.iter().map(|(n, _)| n.clone()).collect(), only_recording(&engine))
}

#[test]
fn recordings_persist_and_a_corrupt_file_is_recorded_again() {
    let dir = std::env::temp_dir().join(format!("cuzk-recordings-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);

    let (stages, status) = run_with_recordings(&dir, 10);
    assert!(stages.contains(&"synth_record_ms".to_string()), "{stages:?}");
    assert!(status.outcome.contains("saved to"), "{status:?}");
    let file = status.file.clone().expect("a directory gives the recording a file");
    assert!(file.starts_with(&dir) && file.exists());

    let (stages, status) = run_with_recordings(&dir, 11);
    assert!(stages.contains(&"synth_load_ms".to_string()), "{stages:?}");
    assert!(!stages.contains(&"synth_record_ms".to_string()), "{stages:?}");
    assert!(!stages.contains(&"synth_classic_ms".to_string()), "partitions wait for the load: {stages:?}");
    assert!(status.outcome.starts_with("loaded from"), "{status:?}");

    // A preload loads the recording before any job: no partition loads or records.
    let engine = Engine::new(Config { synthesis_workers: 2, ..sequential(Some(dir.clone())) }).unwrap();
    assert!(engine.preload(&params().0).unwrap() > 0.0);
    assert!(only_recording(&engine).outcome.starts_with("loaded from"), "{:?}", engine.recordings());
    let (j, inputs) = job(&params().0, 3, 16);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    let names: Vec<&str> = r.timings.stages.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"synth_witness_ms") && !names.contains(&"synth_load_ms"), "{names:?}");
    assert!(!names.contains(&"synth_classic_ms") && !names.contains(&"synth_record_ms"), "{names:?}");
    drop(engine);

    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&file, bytes).unwrap();
    let (stages, status) = run_with_recordings(&dir, 12);
    assert!(stages.contains(&"synth_record_ms".to_string()), "{stages:?}");
    assert!(status.outcome.contains("saved to"), "the bad file is replaced: {status:?}");
    let (stages, _) = run_with_recordings(&dir, 13);
    assert!(stages.contains(&"synth_load_ms".to_string()), "{stages:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_circuit_that_does_not_fit_its_parameters_is_never_recorded() {
    let (path, _) = params();
    let engine = Engine::new(sequential(None)).unwrap();
    let wrong = Job::new(path).partition(Workload::MulChain.circuit::<Scalar>(2 * SIZE, 1).unwrap());
    assert!(engine.submit(wrong).unwrap().wait().is_err(), "a circuit of another size cannot prove");
    assert!(only_recording(&engine).outcome.starts_with("not recorded"), "{:?}", engine.recordings());
    let (j, inputs) = job(path, 2, 14);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(r.timings.stage("synth_record_ms").is_some(), "the right circuit records: {:?}", r.timings.stages);
}

/// Mul-chain 32 with its constant one greater: the same inputs, aux
/// variables and allocation order, other constraints.
struct OtherConstant(cuzk_synth::workloads::MulChain<Scalar>);

impl cuzk_synth::Circuit<Scalar> for OtherConstant {
    fn synthesize<CS: cuzk_synth::ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), cuzk_synth::SynthesisError> {
        let c = self.0.constant() + Scalar::from(1u64);
        let mut value = self.0.x0();
        let mut x = cs.alloc(|| "x 0", || Ok(value))?;
        for i in 1..=self.0.len() {
            value *= value + c;
            let next = if i == self.0.len() { cs.alloc_input(|| "x", || Ok(value))? } else { cs.alloc(|| "x", || Ok(value))? };
            cs.enforce(|| "step", |lc| lc + x, |lc| lc + x + (c, CS::one()), |lc| lc + next);
            x = next;
        }
        Ok(())
    }
}

#[test]
fn a_recording_of_another_circuit_with_equal_counts_is_replaced() {
    let dir = std::env::temp_dir().join(format!("cuzk-recordings-misfit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (_, status) = run_with_recordings(&dir, 60);
    let file = status.file.clone().expect("a directory gives the recording a file");
    let right = RecordedShape::<Scalar>::load(&file).unwrap().digest();

    // A well-formed file (its checksum passes) of another circuit with the
    // parameters' counts, where the right recording was.
    let other = RecordedShape::record(OtherConstant(cuzk_synth::workloads::MulChain::new(SIZE, 0))).unwrap().0;
    let (counts, right_counts) = (
        (other.num_inputs(), other.num_aux(), other.num_constraints()),
        RecordedShape::<Scalar>::load(&file).map(|s| (s.num_inputs(), s.num_aux(), s.num_constraints())).unwrap(),
    );
    assert_eq!(counts, right_counts, "the stand-in must pass the count checks");
    assert_ne!(other.digest(), right);
    other.save(&file).unwrap();

    // The first job meets the misfit: its partition fails against the loaded
    // file (one partition, so no later partition can have re-recorded yet).
    let engine = Engine::new(sequential(Some(dir.clone()))).unwrap();
    let (j, _) = job(&params().0, 1, 61);
    let failed = engine.submit(j).unwrap().wait().expect_err("a witness against another circuit's rows fails");
    let outcome = only_recording(&engine).outcome;
    assert!(
        outcome.contains(&file.display().to_string()) && outcome.contains("does not fit"),
        "the outcome names the file and says why ({failed}): {outcome}"
    );
    // Every later job proves, the first recording again, and the file is replaced.
    for seed in [62, 63] {
        let (j, inputs) = job(&params().0, 2, seed);
        let r = engine.submit(j).unwrap().wait().unwrap();
        assert_verifies(&r.proofs, &inputs);
        let recorded = r.timings.stage("synth_record_ms").is_some();
        assert_eq!(recorded, seed == 62, "only the first job after the misfit records: {:?}", r.timings.stages);
    }
    engine.finish_recordings();
    let outcome = only_recording(&engine).outcome;
    assert!(outcome.contains("replaced") && outcome.contains(&file.display().to_string()), "{outcome}");
    assert_eq!(RecordedShape::<Scalar>::load(&file).unwrap().digest(), right, "the file holds the right circuit again");
    drop(engine);

    // A fresh engine loads the replaced file and proves with it.
    let (stages, status) = run_with_recordings(&dir, 64);
    assert!(stages.contains(&"synth_load_ms".to_string()) && !stages.contains(&"synth_record_ms".to_string()), "{stages:?}");
    assert!(status.outcome.starts_with("loaded from"), "{status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
