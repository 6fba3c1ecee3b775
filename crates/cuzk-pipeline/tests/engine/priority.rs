//! Priority where work waits besides the queue: for budget bytes, and for a
//! synthesis thread.

use std::sync::Arc;
use std::time::Duration;

use blstrs::Scalar;
use cuzk_pipeline::{CpuBackend, Engine, Job, Priority, SynthesisMode};
use cuzk_synth::workloads::MulChain;
use cuzk_synth::{Circuit, ConstraintSystem, SynthesisError};

use crate::scheduling::Slow;
use crate::{assert_verifies, config, job, params, Buf, SIZE};

/// A mul-chain whose synthesis first sleeps, standing in for a partition
/// that keeps a synthesis thread busy for a long time.
struct Sleepy(MulChain<Scalar>, Duration);
impl Circuit<Scalar> for Sleepy {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        std::thread::sleep(self.1);
        self.0.synthesize(cs)
    }
}

/// The index of the first `event` of `job` in the timeline.
fn position(events: &[serde_json::Value], event: &str, job: u64) -> usize {
    events.iter().position(|e| e["event"] == event && e["job"] == job).unwrap_or_else(|| panic!("no {event} of job {job}"))
}

fn wait_until_started(engine: &Engine, id: u64) {
    while !engine.started(id) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_critical_partition_takes_the_next_free_bytes() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = Engine::partition_bytes(params);
    let timeline = Buf::default();
    let mut cfg = config(1);
    cfg.backends = Some(vec![Arc::new(Slow(CpuBackend::simulated(0)))]);
    // Bytes for the parameters and one partition: the second synthesis
    // thread waits for bytes with the next normal partition. Memory
    // admission alone decides (no urgent synthesis thread).
    cfg.memory_budget = file_len + one + one / 2;
    cfg.synthesis = SynthesisMode::Classic;
    cfg.urgent_synthesis_workers = 0;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let (normal, normal_inputs) = job(path, 4, 400);
    let normal = engine.submit(normal).unwrap();
    let normal_id = normal.id();
    wait_until_started(&engine, normal_id);
    let (critical, critical_inputs) = job(path, 1, 401);
    let critical = engine.submit(critical.priority(Priority::Critical)).unwrap();
    let critical_id = critical.id();
    assert_verifies(&critical.wait().unwrap().proofs, &critical_inputs);
    assert_verifies(&normal.wait().unwrap().proofs, &normal_inputs);
    let ev = timeline.events();
    // The submit event is written just after the job is queued, so a thread
    // may start the job before it: count from whichever came first.
    let critical_starts = position(&ev, "synth_start", critical_id);
    let submitted = position(&ev, "submit", critical_id).min(critical_starts);
    let normal_between = ev[submitted..critical_starts]
        .iter()
        .filter(|e| e["event"] == "synth_start" && e["job"] == normal_id)
        .count();
    assert_eq!(normal_between, 0, "normal partitions took the bytes first: {:?}", &ev[submitted..=critical_starts]);
}

#[test]
fn an_urgent_partition_does_not_wait_for_busy_synthesis_threads() {
    let (path, _) = params();
    let timeline = Buf::default();
    let mut cfg = config(1);
    cfg.synthesis_workers = 2;
    cfg.urgent_synthesis_workers = 1;
    // Classic: with one parameter file here, a recording in progress (made
    // by a sleeping partition) would hold the others back for reasons of
    // its own; a WinningPoSt's recording is not a PoRep's.
    cfg.synthesis = SynthesisMode::Classic;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    // Two normal partitions occupy both ordinary threads for 5 s each.
    let nap = Duration::from_secs(5);
    let normal = (0..2).fold(Job::new(path), |j, i| j.partition(Sleepy(MulChain::new(SIZE, 410 + i), nap)));
    let normal = engine.submit(normal).unwrap();
    let normal_id = normal.id();
    wait_until_started(&engine, normal_id);
    let (winning, inputs) = job(path, 1, 420);
    let winning = engine.submit(winning.priority(Priority::Critical)).unwrap();
    let winning_id = winning.id();
    assert_verifies(&winning.wait().unwrap().proofs, &inputs);
    normal.wait().unwrap();
    let ev = timeline.events();
    let first_normal_synth_end = position(&ev, "synth_end", normal_id);
    assert!(
        position(&ev, "done", winning_id) < first_normal_synth_end,
        "the critical job waited for a busy synthesis thread: {ev:?}"
    );
}

/// A mul-chain that notes the name of the thread it synthesizes on.
struct NamesThread(MulChain<Scalar>, Arc<std::sync::Mutex<Vec<String>>>);
impl Circuit<Scalar> for NamesThread {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let name = std::thread::current().name().unwrap_or("unnamed").to_string();
        self.1.lock().unwrap().push(name);
        self.0.synthesize(cs)
    }
}

/// Normal partitions synthesize on the niced pool; critical ones on the
/// urgent pool, at normal priority, whichever synthesis thread takes them.
#[test]
fn critical_partitions_synthesize_on_the_urgent_pool() {
    let (path, _) = params();
    let mut cfg = config(1);
    cfg.synthesis = SynthesisMode::Classic;
    cfg.urgent_synthesis_workers = 0;
    let engine = Engine::new(cfg).unwrap();
    for (priority, pool) in [(Priority::Normal, "cuzk-synth-pool-"), (Priority::Critical, "cuzk-urgent-pool-")] {
        let names = Arc::new(std::sync::Mutex::new(Vec::new()));
        let job = Job::new(path).partition(NamesThread(MulChain::new(SIZE, 430), names.clone())).priority(priority);
        engine.submit(job).unwrap().wait().unwrap();
        let names = names.lock().unwrap();
        assert!(names.len() == 1 && names[0].starts_with(pool), "{priority:?} synthesized on {names:?}");
    }
}
