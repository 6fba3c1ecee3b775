use std::sync::{Arc, Mutex};

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_pipeline::{BackendError, Config, CpuBackend, Engine, EngineError, GpuError, ProveBackend, ProveOutput};
use cuzk_synth::{ProvingAssignment, RecordedShape, Witness};

use crate::{assert_verifies, config, job, params, sequential};

/// A CPU device that counts how often it is prepared for parameters, and
/// can refuse to be.
pub(crate) struct Preparing {
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
    ) -> Result<ProveOutput, BackendError> {
        self.cpu.prove(p, a, r)
    }
    fn prepare(&self, _: &Arc<Parameters>) -> Result<(), BackendError> {
        *self.prepared.lock().unwrap() += 1;
        if self.refuse {
            return Err(GpuError::OutOfMemory { requested: 1 << 40, free: 0 }.into());
        }
        Ok(())
    }
    witnesses_on_the_cpu!(cpu);
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
        Err(EngineError::Params { message, .. }) => assert!(message.starts_with("cpu:0: out of device memory"), "{message}"),
        other => panic!("expected a params error, got {other:?}"),
    }
    assert_eq!(engine.memory_in_use(), 0, "a failed load gives its reservation back");
    match engine.submit(job(path, 1, 5).0).unwrap().wait() {
        Err(EngineError::Params { message, .. }) => assert!(message.contains("out of device memory"), "{message}"),
        other => panic!("expected a params error, got {other:?}"),
    }
}

/// A CPU device that takes witnesses, as the CUDA backend does (which
/// computes a, b, c on its GPU), counting the partitions that reach it as
/// witnesses and as assignments, and the shapes it was asked to prepare
/// (by address); it refuses witnesses of a shape it was not given first.
pub(crate) struct WitnessTaking {
    cpu: CpuBackend,
    witnesses: Arc<Mutex<usize>>,
    assignments: Arc<Mutex<usize>>,
    prepared: Arc<Mutex<Vec<usize>>>,
    /// Sleeps this long in each call, so that synthesized partitions queue.
    delay: std::time::Duration,
    /// Sleeps this long before a shape counts as prepared, as an upload takes.
    prepare_delay: std::time::Duration,
}

impl WitnessTaking {
    pub(crate) fn new(delay: std::time::Duration) -> Self {
        WitnessTaking {
            cpu: CpuBackend::new(),
            witnesses: Arc::default(),
            assignments: Arc::default(),
            prepared: Arc::default(),
            delay,
            prepare_delay: std::time::Duration::ZERO,
        }
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
    ) -> Result<ProveOutput, BackendError> {
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
    ) -> Result<ProveOutput, BackendError> {
        if !self.prepared.lock().unwrap().contains(&(Arc::as_ptr(shape) as usize)) {
            return Err(GpuError::InvalidInput("witnesses of a shape that was never prepared".into()).into());
        }
        *self.witnesses.lock().unwrap() += w.len();
        std::thread::sleep(self.delay);
        let a: Vec<_> = w.iter().map(|w| shape.evaluate(w.clone())).collect::<Result<_, _>>()?;
        self.cpu.prove(p, &a, r)
    }
    fn prepare_shape(&self, shape: &Arc<RecordedShape<Scalar>>) -> Result<(), BackendError> {
        std::thread::sleep(self.prepare_delay);
        self.prepared.lock().unwrap().push(Arc::as_ptr(shape) as usize);
        Ok(())
    }
}

#[test]
fn no_partition_reaches_the_device_before_its_shape_is_prepared() {
    // A slow upload: the other workers' witnesses are ready long before it
    // ends, and before the fix they reached the device with a shape it was
    // never given (CI saw it once in a memory test).
    let (path, _) = params();
    let device = WitnessTaking { prepare_delay: std::time::Duration::from_millis(500), ..WitnessTaking::new(std::time::Duration::ZERO) };
    let (witnesses, prepared) = (device.witnesses.clone(), device.prepared.clone());
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(device)];
    let engine = Engine::new(Config { backends: Some(backends), synthesis_workers: 4, ..config(1) }).unwrap();
    let (j, inputs) = job(path, 8, 13);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert_eq!(prepared.lock().unwrap().len(), 1);
    assert!(*witnesses.lock().unwrap() > 0, "no partition went as a witness");
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

/// A CPU device that keeps its own copy of each parameter set it is
/// prepared for, as a GPU keeps the bases in device memory, and proves with
/// that copy whichever set it is handed; it counts the calls handed a set
/// without bases.
#[derive(Default)]
pub(crate) struct Holding {
    cpu: CpuBackend,
    copies: Mutex<Vec<(usize, Arc<Parameters>)>>,
    slim_calls: Arc<Mutex<usize>>,
    /// Sleeps this long in each call, so that synthesized partitions queue.
    delay: std::time::Duration,
    /// Host bytes it says it keeps per parameter set it holds.
    pinned: u64,
}
impl Holding {
    /// A holding device that sleeps `delay` in each call.
    pub(crate) fn slow(delay: std::time::Duration) -> Self {
        Holding { delay, ..Holding::default() }
    }
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
    ) -> Result<ProveOutput, BackendError> {
        if !p.has_bases() {
            *self.slim_calls.lock().unwrap() += 1;
        }
        std::thread::sleep(self.delay);
        let key = Arc::as_ptr(p) as usize;
        let copy = self.copies.lock().unwrap().iter().find(|(k, _)| *k == key).map(|(_, c)| c.clone());
        self.cpu.prove(&copy.ok_or(cuzk_groth16::Error::BasesReleased)?, a, r)
    }
    fn prepare(&self, p: &Arc<Parameters>) -> Result<(), BackendError> {
        self.copies.lock().unwrap().push((Arc::as_ptr(p) as usize, p.clone()));
        Ok(())
    }
    fn holds_bases(&self, p: &Arc<Parameters>) -> bool {
        self.copies.lock().unwrap().iter().any(|(k, _)| *k == Arc::as_ptr(p) as usize)
    }
    fn pinned_bytes(&self, p: &Arc<Parameters>) -> u64 {
        if self.holds_bases(p) {
            self.pinned
        } else {
            0
        }
    }
    fn adopt_slim(&self, full: &Arc<Parameters>, slim: &Arc<Parameters>) {
        for (k, _) in self.copies.lock().unwrap().iter_mut().filter(|(k, _)| *k == Arc::as_ptr(full) as usize) {
            *k = Arc::as_ptr(slim) as usize;
        }
    }
    witnesses_on_the_cpu!(cpu);
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
fn the_budget_keeps_counting_the_host_memory_a_device_streams_from() {
    let (path, _) = params();
    let in_use = |pinned: u64| {
        let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(Holding { pinned, ..Holding::default() })];
        let engine = Engine::new(Config { backends: Some(backends), ..sequential(None) }).unwrap();
        let (j, inputs) = job(path, 2, 52);
        assert_verifies(&engine.submit(j).unwrap().wait().unwrap().proofs, &inputs);
        engine.finish_recordings();
        engine.memory_in_use()
    };
    // Less than the file (~24 KB): a pinned copy of some of its queries.
    let pinned = 8 << 10;
    assert_eq!(in_use(pinned), in_use(0) + pinned, "the pinned copy stays in the budget after the host copy goes");
}
