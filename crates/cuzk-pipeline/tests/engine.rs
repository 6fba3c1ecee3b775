//! The engine end to end on the CPU backend: order, caching, priorities,
//! memory bounds, cancellation, failures that stay contained, several devices.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use blstrs::Scalar;
use cuzk_groth16::{prepare_verifying_key, verify_proof, Parameters};
use cuzk_pipeline::{
    Config, CpuBackend, Engine, EngineError, Job, Priority, ProveBackend, ProveOutput, RecordingStatus,
    SynthesisMode,
};
use cuzk_synth::workloads::Workload;
use cuzk_synth::{ProvingAssignment, RecordedShape, SynthesisError, Witness};

const SIZE: usize = 32;

/// Parameters for mul-chain 32, made once per test binary.
fn params() -> &'static (PathBuf, Parameters) {
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

fn config(devices: usize) -> Config {
    Config {
        backends: Some(
            (0..devices).map(|i| Arc::new(CpuBackend::simulated(i)) as Arc<dyn ProveBackend>).collect(),
        ),
        synthesis_workers: 2,
        ..Config::default()
    }
}

/// A job of `n` mul-chain partitions and their expected public inputs.
fn job(path: &Path, n: usize, seed: u64) -> (Job, Vec<Vec<Scalar>>) {
    let mut job = Job::new(path);
    let mut inputs = Vec::new();
    for i in 0..n {
        let c = Workload::MulChain.circuit::<Scalar>(SIZE, seed * 100 + i as u64).unwrap();
        inputs.push(c.public_inputs());
        job = job.partition(c);
    }
    (job, inputs)
}

fn assert_verifies(proofs: &[cuzk_groth16::Proof], inputs: &[Vec<Scalar>]) {
    let pvk = prepare_verifying_key(&params().1.vk).unwrap();
    assert_eq!(proofs.len(), inputs.len());
    for (i, (p, x)) in proofs.iter().zip(inputs).enumerate() {
        assert!(verify_proof(&pvk, p, x).unwrap(), "proof {i} does not verify");
    }
}

/// A shared in-memory timeline.
#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);
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
    fn events(&self) -> Vec<serde_json::Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

#[test]
fn proofs_come_back_in_partition_order_and_verify() {
    let (path, _) = params();
    let engine = Engine::new(config(1)).unwrap();
    let (j, inputs) = job(path, 3, 1);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_eq!(r.backend, "cpu:0");
    assert_verifies(&r.proofs, &inputs);
    assert!(r.timings.total_ms >= r.timings.queue_ms);
    assert!(r.timings.synth_ms > 0.0 && r.timings.prove_ms > 0.0);
    assert_eq!(r.timings.stage("call_ms"), Some(r.timings.prove_ms));
    assert!(r.timings.stage("ntt_ms").is_some(), "the CPU backend's own stages: {:?}", r.timings.stages);
}

#[test]
fn parameters_load_once_and_later_jobs_hit_the_cache() {
    let (path, _) = params();
    let engine = Engine::new(config(1)).unwrap();
    let first = engine.submit(job(path, 1, 2).0).unwrap().wait().unwrap();
    let second = engine.submit(job(path, 1, 3).0).unwrap().wait().unwrap();
    assert!(first.timings.srs_ms > 0.0, "the first job loads the parameters");
    assert_eq!(second.timings.srs_ms, 0.0, "the second job finds them resident");
}

/// A CPU device that counts how often it is prepared for parameters, and
/// can refuse to be.
struct Preparing {
    cpu: CpuBackend,
    prepared: Arc<Mutex<usize>>,
    refuse: bool,
}
impl ProveBackend for Preparing {
    fn name(&self) -> String {
        self.cpu.name()
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        self.cpu.prove(p, a, r)
    }
    fn prepare(&self, _: &Arc<Parameters>) -> Result<(), String> {
        *self.prepared.lock().unwrap() += 1;
        if self.refuse {
            return Err("injected: no room for the SRS".into());
        }
        Ok(())
    }
}

#[test]
fn preloading_prepares_every_device_once_before_any_job() {
    let (path, _) = params();
    let counts: Vec<Arc<Mutex<usize>>> = (0..2).map(|_| Arc::default()).collect();
    let mut cfg = config(2);
    cfg.backends = Some(
        counts
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Arc::new(Preparing { cpu: CpuBackend::simulated(i), prepared: c.clone(), refuse: false })
                    as Arc<dyn ProveBackend>
            })
            .collect(),
    );
    let engine = Engine::new(cfg).unwrap();
    assert!(engine.preload(path).unwrap() > 0.0, "the first preload loads");
    assert_eq!(engine.preload(path).unwrap(), 0.0, "the second finds the parameters resident");
    let (j, inputs) = job(path, 3, 4);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert_eq!(r.timings.srs_ms, 0.0, "a job after a preload does not wait for parameters");
    for c in &counts {
        assert_eq!(*c.lock().unwrap(), 1, "each device is prepared once per load");
    }
}

#[test]
fn a_device_that_cannot_take_the_parameters_fails_the_load_and_the_jobs() {
    let (path, _) = params();
    let mut cfg = config(1);
    cfg.backends =
        Some(vec![Arc::new(Preparing { cpu: CpuBackend::simulated(0), prepared: Arc::default(), refuse: true })]);
    let engine = Engine::new(cfg).unwrap();
    match engine.preload(path) {
        Err(EngineError::Params { message, .. }) => assert!(message.contains("cpu:0: injected"), "{message}"),
        other => panic!("expected a params error, got {other:?}"),
    }
    assert_eq!(engine.memory_in_use(), 0, "a failed load gives its reservation back");
    match engine.submit(job(path, 1, 5).0).unwrap().wait() {
        Err(EngineError::Params { message, .. }) => assert!(message.contains("injected"), "{message}"),
        other => panic!("expected a params error, got {other:?}"),
    }
}

/// One synthesis worker, so partitions synthesize one after another.
fn sequential(dir: Option<PathBuf>) -> Config {
    Config { synthesis_workers: 1, recordings_dir: dir, ..config(1) }
}

fn only_recording(engine: &Engine) -> RecordingStatus {
    let status = engine.recordings();
    assert_eq!(status.len(), 1, "{status:?}");
    status[0].clone()
}

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

/// A CPU device that takes witnesses, as the CUDA backend does (which
/// computes a, b, c on its GPU), counting the partitions that reach it as
/// witnesses and as assignments, and the shapes it was asked to prepare
/// (by address); it refuses witnesses of a shape it was not given first.
struct WitnessTaking {
    cpu: CpuBackend,
    witnesses: Arc<Mutex<usize>>,
    assignments: Arc<Mutex<usize>>,
    prepared: Arc<Mutex<Vec<usize>>>,
    /// Sleeps this long in each call, so that synthesized partitions queue.
    delay: std::time::Duration,
}

impl WitnessTaking {
    fn new(delay: std::time::Duration) -> Self {
        WitnessTaking { cpu: CpuBackend::new(), witnesses: Arc::default(), assignments: Arc::default(), prepared: Arc::default(), delay }
    }
}
impl ProveBackend for WitnessTaking {
    fn name(&self) -> String {
        self.cpu.name()
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        *self.assignments.lock().unwrap() += a.len();
        self.cpu.prove(p, a, r)
    }
    fn takes_witnesses(&self) -> bool {
        true
    }
    fn prove_witnesses(
        &self,
        p: &Arc<Parameters>,
        shape: &Arc<RecordedShape<Scalar>>,
        w: &[Witness<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        if !self.prepared.lock().unwrap().contains(&(Arc::as_ptr(shape) as usize)) {
            return Err("witnesses of a shape that was never prepared".into());
        }
        *self.witnesses.lock().unwrap() += w.len();
        std::thread::sleep(self.delay);
        let a: Vec<_> = w.iter().map(|w| shape.evaluate(w.clone())).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
        self.cpu.prove(p, &a, r)
    }
    fn prepare_shape(&self, shape: &Arc<RecordedShape<Scalar>>) -> Result<(), String> {
        self.prepared.lock().unwrap().push(Arc::as_ptr(shape) as usize);
        Ok(())
    }
}

#[test]
fn recorded_partitions_reach_a_backend_that_takes_witnesses_as_witnesses() {
    let (path, _) = params();
    let device = WitnessTaking::new(std::time::Duration::ZERO);
    let (witnesses, assignments, prepared) = (device.witnesses.clone(), device.assignments.clone(), device.prepared.clone());
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(device)];
    let engine = Engine::new(Config { backends: Some(backends), self_check: true, ..sequential(None) }).unwrap();
    let (j, inputs) = job(path, 4, 12);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    // The first partition records (an assignment); the others stop at the witness.
    assert_eq!((*assignments.lock().unwrap(), *witnesses.lock().unwrap()), (1, 3));
    let t = &r.timings;
    assert!(t.stage("synth_witness_ms").is_some(), "{:?}", t.stages);
    assert_eq!(t.stage("synth_spmv_ms"), None, "the CPU evaluated no products: {:?}", t.stages);

    let (j, inputs) = job(path, 2, 13);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert_eq!((*assignments.lock().unwrap(), *witnesses.lock().unwrap()), (1, 5));
    assert_eq!(prepared.lock().unwrap().len(), 1, "the recording is prepared once, when it is ready");
}

#[test]
fn witness_partitions_give_back_the_bytes_of_a_b_c() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = engine_partition_bytes(params);
    let recording = RecordedShape::record(Workload::MulChain.circuit::<Scalar>(SIZE, 0).unwrap()).unwrap().0;
    // Room for the parameters, the recording and one and a half partitions:
    // one partition at a time while each holds a/b/c, more once they stop
    // at their witness.
    let timeline = Buf::default();
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(WitnessTaking::new(std::time::Duration::from_millis(40)))];
    let mut cfg = Config { backends: Some(backends), ..config(1) };
    cfg.memory_budget = file_len + recording.heap_bytes() as u64 + one + one / 2;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let (j, inputs) = job(path, 8, 40);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    let peak = peak_partitions_held(&timeline);
    assert!(peak > 1, "witness partitions held at once: {peak}");
}

/// A CPU device that keeps its own copy of each parameter set it is
/// prepared for, as a GPU keeps the bases in device memory, and proves with
/// that copy whichever set it is handed; it counts the calls handed a set
/// without bases.
#[derive(Default)]
struct Holding {
    cpu: CpuBackend,
    copies: Mutex<Vec<(usize, Arc<Parameters>)>>,
    slim_calls: Arc<Mutex<usize>>,
    /// Sleeps this long in each call, so that synthesized partitions queue.
    delay: std::time::Duration,
}
impl ProveBackend for Holding {
    fn name(&self) -> String {
        self.cpu.name()
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        if !p.has_bases() {
            *self.slim_calls.lock().unwrap() += 1;
        }
        std::thread::sleep(self.delay);
        let key = Arc::as_ptr(p) as usize;
        let copy = self.copies.lock().unwrap().iter().find(|(k, _)| *k == key).map(|(_, c)| c.clone());
        self.cpu.prove(&copy.ok_or("parameters this device was never prepared for")?, a, r)
    }
    fn prepare(&self, p: &Arc<Parameters>) -> Result<(), String> {
        self.copies.lock().unwrap().push((Arc::as_ptr(p) as usize, p.clone()));
        Ok(())
    }
    fn holds_bases(&self, p: &Arc<Parameters>) -> bool {
        self.copies.lock().unwrap().iter().any(|(k, _)| *k == Arc::as_ptr(p) as usize)
    }
    fn adopt_slim(&self, full: &Arc<Parameters>, slim: &Arc<Parameters>) {
        for (k, _) in self.copies.lock().unwrap().iter_mut().filter(|(k, _)| *k == Arc::as_ptr(full) as usize) {
            *k = Arc::as_ptr(slim) as usize;
        }
    }
}

#[test]
fn the_host_drops_the_bases_only_when_every_device_holds_them() {
    let (path, _) = params();
    let holding = Holding::default();
    let slim_calls = holding.slim_calls.clone();
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(holding)];
    let engine = Engine::new(Config { backends: Some(backends), self_check: true, ..sequential(None) }).unwrap();
    let (j, inputs) = job(path, 3, 50);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(*slim_calls.lock().unwrap() > 0, "the engine kept the bases though its only device holds them");

    let holding = Holding::default();
    let slim_calls = holding.slim_calls.clone();
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(holding), Arc::new(CpuBackend::simulated(1))];
    let engine = Engine::new(Config { backends: Some(backends), self_check: true, ..config(2) }).unwrap();
    let (j, inputs) = job(path, 4, 51);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert_eq!(*slim_calls.lock().unwrap(), 0, "a CPU device needs the host bases");
}

#[test]
fn bases_the_host_dropped_give_their_budget_to_partitions() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = engine_partition_bytes(params);
    // Room for the file and one and a half partitions: one partition at a
    // time while the host holds the bases, more once it does not.
    let timeline = Buf::default();
    let holding = Holding { delay: std::time::Duration::from_millis(40), ..Holding::default() };
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(holding)];
    let mut cfg = Config { backends: Some(backends), synthesis: SynthesisMode::Classic, ..config(1) };
    cfg.memory_budget = file_len + one + one / 2;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let (j, inputs) = job(path, 8, 52);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    let peak = peak_partitions_held(&timeline);
    assert!(peak > 1, "partitions held at once: {peak}");
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

#[test]
fn a_critical_job_overtakes_queued_work() {
    let (path, _) = params();
    let timeline = Buf::default();
    let mut cfg = config(1);
    cfg.synthesis_workers = 1;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let low: Vec<_> = (0..4)
        .map(|i| engine.submit(job(path, 3, 10 + i).0.priority(Priority::Low)).unwrap())
        .collect();
    let critical = engine.submit(job(path, 1, 20).0.priority(Priority::Critical)).unwrap();
    let critical_id = critical.id();
    critical.wait().unwrap();
    for h in low {
        h.wait().unwrap();
    }
    // After the critical job was submitted, at most the one partition already
    // running may start synthesizing before it.
    let ev = timeline.events();
    let submit_at = ev
        .iter()
        .position(|e| e["event"] == "submit" && e["job"] == critical_id)
        .unwrap();
    let started_before = ev[submit_at..]
        .iter()
        .take_while(|e| !(e["event"] == "synth_start" && e["job"] == critical_id))
        .filter(|e| e["event"] == "synth_start")
        .count();
    assert!(started_before <= 1, "{started_before} low partitions started ahead of the critical job");
}

/// The most partitions held at once according to a timeline: from the start
/// of their synthesis to the end of the call that proved them.
fn peak_partitions_held(timeline: &Buf) -> i64 {
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

#[test]
fn the_memory_budget_bounds_partitions_in_flight() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let timeline = Buf::default();
    let mut cfg = config(1);
    // Room for the parameters and one partition, not two.
    let one = engine_partition_bytes(params);
    cfg.memory_budget = file_len + one + one / 2;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let handles: Vec<_> = (0..3).map(|i| engine.submit(job(path, 2, 30 + i).0).unwrap()).collect();
    for h in handles {
        h.wait().unwrap();
    }
    let peak = peak_partitions_held(&timeline);
    assert_eq!(peak, 1, "partitions held at once");
}

/// The engine's per-partition estimate (mirrors `Shared::partition_bytes`).
#[test]
fn without_room_for_a_recording_synthesis_goes_classic() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    // Room for the parameters and exactly one partition: none for a recording.
    let engine =
        Engine::new(Config { memory_budget: file_len + engine_partition_bytes(params), ..sequential(None) })
            .unwrap();
    let (j, inputs) = job(path, 3, 15);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(only_recording(&engine).outcome.starts_with("dropped"), "{:?}", engine.recordings());
    assert!(r.timings.stage("synth_classic_ms").is_some(), "{:?}", r.timings.stages);
    assert_eq!(r.timings.stage("synth_witness_ms"), None, "{:?}", r.timings.stages);
}

fn engine_partition_bytes(p: &Parameters) -> u64 {
    let domain = p.h.len() as u64 + 1;
    let vars = (p.vk.ic.len() + p.l.len()) as u64;
    (3 * domain + vars) * 32 * 2 + vars / 2
}

#[test]
fn a_job_that_can_never_fit_is_rejected_with_the_bytes_it_needs() {
    let (path, _) = params();
    let mut cfg = config(1);
    cfg.memory_budget = std::fs::metadata(path).unwrap().len() + 1000;
    let engine = Engine::new(cfg).unwrap();
    match engine.submit(job(path, 1, 40).0).unwrap().wait() {
        Err(EngineError::TooLarge { needed, budget }) => assert!(needed > budget),
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn cancelled_jobs_end_cancelled_and_others_complete() {
    let (path, _) = params();
    let mut cfg = config(1);
    cfg.synthesis_workers = 1;
    let engine = Engine::new(cfg).unwrap();
    let (a, a_in) = job(path, 2, 50);
    let a = engine.submit(a).unwrap();
    let b = engine.submit(job(path, 2, 51).0).unwrap();
    b.cancel();
    assert_eq!(b.status(), cuzk_pipeline::JobStatus::Finished);
    assert!(matches!(b.wait(), Err(EngineError::Cancelled)));
    assert_verifies(&a.wait().unwrap().proofs, &a_in);
}

/// A backend that fails every call, for failure containment.
struct Broken;
impl ProveBackend for Broken {
    fn name(&self) -> String {
        "broken".into()
    }
    fn prove(
        &self,
        _: &Arc<Parameters>,
        _: &[ProvingAssignment<Scalar>],
        _: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        Err("injected device failure".into())
    }
}

#[test]
fn a_failing_device_fails_its_job_with_the_error_and_the_engine_goes_on() {
    let (path, _) = params();
    let mut cfg = config(1);
    cfg.backends = Some(vec![Arc::new(Broken)]);
    let engine = Engine::new(cfg).unwrap();
    for seed in 0..2 {
        match engine.submit(job(path, 1, 60 + seed).0).unwrap().wait() {
            Err(EngineError::Prove { backend, message }) => {
                assert_eq!(backend, "broken");
                assert!(message.contains("injected"));
            }
            other => panic!("expected a prove error, got {other:?}"),
        }
    }
}

/// The CPU backend made slow enough that idle devices pick up the next batch
/// while one is busy, so the spread over devices does not depend on luck.
struct Slow(CpuBackend);
impl ProveBackend for Slow {
    fn name(&self) -> String {
        self.0.name()
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        std::thread::sleep(std::time::Duration::from_millis(30));
        self.0.prove(p, a, r)
    }
}

#[test]
fn stress_many_jobs_with_injected_failures_over_three_devices() {
    let (path, _) = params();
    let timeline = Buf::default();
    let mut cfg = config(3);
    cfg.backends = Some(
        (0..3).map(|i| Arc::new(Slow(CpuBackend::simulated(i))) as Arc<dyn ProveBackend>).collect(),
    );
    cfg.timeline = Some(Box::new(timeline.clone()));
    cfg.self_check = true;
    let engine = Engine::new(cfg).unwrap();
    enum Want {
        Proofs(Vec<Vec<Scalar>>),
        SynthFails,
        BadParams,
        Cancelled,
    }
    let mut handles = Vec::new();
    for i in 0..24u64 {
        let (h, want) = match i % 6 {
            3 => {
                let (j, _) = job(path, 1, 70 + i);
                let j = j.partition_with(|| Err(SynthesisError::Circuit("injected".into())));
                (engine.submit(j).unwrap(), Want::SynthFails)
            }
            4 => {
                let (j, _) = job(Path::new("/nonexistent/cuzk.params"), 2, 70 + i);
                (engine.submit(j).unwrap(), Want::BadParams)
            }
            5 => {
                let h = engine.submit(job(path, 2, 70 + i).0).unwrap();
                h.cancel();
                (h, Want::Cancelled)
            }
            _ => {
                let (j, inputs) = job(path, 1 + (i as usize % 3), 70 + i);
                let j = if i % 2 == 0 { j.priority(Priority::High) } else { j };
                (engine.submit(j).unwrap(), Want::Proofs(inputs))
            }
        };
        handles.push((h, want));
    }
    for (h, want) in handles {
        let got = h.wait();
        match (want, got) {
            (Want::Proofs(inputs), Ok(r)) => assert_verifies(&r.proofs, &inputs),
            (Want::SynthFails, Err(EngineError::Synthesis { partition: 1, .. })) => {}
            (Want::BadParams, Err(EngineError::Params { .. })) => {}
            (Want::Cancelled, Err(EngineError::Cancelled)) => {}
            (_, other) => panic!("unexpected outcome {other:?}"),
        }
    }
    let devices: std::collections::BTreeSet<String> = timeline
        .events()
        .iter()
        .filter(|e| e["event"] == "prove_start")
        .map(|e| e["device"].as_str().unwrap().to_string())
        .collect();
    assert!(devices.len() >= 2, "work spread over devices: {devices:?}");
    drop(engine);
}

#[test]
fn empty_jobs_and_absent_gpus_are_errors() {
    let engine = Engine::new(config(1)).unwrap();
    assert!(matches!(engine.submit(Job::new("x")), Err(EngineError::EmptyJob)));
    let cfg = Config { backend: cuzk_pipeline::BackendChoice::Cuda(Some(0)), ..Config::default() };
    assert!(matches!(Engine::new(cfg), Err(EngineError::BackendUnavailable(_))));
}
