//! What the engine's threads share: the queues, the jobs in flight and the
//! budget under one lock and one condition variable, and the caches and
//! devices beside it.

use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::path::PathBuf;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use cuzk_groth16::Proof;
use rand::rngs::StdRng;

use super::devices::DeviceState;
use super::queue::{Pending, Ready};
use crate::backends::ProveBackend;
use crate::budget::MemoryBudget;
use crate::dropper::Dropper;
use crate::job::{JobId, JobResult, Priority, Timings};
use crate::recordings::Recordings;
use crate::srs::SrsCache;
use crate::timeline::{Event, Timeline};
use crate::EngineError;

/// Everything the engine's threads and handles share.
pub(super) struct Shared {
    /// Shared with the dropper's callbacks (which give freed bytes back to
    /// the budget), not the whole of `Shared`: a callback holding the engine
    /// could end it on the dropper's own thread.
    pub(super) state: Arc<Mutex<State>>,
    pub(super) wake: Arc<Condvar>,
    pub(super) srs: SrsCache,
    pub(super) recordings: Recordings,
    pub(super) dropper: Dropper,
    pub(super) timeline: Option<Timeline>,
    pub(super) backends: Vec<Arc<dyn ProveBackend>>,
    /// Runs synthesis's parallel work (the sparse products) at the
    /// synthesis threads' lowered priority (`synth_worker::SYNTH_NICE_STEPS`).
    pub(super) synth_pool: rayon::ThreadPool,
    /// Runs the synthesis of high and critical partitions at normal
    /// priority, with a thread per core: a WinningPoSt's witness, computed
    /// in parts, then takes the cores from the normal synthesis it outranks
    /// instead of queueing behind it in `synth_pool`.
    pub(super) urgent_pool: rayon::ThreadPool,
    pub(super) device_locks: Vec<Mutex<()>>,
    pub(super) max_batch: usize,
    pub(super) self_check: bool,
}

/// The part of [`Shared`] behind the lock.
pub(super) struct State {
    pub(super) shutdown: bool,
    pub(super) next_id: JobId,
    pub(super) pending: BinaryHeap<Pending>,
    pub(super) ready: Vec<Ready>,
    pub(super) jobs: HashMap<JobId, JobState>,
    pub(super) budget: MemoryBudget,
    pub(super) srs_reserved: HashMap<PathBuf, u64>,
    /// Bytes of recorded constraint systems, held for the engine's life.
    pub(super) recordings_reserved: u64,
    pub(super) rng: StdRng,
    /// Per backend, in order: its standing (`devices`).
    pub(super) devices: Vec<DeviceState>,
    /// Priorities of the partitions whose synthesis threads wait for budget
    /// bytes: a partition of lower priority does not take bytes while one
    /// of higher priority waits (`synth_worker`).
    pub(super) admitting: Vec<Priority>,
}

/// One job in flight.
pub(super) struct JobState {
    pub(super) params: PathBuf,
    pub(super) priority: Priority,
    pub(super) proofs: Vec<Option<Proof>>,
    pub(super) synthesized: usize,
    pub(super) submitted: Instant,
    pub(super) first_synth: Option<Instant>,
    pub(super) timings: Timings,
    pub(super) backends: BTreeSet<String>,
    pub(super) done: SyncSender<Result<JobResult, EngineError>>,
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn wait<'a>(&self, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.wake.wait(guard).unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn record(&self, event: Event, job: JobId, parts: &[usize], device: Option<&str>) {
        if let Some(t) = &self.timeline {
            t.record(event, job, parts, device);
        }
    }

    /// [`Shared::record`] with more numeric fields.
    pub(super) fn record_with(
        &self,
        event: Event,
        job: JobId,
        parts: &[usize],
        device: Option<&str>,
        fields: &[(&str, u64)],
    ) {
        if let Some(t) = &self.timeline {
            t.record_with(event, job, parts, device, fields);
        }
    }

    /// Ends a job with an error: its queued partitions are dropped when popped,
    /// its synthesized ones are freed in the background.
    pub(super) fn fail(&self, st: &mut State, id: JobId, err: EngineError) {
        let Some(job) = st.jobs.remove(&id) else { return };
        let mut i = 0;
        while i < st.ready.len() {
            if st.ready[i].job == id {
                let r = st.ready.swap_remove(i);
                self.free_then_release(r.assignment, r.reserved);
            } else {
                i += 1;
            }
        }
        tracing::warn!(job = id, error = %err, "failed");
        let _ = job.done.send(Err(err));
        self.record(Event::Done, id, &[], None);
    }

    /// Frees `value` on the dropper and gives its `bytes` back to the budget
    /// once it is freed, not before: until then the memory is still held,
    /// and a budget that counted it free would admit more than it bounds.
    pub(super) fn free_then_release<T: Send + 'static>(&self, value: T, bytes: u64) {
        let (state, wake) = (self.state.clone(), self.wake.clone());
        self.dropper.drop_then(value, move || {
            state.lock().unwrap_or_else(|p| p.into_inner()).budget.release(bytes);
            wake.notify_all();
        });
    }

    /// Called when a device has just been taken out of service: once none is
    /// left, every unfinished job fails, and so does every later submission
    /// ([`State::no_device_left`]).
    pub(super) fn retired(&self, st: &mut State) {
        let Some(why) = st.no_device_left() else { return };
        let ids: Vec<JobId> = st.jobs.keys().copied().collect();
        for id in ids {
            self.fail(st, id, EngineError::BackendUnavailable(why.clone()));
        }
    }

    /// Ends a job whose every partition is proved.
    pub(super) fn finish(&self, st: &mut State, id: JobId) {
        let Some(mut job) = st.jobs.remove(&id) else { return };
        job.timings.total_ms = ms_since(job.submitted);
        let result = JobResult {
            id,
            proofs: job.proofs.into_iter().flatten().collect(),
            timings: job.timings,
            backend: job.backends.into_iter().collect::<Vec<_>>().join("+"),
        };
        tracing::info!(job = id, total_ms = result.timings.total_ms, backend = %result.backend, "done");
        let _ = job.done.send(Ok(result));
        self.record(Event::Done, id, &[], None);
    }
}

impl State {
    /// Why no job can be proved, when every device is out of service.
    pub(super) fn no_device_left(&self) -> Option<String> {
        if self.devices.iter().any(|d| d.retired.is_none()) {
            return None;
        }
        let reasons: Vec<&str> = self.devices.iter().filter_map(|d| d.retired.as_deref()).collect();
        Some(format!("every device is out of service ({})", reasons.join("; ")))
    }
}

/// Milliseconds since `t`.
pub(super) fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
