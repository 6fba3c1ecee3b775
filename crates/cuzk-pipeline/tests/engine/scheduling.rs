use std::path::Path;
use std::sync::Arc;

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_pipeline::{
    BackendChoice, BackendError, Config, CpuBackend, Engine, EngineError, Job, JobStatus, Priority, ProveBackend,
    ProveOutput,
};
use cuzk_synth::{ProvingAssignment, SynthesisError};

use crate::{assert_verifies, config, job, params, Buf};

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

#[test]
fn a_critical_job_overtakes_queued_work() {
    let (path, _) = params();
    let timeline = Buf::default();
    let mut cfg = config(1);
    cfg.synthesis_workers = 1;
    // The queue's order alone decides: with an urgent synthesis thread the
    // normal one would keep starting low partitions, as it should, while the
    // critical job waits for the urgent thread to be scheduled.
    cfg.urgent_synthesis_workers = 0;
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
    // The submit event is written just after the job is queued, so the
    // worker may start the job before it: count from whichever came first.
    let ev = timeline.events();
    let first = |event: &str| ev.iter().position(|e| e["event"] == event && e["job"] == critical_id).unwrap();
    let critical_starts = first("synth_start");
    let submitted = first("submit").min(critical_starts);
    let started_before = ev[submitted..critical_starts].iter().filter(|e| e["event"] == "synth_start").count();
    assert!(started_before <= 1, "{started_before} low partitions started ahead of the critical job");
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
    assert_eq!(b.status(), JobStatus::Finished);
    assert!(matches!(b.wait(), Err(EngineError::Cancelled)));
    assert_verifies(&a.wait().unwrap().proofs, &a_in);
}

/// The CPU backend made slow enough that idle devices pick up the next batch
/// while one is busy, so the spread over devices does not depend on luck
/// (and partitions hold their budget bytes for a while).
pub(crate) struct Slow(pub(crate) CpuBackend);
impl ProveBackend for Slow {
    fn name(&self) -> String {
        self.0.name()
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        std::thread::sleep(std::time::Duration::from_millis(30));
        self.0.prove(p, a, r)
    }
    witnesses_on_the_cpu!(0);
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

/// `Cuda(Some(N))` for an absent device is `BackendUnavailable`, never the
/// CPU; with a GPU, `Auto` and `Cuda(Some(0))` open it, without one `Auto`
/// is the CPU and `Cuda(None)` an error too.
#[test]
fn empty_jobs_and_absent_gpus_are_errors() {
    let engine = Engine::new(config(1)).unwrap();
    assert!(matches!(engine.submit(Job::new("x")), Err(EngineError::EmptyJob)));
    let open = |backend| Engine::new(Config { backend, ..Config::default() });
    let gpus: Vec<String> =
        cuzk_gpu::devices().map(|d| d.iter().map(|i| format!("cuda:{}", i.id)).collect()).unwrap_or_default();
    let absent = BackendChoice::Cuda(Some(gpus.len() as u32));
    assert!(matches!(open(absent), Err(EngineError::BackendUnavailable(_))), "{absent} with {gpus:?} visible");
    let auto = open(BackendChoice::Auto).unwrap();
    if gpus.is_empty() {
        assert_eq!(auto.backends(), ["cpu"]);
        assert!(matches!(open(BackendChoice::Cuda(None)), Err(EngineError::BackendUnavailable(_))));
    } else {
        assert_eq!(auto.backends(), gpus.as_slice());
        drop(auto);
        assert_eq!(open(BackendChoice::Cuda(Some(0))).unwrap().backends(), ["cuda:0"]);
    }
}
