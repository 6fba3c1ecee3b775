//! The engine on the GPU: `Engine` with `BackendChoice::Cuda` proves the
//! same jobs as the engine on the CPU backend under the same `rng_seed`,
//! and every proof must be byte for byte the CPU's (and verify), with
//! classic and recorded synthesis (after the recording, a, b, c come from
//! the witness on the device), single partitions and batches. A job that
//! fails (an unsatisfied witness) fails typed and alone: the next job on
//! the same engine proves and verifies.
//!
//! The randomness is drawn from the seed in the order partitions are
//! proved, so both engines run one synthesis worker and each job is waited
//! for before the next is submitted: partition k of the run gets pair k
//! whichever batches the prove worker forms.
//!
//! The custom harness of cuzk-gpu's device tests: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU).

#[path = "../../cuzk-gpu/tests/harness/mod.rs"]
mod harness;

use std::path::{Path, PathBuf};

use blstrs::Scalar;
use cuzk_gpu::Device;
use cuzk_groth16::{generate_random_parameters, prepare_verifying_key, verify_proof, Parameters};
use cuzk_pipeline::{BackendChoice, BackendError, Config, Engine, EngineError, Job, JobResult, SynthesisMode};
use cuzk_synth::workloads::MulChain;
use cuzk_synth::{RecordedShape, SynthesisError};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("classic_jobs_match_the_cpu_engine", classic_jobs_match_the_cpu_engine),
    ("recorded_jobs_match_the_cpu_engine", recorded_jobs_match_the_cpu_engine),
    ("an_unsatisfied_witness_fails_its_job_then_the_next_proves", an_unsatisfied_witness_fails_its_job_then_the_next_proves),
];

fn main() {
    harness::run("GPU engine", TESTS)
}

const SIZE: usize = 1000;

/// Parameters for mul-chain SIZE, written to a file of this process.
struct ParamsFile {
    path: PathBuf,
    params: Parameters,
}

impl ParamsFile {
    fn new(rng: &mut ChaCha20Rng, name: &str) -> ParamsFile {
        let dir = std::env::temp_dir().join(format!("cuzk-gpu-engine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.params"));
        let params = generate_random_parameters(MulChain::<Scalar>::new(SIZE, rng.next_u64()), rng, None).unwrap();
        params.write(&mut std::fs::File::create(&path).unwrap()).unwrap();
        ParamsFile { path, params }
    }

    fn verify(&self, what: &str, result: &JobResult, seeds: &[u64]) {
        let pvk = prepare_verifying_key(&self.params.vk).unwrap();
        assert_eq!(result.proofs.len(), seeds.len(), "{what}: proof count");
        for (i, (proof, &seed)) in result.proofs.iter().zip(seeds).enumerate() {
            let inputs = MulChain::<Scalar>::new(SIZE, seed).public_inputs();
            assert!(verify_proof(&pvk, proof, &inputs).unwrap(), "{what}: proof {i} does not verify");
        }
    }
}

impl Drop for ParamsFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn engine(backend: BackendChoice, synthesis: SynthesisMode, seed: u64, self_check: bool) -> Engine {
    Engine::new(Config {
        backend,
        synthesis,
        rng_seed: Some(seed),
        synthesis_workers: 1,
        max_batch: 4,
        self_check,
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("engine on {backend}: {e}"))
}

fn job(path: &Path, seeds: &[u64]) -> Job {
    seeds.iter().fold(Job::new(path), |job, &s| job.partition(MulChain::<Scalar>::new(SIZE, s)))
}

/// The jobs of a run: one partition, then batches.
const JOB_SIZES: [usize; 3] = [1, 4, 3];

/// Runs the same jobs on a CPU engine and a GPU engine (same seed, same
/// mode) and compares them proof by proof; returns the GPU's results.
fn compare(device: &Device, rng: &mut ChaCha20Rng, synthesis: SynthesisMode) -> Vec<JobResult> {
    let file = ParamsFile::new(rng, &format!("{synthesis:?}"));
    let seed = rng.next_u64();
    let jobs: Vec<Vec<u64>> = JOB_SIZES.iter().map(|&n| (0..n).map(|_| rng.next_u64()).collect()).collect();
    let gpu_choice = BackendChoice::Cuda(Some(device.id() as u32));
    let run = |choice: BackendChoice| -> Vec<JobResult> {
        let engine = engine(choice, synthesis, seed, false);
        jobs.iter()
            .enumerate()
            .map(|(j, seeds)| {
                let r = engine.submit(job(&file.path, seeds)).unwrap().wait();
                let r = r.unwrap_or_else(|e| panic!("{synthesis:?} job {j} on {choice}: {e}"));
                if j == 0 {
                    // The next jobs use the recording (recorded mode).
                    engine.finish_recordings();
                }
                r
            })
            .collect()
    };
    let cpu = run(BackendChoice::Cpu);
    let gpu = run(gpu_choice);
    for (j, ((c, g), seeds)) in cpu.iter().zip(&gpu).zip(&jobs).enumerate() {
        let what = format!("{synthesis:?} job {j} ({} partitions)", seeds.len());
        assert_eq!(c.backend, "cpu", "{what}");
        assert_eq!(g.backend, format!("cuda:{}", device.id()), "{what}");
        file.verify(&what, g, seeds);
        for (i, (pc, pg)) in c.proofs.iter().zip(&g.proofs).enumerate() {
            assert_eq!(pg.to_bytes(), pc.to_bytes(), "{what}: proof {i} on the GPU differs from the CPU engine's");
        }
    }
    gpu
}

fn classic_jobs_match_the_cpu_engine(device: &Device, rng: &mut ChaCha20Rng) {
    compare(device, rng, SynthesisMode::Classic);
}

fn recorded_jobs_match_the_cpu_engine(device: &Device, rng: &mut ChaCha20Rng) {
    let gpu = compare(device, rng, SynthesisMode::Recorded);
    // After the recording the GPU takes witnesses: witness-only synthesis
    // on the host, the sparse products on the device.
    for (j, r) in gpu.iter().enumerate().skip(1) {
        assert!(r.timings.stage("synth_witness_ms").is_some(), "job {j}: no witness-only synthesis: {:?}", r.timings.stages);
        assert!(r.timings.stage("synth_spmv_ms").is_none(), "job {j}: products on the host: {:?}", r.timings.stages);
    }
}

/// mul-chain `SIZE` whose witness fails the row in the middle.
fn lying(seed: u64) -> MulChain<Scalar> {
    MulChain::new(SIZE, seed).with_wrong_value_at(SIZE / 2)
}

/// Recorded synthesis finds the lie on the device (the typed row the CPU
/// names); classic synthesis checks no row, so only the self-check can
/// refuse the proof. Either way the next job proves and verifies.
fn an_unsatisfied_witness_fails_its_job_then_the_next_proves(device: &Device, rng: &mut ChaCha20Rng) {
    let file = ParamsFile::new(rng, "lying");
    let row = match RecordedShape::record(MulChain::<Scalar>::new(SIZE, 0)).unwrap().0.synthesize(lying(1)) {
        Err(SynthesisError::UnsatisfiedConstraint(row)) => row,
        other => panic!("the lying chain must fail a row on the CPU, got {:?}", other.map(|_| ())),
    };
    let choice = BackendChoice::Cuda(Some(device.id() as u32));
    for (synthesis, self_check) in [(SynthesisMode::Recorded, false), (SynthesisMode::Classic, true)] {
        let what = format!("{synthesis:?}");
        let engine = engine(choice, synthesis, rng.next_u64(), self_check);
        let honest: Vec<u64> = (0..2).map(|_| rng.next_u64()).collect();
        let r = engine.submit(job(&file.path, &honest)).unwrap().wait().unwrap_or_else(|e| panic!("{what}: {e}"));
        file.verify(&format!("{what}: before"), &r, &honest);
        engine.finish_recordings();

        let lie = job(&file.path, &[rng.next_u64()]).partition(lying(rng.next_u64()));
        let err = match engine.submit(lie).unwrap().wait() {
            Err(e) => e,
            Ok(_) => panic!("{what}: a job with an unsatisfied witness proved"),
        };
        match synthesis {
            SynthesisMode::Recorded => assert_eq!(err.unsatisfied_constraint(), Some(row), "{what}: {err:?}"),
            SynthesisMode::Classic => assert!(
                matches!(err, EngineError::Prove { source: BackendError::SelfCheck { .. }, .. }),
                "{what}: expected the self-check to refuse it, got {err:?}"
            ),
        }
        assert!(!err.is_out_of_memory(), "{what}: {err:?}");

        let after: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        let r = engine.submit(job(&file.path, &after)).unwrap().wait().unwrap_or_else(|e| panic!("{what}: after: {e}"));
        assert_eq!(r.backend, format!("cuda:{}", device.id()), "{what}");
        file.verify(&format!("{what}: after the failed job"), &r, &after);
    }
}
