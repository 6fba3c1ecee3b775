//! The engine end to end on the CPU backend (and stand-in devices built on
//! it), one module per theme; the fixtures they share are here.

/// `prove_witnesses` for a stand-in device that wraps a `CpuBackend` (the
/// field or index named) and takes no witnesses of its own: the engine never
/// hands it any, and if it did, the CPU backend would evaluate and prove them.
macro_rules! witnesses_on_the_cpu {
    ($cpu:tt) => {
        fn prove_witnesses(
            &self,
            p: &std::sync::Arc<cuzk_groth16::Parameters>,
            shape: &std::sync::Arc<cuzk_synth::RecordedShape<blstrs::Scalar>>,
            w: &[cuzk_synth::Witness<blstrs::Scalar>],
            r: &[(blstrs::Scalar, blstrs::Scalar)],
        ) -> Result<cuzk_pipeline::ProveOutput, cuzk_pipeline::BackendError> {
            self.$cpu.prove_witnesses(p, shape, w, r)
        }
    };
}

/// Stand-in devices: preparing, holding bases, taking witnesses.
mod devices;
/// Typed failures that stay contained.
mod errors;
/// Device faults: retries, retirement, device status.
mod faults;
/// Partitions checked against the verifier's public inputs.
mod inputs;
/// The memory budget.
mod memory;
/// Priority at memory admission and at the synthesis threads.
mod priority;
/// Recorded constraint systems.
mod recordings;
/// Order, priorities, caching, cancellation, several devices.
mod scheduling;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};


use blstrs::Scalar;
use cuzk_groth16::{prepare_verifying_key, verify_proof, Parameters};
use cuzk_pipeline::{Config, CpuBackend, Engine, Job, ProveBackend, RecordingStatus};
use cuzk_synth::workloads::Workload;

pub(crate) const SIZE: usize = 32;

/// Parameters for mul-chain 32, made once per test binary.
pub(crate) fn params() -> &'static (PathBuf, Parameters) {
    static P: OnceLock<(PathBuf, Parameters)> = OnceLock::new();
    P.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("cuzk-engine-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mul-chain-32.params");
        let circuit = Workload::MulChain.circuit::<Scalar>(SIZE, 0).unwrap();
        let params =
            cuzk_groth16::generate_random_parameters(circuit, &mut rand::thread_rng(), None).unwrap();
        let mut f = std::fs::File::create(&path).unwrap();
        params.write(&mut f).unwrap();
        (path, params)
    })
}

pub(crate) fn config(devices: usize) -> Config {
    Config {
        backends: Some(
            (0..devices).map(|i| Arc::new(CpuBackend::simulated(i)) as Arc<dyn ProveBackend>).collect(),
        ),
        synthesis_workers: 2,
        ..Config::default()
    }
}

/// A job of `n` mul-chain partitions and their expected public inputs.
pub(crate) fn job(path: &Path, n: usize, seed: u64) -> (Job, Vec<Vec<Scalar>>) {
    let mut job = Job::new(path);
    let mut inputs = Vec::new();
    for i in 0..n {
        let c = Workload::MulChain.circuit::<Scalar>(SIZE, seed * 100 + i as u64).unwrap();
        inputs.push(c.public_inputs());
        job = job.partition(c);
    }
    (job, inputs)
}

pub(crate) fn assert_verifies(proofs: &[cuzk_groth16::Proof], inputs: &[Vec<Scalar>]) {
    let pvk = prepare_verifying_key(&params().1.vk).unwrap();
    assert_eq!(proofs.len(), inputs.len());
    for (i, (p, x)) in proofs.iter().zip(inputs).enumerate() {
        assert!(verify_proof(&pvk, p, x).unwrap(), "proof {i} does not verify");
    }
}

/// A shared in-memory timeline.
#[derive(Clone, Default)]
pub(crate) struct Buf(Arc<Mutex<Vec<u8>>>);
impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
impl Buf {
    pub(crate) fn events(&self) -> Vec<serde_json::Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

/// One synthesis worker, so partitions synthesize one after another.
pub(crate) fn sequential(dir: Option<PathBuf>) -> Config {
    Config { synthesis_workers: 1, recordings_dir: dir, ..config(1) }
}

pub(crate) fn only_recording(engine: &Engine) -> RecordingStatus {
    let status = engine.recordings();
    assert_eq!(status.len(), 1, "{status:?}");
    status[0].clone()
}

/// The most partitions held at once according to a timeline: from the start
/// of their synthesis to the end of the call that proved them.
pub(crate) fn peak_partitions_held(timeline: &Buf) -> i64 {
    let mut live = 0i64;
    let mut peak = 0i64;
    for e in timeline.events() {
        match e["event"].as_str().unwrap() {
            "synth_start" => live += 1,
            "prove_end" => live -= e["partitions"].as_array().unwrap().len() as i64,
            _ => {}
        }
        peak = peak.max(live);
    }
    peak
}
