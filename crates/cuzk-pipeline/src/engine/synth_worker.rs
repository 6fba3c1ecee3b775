//! The synthesis threads: each pops the most urgent pending partition, makes
//! sure its parameters are resident and its bytes are reserved, synthesizes
//! it with the parameter file's [`Synthesizer`](crate::synthesis::Synthesizer),
//! and leaves it ready for a device.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::memory::{partition_bytes, witness_bytes};
use super::queue::Ready;
use super::state::{ms_since, Shared};
use crate::job::Priority;
use crate::synthesis::Synthesized;
use crate::timeline::Event;
use crate::EngineError;

/// How far synthesis threads lower their priority (nice 0 → 10, a CPU
/// share of about 1 to 9 against a normal thread). The engine is as fast as
/// its devices are fed: with four H200s sharing 64 cores, synthesis at equal
/// priority stretched the host-function calls' CPU stages (split, uploads,
/// epilogue) from ~0.8 s to ~1.6 s per 10 partitions. Synthesis still gets
/// every core the provers leave idle.
const SYNTH_NICE_STEPS: i32 = 10;

/// Lowers the calling thread's priority for synthesis; where the system
/// does not allow it, synthesis runs at normal priority (logged once).
pub(super) fn yield_cpu_to_provers() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if let Err(e) = cuzk_gpu::host::lower_thread_priority(SYNTH_NICE_STEPS) {
        WARNED.call_once(|| tracing::warn!(error = %e, "synthesis threads keep normal priority"));
    }
}

/// Which partitions a synthesis thread takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Lane {
    /// The most urgent pending partition, whatever its priority.
    Any,
    /// Only partitions of high or critical priority: with every `Any`
    /// thread busy synthesizing normal work (a 32 GiB PoRep partition takes
    /// tens of seconds), a WinningPoSt still starts at once.
    Urgent,
}

impl Lane {
    fn takes(self, priority: Priority) -> bool {
        self == Lane::Any || priority >= Priority::High
    }
}

/// How a synthesis thread's wait for budget bytes ended.
enum Admission {
    /// These bytes are reserved.
    Reserved(u64),
    /// A more urgent partition is pending: this one goes back to the queue.
    Outranked,
    /// The job ended (or can never fit) or the engine shuts down.
    Gone,
}

/// One synthesis thread, until the engine shuts down.
pub(super) fn run(s: &Arc<Shared>, lane: Lane) {
    yield_cpu_to_provers();
    loop {
        let mut st = s.lock();
        let task = loop {
            if st.shutdown {
                return;
            }
            if st.pending.peek().is_some_and(|t| lane.takes(t.priority)) {
                if let Some(t) = st.pending.pop().filter(|t| st.jobs.contains_key(&t.job)) {
                    break t;
                }
                continue;
            }
            st = s.wait(st);
        };
        let path = st.jobs[&task.job].params.clone();
        if let Err(e) = s.reserve_srs(&mut st, &path) {
            s.fail(&mut st, task.job, e);
            continue;
        }
        drop(st);

        let (params, srs_ms) = match s.load_params(&path) {
            Ok(p) => p,
            Err(e) => {
                s.fail(&mut s.lock(), task.job, e);
                continue;
            }
        };
        let full = partition_bytes(&params);
        let witness_bytes = witness_bytes(&params).min(full);
        let synthesizer = s.recordings.synthesizer(&path, &params);
        drop(params);
        // A partition that will stop at its witness reserves the witness's
        // bytes only: reserving a/b/c it never holds kept most of the budget
        // idle, and with it most cores (two or three 32 GiB partitions in
        // synthesis at once on a 128 GiB host). Asked again on every try:
        // partitions that queued before the recording was ready would
        // otherwise take whole partitions' bytes for a job's whole first
        // proof (three SnapDeals partitions at once on the H200, not twelve).
        let bytes_now = || if synthesizer.stops_at_witness() { witness_bytes } else { full };

        // Bytes go to the most urgent partition first: a partition does not
        // reserve while one of higher priority waits for bytes, and gives
        // its place back when one of higher priority is pending.
        let mut st = s.lock();
        let mut waiting = false;
        let admission = loop {
            if st.shutdown || !st.jobs.contains_key(&task.job) {
                break Admission::Gone;
            }
            let outranked_waiter = st.admitting.iter().any(|p| *p > task.priority);
            let bytes = bytes_now();
            if !outranked_waiter && st.budget.try_reserve(bytes) {
                break Admission::Reserved(bytes);
            }
            if st.pending.peek().is_some_and(|p| p.priority > task.priority) {
                break Admission::Outranked;
            }
            if bytes > st.room_for_partitions() {
                let needed = bytes + st.srs_reserved.get(&path).copied().unwrap_or(0);
                let budget = st.budget.total();
                s.fail(&mut st, task.job, EngineError::TooLarge { needed, budget });
                break Admission::Gone;
            }
            if !waiting {
                st.admitting.push(task.priority);
                waiting = true;
            }
            st = s.wait(st);
        };
        if waiting {
            if let Some(i) = st.admitting.iter().position(|p| *p == task.priority) {
                st.admitting.swap_remove(i);
            }
        }
        let bytes = match admission {
            Admission::Reserved(bytes) => bytes,
            Admission::Outranked => {
                st.pending.push(task);
                drop(st);
                s.wake.notify_all();
                continue;
            }
            Admission::Gone => {
                drop(st);
                s.wake.notify_all();
                continue;
            }
        };
        let Some(job) = st.jobs.get_mut(&task.job) else { continue };
        job.timings.srs_ms = job.timings.srs_ms.max(srs_ms);
        job.first_synth.get_or_insert_with(|| {
            let now = Instant::now();
            job.timings.queue_ms = (now - job.submitted).as_secs_f64() * 1e3;
            now
        });
        let (used, total) = (st.budget.used(), st.budget.total());
        drop(st);
        let released = give_back_a_b_c_at_claim(s, &synthesizer, bytes - witness_bytes);

        let span = tracing::info_span!("synthesize", job = task.job, partition = task.part).entered();
        let budget = [("reserved", bytes), ("budget_used", used), ("budget", total)];
        s.record_with(Event::SynthStart, task.job, &[task.part], None, &budget);
        let start = Instant::now();
        let pool = if task.priority >= Priority::High { &s.urgent_pool } else { &s.synth_pool };
        let result = pool.install(|| (task.synthesize)(&synthesizer));
        let synth_ms = ms_since(start);
        let released = released.load(Ordering::Relaxed);
        let bytes = bytes - released;
        s.record_with(Event::SynthEnd, task.job, &[task.part], None, &[("released_at_claim", released)]);
        let report = synthesizer.report();
        tracing::debug!(synth_ms, ok = result.is_ok(), stages = ?report.stages(), "synthesized");
        drop(span);

        let mut st = s.lock();
        // A recording stays as long as the engine once its publication
        // reserved it (`Shared::reserve_recording`); one that did not fit
        // its circuit gives its bytes back.
        st.release_recording(report.dropped_recording_bytes);
        if let Some(job) = st.jobs.get_mut(&task.job) {
            job.timings.add_stages(&report.stages());
        }
        // A partition whose public inputs are not the verifier's is failed
        // here, before a device spends a call on a proof nobody accepts.
        let mismatch = match (&result, task.expect.as_deref()) {
            (Ok(assignment), Some(expected)) => {
                assignment.first_input_mismatch(expected).map(|index| EngineError::PublicInputs {
                    job: task.job,
                    partition: task.part,
                    index,
                    expected: expected.len(),
                    synthesized: assignment.public_inputs().len(),
                })
            }
            _ => None,
        };
        match (result, mismatch, st.jobs.get_mut(&task.job)) {
            (Ok(assignment), None, Some(job)) => {
                job.timings.synth_ms += synth_ms;
                job.synthesized += 1;
                let priority = job.priority;
                let reserved = match assignment {
                    Synthesized::Witness(..) => witness_bytes,
                    Synthesized::Assignment(_) => full,
                };
                // More than was reserved only when the recording went away
                // between the reservation and the synthesis: the bytes are
                // held already, so they count even past the total.
                match reserved.checked_sub(bytes) {
                    Some(more) => st.budget.reserve_held(more),
                    None => st.budget.release(bytes - reserved),
                }
                st.ready.push(Ready { priority, job: task.job, part: task.part, assignment, reserved, retry: None });
            }
            (Ok(assignment), Some(err), Some(_)) => {
                s.free_then_release(assignment, bytes);
                s.fail(&mut st, task.job, err);
            }
            (Err(source), _, Some(_)) => {
                st.budget.release(bytes);
                s.fail(&mut st, task.job, EngineError::Synthesis { partition: task.part, source });
            }
            (Ok(assignment), _, None) => s.free_then_release(assignment, bytes),
            (Err(_), _, None) => st.budget.release(bytes),
        }
        drop(st);
        s.wake.notify_all();
    }
}

/// A partition admitted with a whole partition's bytes before its recording
/// was ready (`extra` more than a witness's) that then claims the recording
/// and stops at its witness gives `extra` back as it claims, so partitions
/// waiting for bytes start during its witness pass rather than after it
/// (the first proof of a job is otherwise synthesized a few partitions at
/// a time). Returns the bytes given back, read once synthesis has ended.
fn give_back_a_b_c_at_claim(s: &Arc<Shared>, synthesizer: &crate::synthesis::Synthesizer, extra: u64) -> Arc<AtomicU64> {
    let released = Arc::new(AtomicU64::new(0));
    if extra > 0 {
        let (shared, done) = (Arc::clone(s), Arc::clone(&released));
        synthesizer.on_witness_claim(Box::new(move || {
            shared.lock().budget.release(extra);
            done.store(extra, Ordering::Relaxed);
            shared.wake.notify_all();
        }));
    }
    released
}
