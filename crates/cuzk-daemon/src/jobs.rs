//! The daemon's jobs by id: idempotent claims of request ids, each job's
//! state (watched by every `AwaitProof` on it), the engine job behind it for
//! cancellation, and retention of finished results by age and count.
//!
//! An id whose job was cancelled (or is being cancelled) or failed is free
//! for a fresh job: Curio's ids are fixed per sector (`porep-<miner>-<sector>`)
//! and it retries a proof its timeout cancelled under the same id, so
//! retaining such an outcome would answer every retry `CANCELLED` until
//! the retention time passed. Only a completed proof is joined.
//!
//! A job submitted with a bearer token is that token's: only it (or a
//! trusted caller, on the unix socket) joins, awaits or cancels it, and a
//! token's unfinished jobs (but those being cancelled) are counted against
//! its `max_jobs` when a new one is claimed, under the table's lock, so
//! that concurrent submissions cannot pass the quota together.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cuzk_pipeline::{JobId, Priority, Timings};
use tokio::sync::watch;
use tonic::Status;

use crate::kinds::Kind;

/// How a job ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Proof bytes that passed the verifier's check, and where the time went.
    Completed { proof: Vec<u8>, timings: Timings },
    /// The engine failed, or the proof did not verify.
    Failed(String),
    /// Cancelled by a client, a disconnect or shutdown.
    Cancelled,
    /// Refused before it reached the engine (the submit call got this status).
    Refused(Status),
}

/// Where a job stands.
#[derive(Clone, Debug)]
pub(crate) enum State {
    /// Being checked and built; not in the engine yet.
    Preparing,
    /// In the engine.
    Submitted,
    /// Ended.
    Done(Arc<Outcome>),
}

/// The engine side of a job, under one lock so that a cancel and a
/// submission to the engine cannot pass each other.
#[derive(Default)]
pub(crate) struct EngineSlot {
    pub(crate) engine_id: Option<JobId>,
    pub(crate) cancelled: bool,
}

/// One job.
pub(crate) struct Entry {
    pub(crate) id: String,
    pub(crate) kind: Kind,
    pub(crate) priority: Priority,
    /// Submission order, for queue positions.
    pub(crate) seq: u64,
    /// The name of the token it was submitted with; none for a trusted caller.
    pub(crate) owner: Option<String>,
    fingerprint: [u8; 32],
    state: watch::Sender<State>,
    pub(crate) slot: Mutex<EngineSlot>,
    /// `Prove` calls waiting on this job (a disconnect cancels only when
    /// the last one goes).
    pub(crate) prove_waiters: AtomicUsize,
    /// Whether a client has been answered with the outcome (by `Prove` or
    /// `AwaitProof`): a daemon shutting down waits for the others.
    delivered: AtomicBool,
}

impl Entry {
    /// Whether `caller` (a token's name; none: a trusted caller) may see
    /// and act on this job.
    pub(crate) fn visible_to(&self, caller: Option<&str>) -> bool {
        caller.is_none_or(|name| self.owner.as_deref() == Some(name))
    }

    /// The state now.
    pub(crate) fn state(&self) -> State {
        self.state.borrow().clone()
    }

    /// Notes that a client was answered with the outcome.
    pub(crate) fn deliver(&self) {
        self.delivered.store(true, Ordering::SeqCst);
    }

    /// The outcome, once ended.
    pub(crate) fn outcome(&self) -> Option<Arc<Outcome>> {
        match &*self.state.borrow() {
            State::Done(o) => Some(o.clone()),
            _ => None,
        }
    }

    /// Waits until the job is no longer being prepared.
    pub(crate) async fn prepared(&self) -> State {
        let mut rx = self.state.subscribe();
        let state = rx.wait_for(|s| !matches!(s, State::Preparing)).await.map(|s| s.clone());
        state.unwrap_or_else(|_| self.state())
    }

    /// Waits for the outcome, at most `timeout` when given (`None` when it passes first).
    pub(crate) async fn wait(&self, timeout: Option<Duration>) -> Option<Arc<Outcome>> {
        let mut rx = self.state.subscribe();
        let done = async {
            let _ = rx.wait_for(|s| matches!(s, State::Done(_))).await;
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, done).await.ok()?,
            None => done.await,
        }
        self.outcome()
    }

    /// Whether a new request under this id starts a fresh job instead of
    /// joining this one: it failed, was cancelled, or is being cancelled.
    fn retryable(&self) -> bool {
        match self.outcome().as_deref() {
            Some(Outcome::Failed(_) | Outcome::Cancelled) => true,
            Some(Outcome::Completed { .. } | Outcome::Refused(_)) => false,
            None => self.lock_slot().cancelled,
        }
    }

    /// Moves a prepared job into the engine's hands.
    pub(crate) fn submitted(&self) {
        self.state.send_if_modified(|s| {
            let preparing = matches!(s, State::Preparing);
            if preparing {
                *s = State::Submitted;
            }
            preparing
        });
    }

    pub(crate) fn lock_slot(&self) -> MutexGuard<'_, EngineSlot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The result of claiming a request id.
pub(crate) enum Claim {
    /// A new job: the caller prepares it.
    New(Arc<Entry>),
    /// The same request under the same id: the caller joins this job.
    Joined(Arc<Entry>),
}

/// A token holder's claim: its name, and how many unfinished jobs it may have.
#[derive(Clone, Copy)]
pub(crate) struct Quota<'a> {
    pub(crate) owner: &'a str,
    pub(crate) max_jobs: usize,
}

/// Every job the daemon knows.
#[derive(Default)]
pub(crate) struct Jobs {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    by_id: HashMap<String, Arc<Entry>>,
    /// Finished jobs, oldest first, for retention.
    finished: VecDeque<(Instant, Arc<Entry>)>,
    /// Jobs being cancelled whose id a retry took: still unfinished (a
    /// drain waits for them), no longer reachable by id.
    superseded: Vec<Arc<Entry>>,
    next_seq: u64,
}

impl Jobs {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Claims `request_id` (a fresh id when empty) for a request whose
    /// encoding hashes to `fingerprint`: a new job, the existing job of the
    /// same request, or `ALREADY_EXISTS` when the id names another request.
    /// An id whose job failed or was cancelled is claimed afresh, for the
    /// same request or another. With a `quota` (a token's claim), an id of
    /// another owner's job is `PERMISSION_DENIED`, and so is a new job
    /// beyond the token's `max_jobs` unfinished ones (joining its own job
    /// is not a new one; a job being cancelled is not counted).
    pub(crate) fn claim(
        &self,
        request_id: &str,
        fingerprint: [u8; 32],
        kind: Kind,
        priority: Priority,
        quota: Option<Quota<'_>>,
    ) -> Result<Claim, Status> {
        let mut t = self.lock();
        let seq = t.next_seq;
        let id = match request_id {
            "" => format!("job-{seq}-{:08x}", rand::random::<u32>()),
            given => given.to_string(),
        };
        let existing = t.by_id.get(&id).cloned();
        if let (Some(q), Some(e)) = (quota, &existing) {
            if !e.visible_to(Some(q.owner)) {
                return Err(Status::permission_denied(format!("request_id {id:?} is another client's job")));
            }
        }
        let retry = existing.as_ref().is_some_and(|e| e.retryable());
        if let (Some(q), true) = (quota, existing.is_none() || retry) {
            // A job being cancelled is on its way out and does not count:
            // a retry after a cancelled Prove is not refused for it.
            let known = t.by_id.values().chain(&t.superseded);
            let held = known.filter(|e| e.owner.as_deref() == Some(q.owner) && !e.retryable() && e.outcome().is_none());
            let held = held.count();
            if held >= q.max_jobs {
                return Err(Status::permission_denied(format!(
                    "token {:?} has {held} unfinished jobs, its max_jobs is {}",
                    q.owner, q.max_jobs
                )));
            }
        }
        if let Some(e) = existing {
            if retry {
                t.by_id.remove(&id);
                if e.outcome().is_none() {
                    t.superseded.push(e);
                }
            } else if e.fingerprint == fingerprint {
                return Ok(Claim::Joined(e));
            } else {
                return Err(Status::already_exists(format!(
                    "request_id {id:?} is already used by a different {} request",
                    e.kind.label()
                )));
            }
        }
        t.next_seq += 1;
        let entry = Arc::new(Entry {
            id: id.clone(),
            kind,
            priority,
            seq,
            owner: quota.map(|q| q.owner.to_string()),
            fingerprint,
            state: watch::Sender::new(State::Preparing),
            slot: Mutex::new(EngineSlot::default()),
            prove_waiters: AtomicUsize::new(0),
            delivered: AtomicBool::new(false),
        });
        t.by_id.insert(id, entry.clone());
        Ok(Claim::New(entry))
    }

    /// The job `id`, if known.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Entry>> {
        self.lock().by_id.get(id).cloned()
    }

    /// Ends a job, running `counted` first, once, before anyone can see the
    /// job ended (so totals read after a drain include it). A refused job is
    /// forgotten at once (its id is free for a corrected request); others
    /// are kept for retention. Returns false when it had already ended.
    pub(crate) fn finish(&self, entry: &Arc<Entry>, outcome: Outcome, counted: impl FnOnce(&Outcome)) -> bool {
        let refused = matches!(outcome, Outcome::Refused(_));
        let outcome = Arc::new(outcome);
        let mut counted = Some(counted);
        let changed = entry.state.send_if_modified(|s| {
            let open = !matches!(s, State::Done(_));
            if open {
                if let Some(count) = counted.take() {
                    count(&outcome);
                }
                *s = State::Done(outcome.clone());
            }
            open
        });
        if changed {
            let mut t = self.lock();
            t.superseded.retain(|e| !Arc::ptr_eq(e, entry));
            if refused {
                if t.by_id.get(&entry.id).is_some_and(|e| Arc::ptr_eq(e, entry)) {
                    t.by_id.remove(&entry.id);
                }
            } else {
                t.finished.push_back((Instant::now(), entry.clone()));
            }
        }
        changed
    }

    /// Forgets finished jobs older than `retention`, and the oldest beyond
    /// `max_kept`; returns how many were forgotten.
    pub(crate) fn sweep(&self, now: Instant, retention: Duration, max_kept: usize) -> usize {
        let mut t = self.lock();
        let mut forgotten = 0;
        while let Some((at, _)) = t.finished.front() {
            if t.finished.len() <= max_kept && now.saturating_duration_since(*at) < retention {
                break;
            }
            let Some((_, entry)) = t.finished.pop_front() else { break };
            if t.by_id.get(&entry.id).is_some_and(|e| Arc::ptr_eq(e, &entry)) {
                t.by_id.remove(&entry.id);
            }
            forgotten += 1;
        }
        forgotten
    }

    /// Every unfinished job.
    pub(crate) fn unfinished(&self) -> Vec<Arc<Entry>> {
        let t = self.lock();
        let known = t.by_id.values().chain(&t.superseded);
        known.filter(|e| !matches!(e.state(), State::Done(_))).cloned().collect()
    }

    /// Ended jobs whose outcome no client has been answered with yet (a
    /// `SubmitProof` whose `AwaitProof` has not come).
    pub(crate) fn undelivered(&self) -> usize {
        let t = self.lock();
        t.by_id.values().filter(|e| e.outcome().is_some() && !e.delivered.load(Ordering::SeqCst)).count()
    }

    /// Unfinished jobs submitted before `entry` at its priority or above.
    pub(crate) fn ahead_of(&self, entry: &Entry) -> usize {
        let t = self.lock();
        t.by_id
            .values()
            .filter(|e| e.seq < entry.seq && e.priority >= entry.priority && !matches!(e.state(), State::Done(_)))
            .count()
    }

    /// Jobs known (unfinished and retained).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().by_id.len()
    }
}

/// Counts `Prove` callers of a job; when the last one goes away before the
/// job ends (its client disconnected), `on_abandon` runs.
pub(crate) struct ProveWaiter<F: FnOnce()> {
    entry: Arc<Entry>,
    on_abandon: Option<F>,
}

impl<F: FnOnce()> ProveWaiter<F> {
    pub(crate) fn new(entry: Arc<Entry>, on_abandon: F) -> Self {
        entry.prove_waiters.fetch_add(1, Ordering::SeqCst);
        ProveWaiter { entry, on_abandon: Some(on_abandon) }
    }
}

impl<F: FnOnce()> Drop for ProveWaiter<F> {
    fn drop(&mut self) {
        let last = self.entry.prove_waiters.fetch_sub(1, Ordering::SeqCst) == 1;
        if last && self.entry.outcome().is_none() {
            if let Some(f) = self.on_abandon.take() {
                f();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(jobs: &Jobs, id: &str, fp: u8) -> Result<Claim, Status> {
        jobs.claim(id, [fp; 32], Kind::WinningPoSt, Priority::Critical, None)
    }

    fn new(c: Result<Claim, Status>) -> Arc<Entry> {
        match c {
            Ok(Claim::New(e)) => e,
            _ => panic!("expected a new job"),
        }
    }

    #[test]
    fn ids_are_idempotent_and_refused_for_another_request() {
        let jobs = Jobs::default();
        let a = new(claim(&jobs, "r1", 1));
        assert!(matches!(claim(&jobs, "r1", 1), Ok(Claim::Joined(e)) if Arc::ptr_eq(&e, &a)));
        let other = claim(&jobs, "r1", 2).err().unwrap();
        assert_eq!(other.code(), tonic::Code::AlreadyExists);
        let (x, y) = (new(claim(&jobs, "", 1)), new(claim(&jobs, "", 1)));
        assert_ne!(x.id, y.id, "empty ids get fresh ones");
        assert_eq!(jobs.ahead_of(&y), 2);
        // A refused job frees its id.
        assert!(jobs.finish(&a, Outcome::Refused(Status::invalid_argument("x")), |_| {}));
        assert!(jobs.get("r1").is_none());
        new(claim(&jobs, "r1", 2));
    }

    #[test]
    fn a_failed_or_cancelled_id_is_claimed_afresh_and_a_completed_one_joined() {
        let jobs = Jobs::default();
        for outcome in [Outcome::Cancelled, Outcome::Failed("device fault".into())] {
            let first = new(claim(&jobs, "porep-1000-7", 1));
            assert!(jobs.finish(&first, outcome, |_| {}));
            let retry = new(claim(&jobs, "porep-1000-7", 1));
            assert!(!Arc::ptr_eq(&first, &retry) && jobs.get("porep-1000-7").is_some_and(|e| Arc::ptr_eq(&e, &retry)));
            assert!(jobs.finish(&retry, Outcome::Refused(Status::invalid_argument("x")), |_| {}));
        }
        let other = new(claim(&jobs, "porep-1000-7", 1));
        jobs.finish(&other, Outcome::Cancelled, |_| {});
        new(claim(&jobs, "porep-1000-7", 2));
        let done = jobs.get("porep-1000-7").unwrap();
        jobs.finish(&done, Outcome::Completed { proof: vec![1], timings: Timings::default() }, |_| {});
        assert!(matches!(claim(&jobs, "porep-1000-7", 2), Ok(Claim::Joined(e)) if Arc::ptr_eq(&e, &done)));
        assert_eq!(claim(&jobs, "porep-1000-7", 3).err().map(|s| s.code()), Some(tonic::Code::AlreadyExists));
    }

    #[test]
    fn a_job_being_cancelled_gives_its_id_to_a_retry_and_stays_unfinished() {
        let jobs = Jobs::default();
        let old = new(claim(&jobs, "r", 1));
        old.lock_slot().cancelled = true;
        let retry = new(claim(&jobs, "r", 1));
        assert!(!Arc::ptr_eq(&old, &retry));
        assert_eq!(jobs.unfinished().len(), 2, "a drain still waits for the job winding down");
        assert!(jobs.finish(&old, Outcome::Cancelled, |_| {}));
        assert_eq!(jobs.unfinished().len(), 1);
        assert!(jobs.get("r").is_some_and(|e| Arc::ptr_eq(&e, &retry)), "the old job's end leaves the retry's id alone");
        assert_eq!(jobs.sweep(Instant::now() + Duration::from_secs(61), Duration::from_secs(60), 10), 1);
        assert!(jobs.get("r").is_some_and(|e| Arc::ptr_eq(&e, &retry)), "nor does its sweep");
    }

    #[test]
    fn a_token_holds_its_own_jobs_up_to_its_quota() {
        let jobs = Jobs::default();
        let take = |id: &str, owner| {
            jobs.claim(id, [1; 32], Kind::PoRep, Priority::Normal, Some(Quota { owner, max_jobs: 2 }))
        };
        let denied = |c: Result<Claim, Status>| c.err().map(|s| (s.code(), s.message().to_string()));
        let a1 = new(take("a1", "a"));
        let a2 = new(take("a2", "a"));
        let (code, why) = denied(take("a3", "a")).unwrap();
        assert_eq!(code, tonic::Code::PermissionDenied);
        assert!(why.contains("2 unfinished jobs") && why.contains("max_jobs is 2"), "{why}");
        // Joining its own job is no new job; another token has a quota of its own.
        assert!(matches!(take("a1", "a"), Ok(Claim::Joined(e)) if Arc::ptr_eq(&e, &a1)));
        new(take("b1", "b"));
        // Another token may not join or take a's job; a trusted caller may.
        assert_eq!(denied(take("a1", "b")).unwrap().0, tonic::Code::PermissionDenied);
        assert!(matches!(claim(&jobs, "a1", 1), Ok(Claim::Joined(_))));
        assert!(a1.visible_to(None) && a1.visible_to(Some("a")) && !a1.visible_to(Some("b")));
        // A job that ends, or is being cancelled, frees its place.
        jobs.finish(&a1, Outcome::Completed { proof: vec![1], timings: Timings::default() }, |_| {});
        new(take("a3", "a"));
        a2.lock_slot().cancelled = true;
        let retry = new(take("a2", "a"));
        assert!(!Arc::ptr_eq(&retry, &a2) && retry.owner.as_deref() == Some("a"));
        assert_eq!(denied(take("a4", "a")).unwrap().0, tonic::Code::PermissionDenied);
    }

    #[test]
    fn finished_results_are_forgotten_by_age_and_count() {
        let jobs = Jobs::default();
        let entries: Vec<_> = (0..4).map(|i| new(claim(&jobs, &format!("j{i}"), 0))).collect();
        for e in &entries[..3] {
            assert!(jobs.finish(e, Outcome::Cancelled, |_| {}));
        }
        assert!(!jobs.finish(&entries[0], Outcome::Failed("late".into()), |_| panic!("counted twice")), "ended once");
        let now = Instant::now();
        assert_eq!(jobs.sweep(now, Duration::from_secs(60), 2), 1, "count bound");
        assert!(jobs.get("j0").is_none() && jobs.get("j1").is_some());
        assert_eq!(jobs.sweep(now + Duration::from_secs(61), Duration::from_secs(60), 10), 2, "age bound");
        assert_eq!(jobs.len(), 1, "the unfinished job stays");
        assert_eq!(jobs.unfinished().len(), 1);
    }

    #[tokio::test]
    async fn waits_time_out_or_see_the_outcome() {
        let jobs = Arc::new(Jobs::default());
        let e = new(claim(&jobs, "w", 0));
        assert!(e.wait(Some(Duration::from_millis(10))).await.is_none());
        let (j, e2) = (jobs.clone(), e.clone());
        let waiter = tokio::spawn(async move { e2.wait(None).await });
        e.submitted();
        assert!(matches!(e.prepared().await, State::Submitted));
        j.finish(&e, Outcome::Cancelled, |_| {});
        assert!(matches!(waiter.await.unwrap().as_deref(), Some(Outcome::Cancelled)));
    }

    #[test]
    fn the_last_prove_caller_to_leave_early_abandons_the_job() {
        let jobs = Jobs::default();
        let e = new(claim(&jobs, "p", 0));
        let abandoned = Arc::new(AtomicUsize::new(0));
        let count = |a: &Arc<AtomicUsize>| {
            let a = a.clone();
            move || {
                a.fetch_add(1, Ordering::SeqCst);
            }
        };
        let first = ProveWaiter::new(e.clone(), count(&abandoned));
        let second = ProveWaiter::new(e.clone(), count(&abandoned));
        drop(first);
        assert_eq!(abandoned.load(Ordering::SeqCst), 0, "another caller still waits");
        drop(second);
        assert_eq!(abandoned.load(Ordering::SeqCst), 1);
        let e2 = new(claim(&jobs, "q", 0));
        let waiter = ProveWaiter::new(e2.clone(), count(&abandoned));
        jobs.finish(&e2, Outcome::Cancelled, |_| {});
        drop(waiter);
        assert_eq!(abandoned.load(Ordering::SeqCst), 1, "a finished job is not abandoned");
    }
}
