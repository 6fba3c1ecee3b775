//! Failures reach the caller typed, fail their job alone, and leave the
//! engine working.

use std::error::Error as _;
use std::sync::Arc;

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_pipeline::{
    BackendError, Config, CpuBackend, Engine, EngineError, GpuError, ProveBackend, ProveOutput, SynthesisMode,
};
use cuzk_synth::workloads::MulChain;
use cuzk_synth::{ProvingAssignment, RecordedShape, SynthesisError, Witness};

use crate::devices::WitnessTaking;
use crate::{assert_verifies, config, job, params, sequential, SIZE};

/// A device that fails every call with one GPU error.
struct Failing(GpuError);
impl ProveBackend for Failing {
    fn name(&self) -> String {
        "failing".into()
    }
    fn prove(
        &self,
        _: &Arc<Parameters>,
        _: &[ProvingAssignment<Scalar>],
        _: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        Err(self.0.clone().into())
    }
    fn prove_witnesses(
        &self,
        _: &Arc<Parameters>,
        _: &Arc<RecordedShape<Scalar>>,
        _: &[Witness<Scalar>],
        _: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        Err(self.0.clone().into())
    }
}

fn engine_on(device: impl ProveBackend + 'static) -> Engine {
    Engine::new(Config { backends: Some(vec![Arc::new(device)]), ..config(1) }).unwrap()
}

#[test]
fn a_failing_device_fails_its_job_with_the_error() {
    let (path, _) = params();
    let engine = engine_on(Failing(GpuError::Host("injected device failure".into())));
    match engine.submit(job(path, 1, 60).0).unwrap().wait() {
        Err(EngineError::Prove { backend, source: BackendError::Gpu(GpuError::Host(message)) }) => {
            assert_eq!(backend, "failing");
            assert!(message.contains("injected"));
        }
        other => panic!("expected a prove error, got {other:?}"),
    }
    // The call and its one retry failed; the device stays in service until a
    // third failure in a row (tests/engine/faults.rs).
    let device = &engine.devices()[0];
    assert_eq!((device.faults, device.calls, device.out_of_service.is_none()), (2, 2, true), "{device:?}");
}

#[test]
fn a_device_out_of_memory_reaches_the_caller_typed() {
    let (path, _) = params();
    let oom = GpuError::OutOfMemory { requested: 3 << 30, free: 1 << 30 };
    let engine = engine_on(Failing(oom.clone()));
    let err = engine.submit(job(path, 2, 61).0).unwrap().wait().unwrap_err();
    assert!(err.is_out_of_memory(), "{err:?}");
    assert_eq!(err.unsatisfied_constraint(), None);
    match &err {
        EngineError::Prove { backend, source: BackendError::Gpu(gpu) } => assert_eq!((backend.as_str(), gpu), ("failing", &oom)),
        other => panic!("expected the device's error, got {other:?}"),
    }
    // The chain a caller walks without naming our types sees it too.
    let source = err.source().and_then(|s| s.downcast_ref::<BackendError>()).expect("a typed source");
    assert!(source.is_out_of_memory());
    assert!(!EngineError::Cancelled.is_out_of_memory());
}

/// mul-chain `SIZE` whose witness fails the row in the middle.
fn lying(seed: u64) -> MulChain<Scalar> {
    MulChain::new(SIZE, seed).with_wrong_value_at(SIZE / 2)
}

/// The row the CPU's own evaluation of a recording names for [`lying`].
fn lying_row() -> usize {
    let (shape, _) = RecordedShape::record(MulChain::<Scalar>::new(SIZE, 0)).unwrap();
    match shape.synthesize(lying(1)) {
        Err(SynthesisError::UnsatisfiedConstraint(row)) => row,
        other => panic!("the lying chain must fail a row, got {:?}", other.map(|_| ())),
    }
}

/// Records with one honest job, then submits a lying partition beside an
/// honest one, then an honest job again on the same engine.
fn lie_after_recording(engine: &Engine) -> EngineError {
    let (path, _) = params();
    let (honest, inputs) = job(path, 2, 62);
    assert_verifies(&engine.submit(honest).unwrap().wait().unwrap().proofs, &inputs);
    let (j, _) = job(path, 1, 63);
    let err = engine.submit(j.partition(lying(64))).unwrap().wait().unwrap_err();
    let (after, inputs) = job(path, 2, 65);
    assert_verifies(&engine.submit(after).unwrap().wait().unwrap().proofs, &inputs);
    err
}

#[test]
fn an_unsatisfied_constraint_reaches_the_caller_typed() {
    let row = lying_row();
    // Recorded synthesis on the CPU backend: the products are evaluated
    // (every row checked) during synthesis.
    let err = lie_after_recording(&Engine::new(sequential(None)).unwrap());
    assert!(
        matches!(err, EngineError::Synthesis { partition: 1, source: SynthesisError::UnsatisfiedConstraint(r) } if r == row),
        "{err:?}"
    );
    assert_eq!(err.unsatisfied_constraint(), Some(row));

    // A device that computes a, b, c from the witness (as the GPU does)
    // finds it in its prove call.
    let devices: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(WitnessTaking::new(std::time::Duration::ZERO))];
    let err = lie_after_recording(&Engine::new(Config { backends: Some(devices), ..sequential(None) }).unwrap());
    assert!(matches!(err, EngineError::Prove { source: BackendError::Synthesis(_), .. }), "{err:?}");
    assert_eq!(err.unsatisfied_constraint(), Some(row));
    assert!(!err.is_out_of_memory());
}

#[test]
fn classic_synthesis_leaves_an_unsatisfied_constraint_to_the_self_check() {
    // Classic synthesis checks no row: the proof is made, and only the
    // self-check can tell it is wrong, typed as such.
    let devices: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(CpuBackend::new())];
    let cfg = Config { backends: Some(devices), synthesis: SynthesisMode::Classic, self_check: true, ..config(1) };
    let err = lie_after_recording(&Engine::new(cfg).unwrap());
    assert!(matches!(err, EngineError::Prove { source: BackendError::SelfCheck { .. }, .. }), "{err:?}");
    assert_eq!(err.unsatisfied_constraint(), None);
}
