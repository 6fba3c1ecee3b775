//! Device faults: a failed call is retried once (on another device while one
//! is in service), a device that keeps failing is taken out of service and
//! reported, and bad work never counts against a device.

use std::sync::Arc;

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_pipeline::{BackendError, Config, CpuBackend, Engine, EngineError, GpuError, ProveBackend, ProveOutput, SynthesisMode};
use cuzk_synth::workloads::MulChain;
use cuzk_synth::ProvingAssignment;

use crate::{assert_verifies, config, job, params, SIZE};

/// A device whose every call fails with a CUDA error (the CPU backend
/// beside it is never reached: these engines hand no device witnesses).
struct Broken(usize, CpuBackend);
impl ProveBackend for Broken {
    fn name(&self) -> String {
        format!("broken:{}", self.0)
    }
    fn prove(
        &self,
        _: &Arc<Parameters>,
        _: &[ProvingAssignment<Scalar>],
        _: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        Err(GpuError::Cuda { code: 700, message: "an illegal memory access was encountered".into() }.into())
    }
    witnesses_on_the_cpu!(1);
}

fn broken(i: usize) -> Arc<dyn ProveBackend> {
    Arc::new(Broken(i, CpuBackend::new()))
}

/// A device whose proofs are wrong (C replaced by A): only the self-check sees it.
struct Lying(CpuBackend);
impl ProveBackend for Lying {
    fn name(&self) -> String {
        format!("lying-{}", self.0.name())
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        let mut out = self.0.prove(p, a, r)?;
        for proof in &mut out.proofs {
            proof.c = proof.a;
        }
        Ok(out)
    }
    witnesses_on_the_cpu!(0);
}

fn engine_of(devices: Vec<Arc<dyn ProveBackend>>, self_check: bool) -> Engine {
    let n = devices.len();
    Engine::new(Config { backends: Some(devices), synthesis: SynthesisMode::Classic, self_check, ..config(n) }).unwrap()
}

#[test]
fn a_failing_device_is_retried_elsewhere_then_taken_out_of_service() {
    let (path, _) = params();
    let engine = engine_of(vec![broken(0), Arc::new(CpuBackend::simulated(1))], true);
    // Which device takes a batch is up to the threads: send jobs until the
    // broken one has failed three calls (each job lets it try at least once
    // while it is in service, unless the other device took everything).
    for seed in 0..100 {
        let (j, inputs) = job(path, 2, 300 + seed);
        let r = engine.submit(j).unwrap().wait().expect("the other device proves what the broken one failed");
        assert_verifies(&r.proofs, &inputs);
        if engine.devices()[0].out_of_service.is_some() && seed >= 5 {
            break;
        }
    }
    let devices = engine.devices();
    assert_eq!(devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["broken:0", "cpu:1"]);
    let (broken, good) = (&devices[0], &devices[1]);
    let why = broken.out_of_service.as_deref().expect("retired after repeated failures");
    assert!(why.contains("3 consecutive") && why.contains("illegal memory access"), "{why}");
    assert_eq!((broken.faults, broken.calls), (3, 3), "it takes no work once retired");
    assert!(good.out_of_service.is_none() && good.faults == 0 && good.calls >= 6 && good.busy_ms > 0.0, "{good:?}");
    assert!(devices.iter().all(|d| d.current_job.is_none() && d.memory.is_none()), "{devices:?}");
}

#[test]
fn a_lone_failing_device_fails_its_jobs_then_the_engine_refuses_work() {
    let (path, _) = params();
    let engine = engine_of(vec![broken(0)], false);
    // The first job's call and its retry on the same device both fail.
    match engine.submit(job(path, 1, 310).0).unwrap().wait() {
        Err(EngineError::Prove { backend, source: BackendError::Gpu(GpuError::Cuda { code: 700, .. }) }) => {
            assert_eq!(backend, "broken:0")
        }
        other => panic!("expected the device's CUDA error, got {other:?}"),
    }
    assert_eq!((engine.devices()[0].faults, engine.devices()[0].out_of_service.clone()), (2, None));
    // The third failure retires it: its job, and every later one, is refused.
    match engine.submit(job(path, 1, 311).0).unwrap().wait() {
        Err(EngineError::BackendUnavailable(why)) => assert!(why.contains("every device is out of service"), "{why}"),
        other => panic!("expected no device left, got {other:?}"),
    }
    match engine.submit(job(path, 1, 312).0) {
        Err(EngineError::BackendUnavailable(why)) => assert!(why.contains("illegal memory access"), "{why}"),
        other => panic!("expected a refusal, got {:?}", other.map(|h| h.id())),
    }
}

#[test]
fn a_self_check_failure_counts_against_a_device_only_when_another_proves_the_work() {
    let (path, _) = params();
    let engine = engine_of(vec![Arc::new(Lying(CpuBackend::simulated(0))), Arc::new(CpuBackend::simulated(1))], true);
    for seed in 0..100 {
        let (j, inputs) = job(path, 1, 320 + seed);
        assert_verifies(&engine.submit(j).unwrap().wait().unwrap().proofs, &inputs);
        if engine.devices()[0].out_of_service.is_some() {
            break;
        }
    }
    let devices = engine.devices();
    assert!(devices[0].out_of_service.is_some(), "the lying device is found out: {devices:?}");
    assert_eq!(devices[1].faults, 0);

    // A witness that fails its constraints makes every device's proof fail
    // the self-check: the job fails, and no device is blamed for it.
    let honest = engine_of(vec![Arc::new(CpuBackend::simulated(0)), Arc::new(CpuBackend::simulated(1))], true);
    let lying = MulChain::<Scalar>::new(SIZE, 330).with_wrong_value_at(SIZE / 2);
    let err = honest.submit(cuzk_pipeline::Job::new(path).partition(lying)).unwrap().wait().unwrap_err();
    assert!(matches!(err, EngineError::Prove { source: BackendError::SelfCheck { .. }, .. }), "{err:?}");
    assert!(honest.devices().iter().all(|d| d.faults == 0 && d.out_of_service.is_none()), "{:?}", honest.devices());
    let (j, inputs) = job(path, 2, 331);
    assert_verifies(&honest.submit(j).unwrap().wait().unwrap().proofs, &inputs);
}
