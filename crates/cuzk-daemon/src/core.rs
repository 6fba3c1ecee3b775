//! What every RPC acts on: one engine, the job table, metrics. A job is
//! claimed (idempotently), prepared on the blocking pool, handed to the
//! engine, and waited for on a thread of its own (the engine's wait
//! blocks, so it never runs on an async worker), where its proof bytes are
//! checked against the verifier's public inputs before anyone sees them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cuzk_filecoin::ParamCache;
use cuzk_groth16::{PreparedVerifyingKey, VerifyingKey};
use cuzk_pipeline::{Engine, EngineError, JobHandle, JobId, Priority};
use prost::Message;
use sha2::{Digest, Sha256};
use tonic::Status;

use crate::config::Config;
use crate::jobs::{Claim, Entry, Jobs, Outcome, Quota, State};
use crate::kinds::{self, Check, Decoded, Kind};
use crate::metrics::{Metrics, Snapshot};
use crate::proto;
use crate::tokens::Grant;

/// The daemon's shared state.
pub(crate) struct Core {
    pub(crate) engine: Engine,
    pub(crate) config: Config,
    pub(crate) jobs: Jobs,
    pub(crate) metrics: Metrics,
    cache: ParamCache,
    /// Prepared verifying keys by file (a 32 GiB WindowPoSt key has ~25,800 IC points).
    vks: Mutex<HashMap<PathBuf, Arc<PreparedVerifyingKey>>>,
    /// Circuit names of the parameter files jobs or preloads named.
    circuits: Mutex<HashMap<PathBuf, String>>,
    started: Instant,
    accepting: AtomicBool,
    completed: AtomicU64,
    failed: AtomicU64,
    cancelled: AtomicU64,
}

/// Totals of how jobs ended, reported when the daemon stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Jobs completed with verified proofs.
    pub completed: u64,
    /// Jobs that failed.
    pub failed: u64,
    /// Jobs cancelled.
    pub cancelled: u64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The longest request id accepted. Curio's are a few dozen bytes
/// (`porep-<miner>-<sector>`); an id is kept with its job and written into
/// every log line about it.
pub(crate) const MAX_REQUEST_ID_BYTES: usize = 256;

/// Refuses a request id that is too long or holds a control character: a
/// newline in one forged log lines, an escape sequence coloured the
/// operator's terminal, and 10 MB ids were logged whole.
fn check_request_id(id: &str) -> Result<(), Status> {
    if id.len() > MAX_REQUEST_ID_BYTES {
        return Err(Status::invalid_argument(format!(
            "request_id: {} bytes, more than the {MAX_REQUEST_ID_BYTES} allowed",
            id.len()
        )));
    }
    if let Some(c) = id.chars().find(|c| c.is_control()) {
        return Err(Status::invalid_argument(format!("request_id: holds the control character {c:?}")));
    }
    Ok(())
}

impl Core {
    pub(crate) fn new(engine: Engine, config: Config) -> Core {
        Core {
            engine,
            cache: ParamCache::new(&config.params.dir),
            config,
            jobs: Jobs::default(),
            metrics: Metrics::new(),
            vks: Mutex::default(),
            circuits: Mutex::default(),
            started: Instant::now(),
            accepting: AtomicBool::new(true),
            completed: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
        }
    }

    /// Accepts a request: a new job, or the one it joins. Answers once the
    /// job is in the engine, or with the status that refused it; `on_claim`
    /// sees the job as soon as it exists (a `Prove` call starts watching
    /// for its client's disconnect there, before preparation).
    ///
    /// A `caller` (a request that came with a bearer token) is held to its
    /// token here, right after the message is decoded and before any work
    /// on its inputs: a kind it may not prove or a priority above its
    /// ceiling is `PERMISSION_DENIED`, and so is a new job beyond its quota
    /// (checked as the job is claimed, where it cannot race another).
    pub(crate) async fn submit(
        self: &Arc<Self>,
        req: proto::SubmitProofRequest,
        caller: Option<&Grant>,
        on_claim: impl FnOnce(&Arc<Entry>),
    ) -> Result<Arc<Entry>, Status> {
        if !self.accepting.load(Ordering::SeqCst) {
            return Err(Status::unavailable("the daemon is shutting down and accepts no new jobs"));
        }
        check_request_id(&req.request_id)?;
        let kind = Kind::from_proto(req.proof_kind)?;
        let priority = kinds::priority(req.priority, kind)?;
        if let Some(grant) = caller {
            grant.admit(kind, priority).inspect_err(|s| {
                tracing::info!(token = %grant.name, why = s.message(), "request refused: PERMISSION_DENIED");
            })?;
        }
        // Decoding parses the C1 output (~50 MB of JSON at 32 GiB) and the
        // fingerprint hashes the whole message: both on the blocking pool.
        let dir = self.config.params.dir.clone();
        let decoding = tokio::task::spawn_blocking(move || {
            let decoded = kinds::decode(&req, kind, &dir);
            let fingerprint: [u8; 32] = Sha256::digest(req.encode_to_vec()).into();
            (req.request_id, decoded, fingerprint)
        });
        let (request_id, decoded, fingerprint) =
            decoding.await.map_err(|e| Status::internal(format!("decoding the request failed: {e}")))?;
        let decoded = decoded?;
        self.sweep();
        let quota = caller.map(|g| Quota { owner: &g.name, max_jobs: g.max_jobs });
        let claimed = self.jobs.claim(&request_id, fingerprint, kind, priority, quota);
        if let (Some(grant), Err(s)) = (caller, &claimed) {
            tracing::info!(token = %grant.name, why = s.message(), "request refused");
        }
        let entry = match claimed? {
            Claim::Joined(entry) => {
                on_claim(&entry);
                if let State::Done(outcome) = entry.prepared().await {
                    if let Outcome::Refused(status) = &*outcome {
                        return Err(status.clone());
                    }
                }
                return Ok(entry);
            }
            Claim::New(entry) => {
                on_claim(&entry);
                entry
            }
        };
        let token = caller.map(|g| g.name.as_str());
        tracing::info!(job = %entry.id, kind = kind.label(), ?priority, ?token, "accepted");
        // Preparing runs filecoin-proofs' checks (seconds at 32 GiB): on the
        // blocking pool, and to the end even if this call is dropped.
        let (core, e) = (self.clone(), entry.clone());
        let started = tokio::task::spawn_blocking(move || core.prepare_and_start(&e, decoded, priority));
        match started.await {
            Ok(Ok(())) => Ok(entry),
            Ok(Err(status)) => Err(status),
            Err(join) => Err(Status::internal(format!("preparing the job failed: {join}"))),
        }
    }

    fn prepare_and_start(
        self: &Arc<Self>,
        entry: &Arc<Entry>,
        decoded: Decoded,
        priority: Priority,
    ) -> Result<(), Status> {
        let prepared = match decoded.prepare(&self.cache, priority) {
            Ok(p) => p,
            Err(status) => {
                tracing::info!(job = %entry.id, status = %status.message(), "refused");
                self.end(entry, Outcome::Refused(status.clone()));
                return Err(status);
            }
        };
        lock(&self.circuits).insert(prepared.params.clone(), prepared.check.circuit.clone());
        let mut slot = entry.lock_slot();
        if slot.cancelled {
            drop(slot);
            self.end(entry, Outcome::Cancelled);
            return Ok(());
        }
        let handle = match self.engine.submit(prepared.job) {
            Ok(h) => h,
            Err(e) => {
                drop(slot);
                self.end(entry, Outcome::Failed(e.to_string()));
                return Ok(());
            }
        };
        let engine_id = handle.id();
        slot.engine_id = Some(engine_id);
        drop(slot);
        entry.submitted();
        let (core, e, check) = (self.clone(), entry.clone(), prepared.check);
        let spawned = std::thread::Builder::new()
            .name(format!("cuzk-job-{engine_id}"))
            .spawn(move || core.await_engine(&e, handle, &check));
        if let Err(err) = spawned {
            self.engine.cancel(engine_id);
            self.end(entry, Outcome::Failed(format!("cannot start the job's thread: {err}")));
        }
        Ok(())
    }

    /// The job's thread: waits for the engine, then checks the proof bytes.
    fn await_engine(&self, entry: &Arc<Entry>, handle: JobHandle, check: &Check) {
        let outcome = match handle.wait() {
            Ok(result) => {
                let proof = cuzk_filecoin::proofs::join(&result.proofs);
                match self.pvk(&check.vk).and_then(|pvk| check.verify(&pvk, &proof)) {
                    Ok(()) => Outcome::Completed { proof, timings: result.timings },
                    Err(e) => Outcome::Failed(format!("the proof of {} failed self-verification: {e}", check.circuit)),
                }
            }
            Err(EngineError::Cancelled) => Outcome::Cancelled,
            Err(e) => Outcome::Failed(e.to_string()),
        };
        self.end(entry, outcome);
    }

    /// The prepared verifying key in `path` (a `.vk`, or a parameter file's head).
    fn pvk(&self, path: &Path) -> Result<Arc<PreparedVerifyingKey>, String> {
        if let Some(pvk) = lock(&self.vks).get(path) {
            return Ok(pvk.clone());
        }
        let vk = VerifyingKey::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let pvk = Arc::new(cuzk_groth16::prepare_verifying_key(&vk).map_err(|e| format!("{}: {e}", path.display()))?);
        lock(&self.vks).insert(path.to_path_buf(), pvk.clone());
        Ok(pvk)
    }

    /// Ends a job once, counting how it ended.
    fn end(&self, entry: &Arc<Entry>, outcome: Outcome) {
        let kind = entry.kind.label();
        self.jobs.finish(entry, outcome, |outcome| match outcome {
            Outcome::Completed { timings, .. } => {
                self.completed.fetch_add(1, Ordering::SeqCst);
                self.metrics.completed(kind, timings);
                tracing::info!(job = %entry.id, kind, total_ms = timings.total_ms, "completed");
            }
            Outcome::Failed(message) => {
                self.failed.fetch_add(1, Ordering::SeqCst);
                self.metrics.failed(kind);
                tracing::warn!(job = %entry.id, kind, error = %message, "failed");
            }
            Outcome::Cancelled => {
                self.cancelled.fetch_add(1, Ordering::SeqCst);
                self.metrics.cancelled(kind);
                tracing::info!(job = %entry.id, kind, "cancelled");
            }
            Outcome::Refused(_) => {}
        });
    }

    /// Cancels a job: removed if queued, stopped at its next partition
    /// boundary if running. Returns whether it had started.
    pub(crate) fn cancel(&self, entry: &Entry, why: &str) -> bool {
        if entry.outcome().is_some() {
            return false;
        }
        let mut slot = entry.lock_slot();
        slot.cancelled = true;
        let was_running = slot.engine_id.is_some_and(|id| {
            let started = self.engine.started(id);
            self.engine.cancel(id);
            started
        });
        tracing::info!(job = %entry.id, why, was_running, "cancelling");
        was_running
    }

    /// Forgets results past their retention.
    pub(crate) fn sweep(&self) {
        let r = &self.config.results;
        self.jobs.sweep(Instant::now(), Duration::from_secs(r.retention_secs), r.max_kept);
    }

    /// Stops accepting jobs (shutdown); with `cancel`, cancels every unfinished one.
    pub(crate) fn stop_accepting(&self, cancel: bool) {
        self.accepting.store(false, Ordering::SeqCst);
        if cancel {
            for e in self.jobs.unfinished() {
                self.cancel(&e, "shutdown");
            }
        }
    }

    /// Waits until no job is unfinished.
    pub(crate) async fn drained(&self) {
        loop {
            let left = self.jobs.unfinished().len();
            if left == 0 {
                return;
            }
            tracing::debug!(left, "waiting for jobs to finish");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until every ended job's outcome has been answered to a client,
    /// or `grace` has passed.
    pub(crate) async fn delivered_or(&self, grace: Duration) {
        let until = Instant::now() + grace;
        loop {
            let left = self.jobs.undelivered();
            if left == 0 {
                return;
            }
            if Instant::now() >= until {
                tracing::warn!(left, "stopping with results no client fetched");
                return;
            }
            tracing::debug!(left, "waiting for results to be fetched");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// How jobs ended so far.
    pub(crate) fn summary(&self) -> Summary {
        Summary {
            completed: self.completed.load(Ordering::SeqCst),
            failed: self.failed.load(Ordering::SeqCst),
            cancelled: self.cancelled.load(Ordering::SeqCst),
        }
    }

    /// Loads a circuit's parameters now; (already loaded, milliseconds).
    pub(crate) async fn preload(self: &Arc<Self>, circuit_id: &str) -> Result<(bool, u64), Status> {
        let path = kinds::params_for_circuit(&self.config.params.dir, circuit_id)?;
        if !path.is_file() {
            return Err(Status::not_found(format!("no parameters for {circuit_id}: {} is missing", path.display())));
        }
        let already = self.engine.resident_params().iter().any(|r| r.path == path && r.loaded);
        lock(&self.circuits).insert(path.clone(), circuit_id.to_string());
        let core = self.clone();
        let loaded = tokio::task::spawn_blocking(move || core.engine.preload(path)).await;
        let ms = loaded.map_err(|e| Status::internal(e.to_string()))?.map_err(|e| match e {
            EngineError::TooLarge { .. } => Status::resource_exhausted(format!("{circuit_id}: {e}")),
            _ => Status::failed_precondition(format!("{circuit_id}: {e}")),
        })?;
        Ok((already, ms.round() as u64))
    }

    /// Drops a circuit's parameters; (was loaded, bytes given back).
    pub(crate) async fn evict(self: &Arc<Self>, circuit_id: &str) -> Result<(bool, u64), Status> {
        let path = kinds::params_for_circuit(&self.config.params.dir, circuit_id)?;
        let core = self.clone();
        // Freeing a 47 GB parameter set takes a while: off the async workers.
        let evicted = tokio::task::spawn_blocking(move || core.engine.evict(&path)).await;
        match evicted.map_err(|e| Status::internal(e.to_string()))? {
            Ok(Some(bytes)) => Ok((true, bytes)),
            Ok(None) => Ok((false, 0)),
            Err(e) => Err(Status::failed_precondition(format!("{circuit_id}: {e}"))),
        }
    }

    /// Unfinished jobs per kind: (kind, pending, in progress).
    fn queues(&self) -> Vec<(&'static str, u64, u64)> {
        let mut counts: Vec<(&'static str, u64, u64)> = Kind::ALL.iter().map(|k| (k.label(), 0, 0)).collect();
        for e in self.jobs.unfinished() {
            let started = e.lock_slot().engine_id.is_some_and(|id| self.engine.started(id));
            if let Some(c) = counts.iter_mut().find(|c| c.0 == e.kind.label()) {
                if started {
                    c.2 += 1;
                } else {
                    c.1 += 1;
                }
            }
        }
        counts
    }

    /// `GetStatus`.
    pub(crate) fn status(&self) -> proto::GetStatusResponse {
        let circuits = lock(&self.circuits).clone();
        let loaded_srs = self
            .engine
            .resident_params()
            .into_iter()
            .map(|r| {
                let name = r.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let tier = if r.loaded { proto::srs_status::Tier::Hot } else { proto::srs_status::Tier::Cold };
                proto::SrsStatus {
                    circuit_id: circuits.get(&r.path).cloned().unwrap_or(name),
                    tier: tier as i32,
                    size_bytes: r.bytes,
                    ref_count: u32::try_from(r.jobs).unwrap_or(u32::MAX),
                }
            })
            .collect();
        let running: HashMap<JobId, (String, &'static str)> = self
            .jobs
            .unfinished()
            .into_iter()
            .filter_map(|e| e.lock_slot().engine_id.map(|id| (id, (e.id.clone(), e.kind.label()))))
            .collect();
        let gpus = self
            .engine
            .devices()
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let (job, kind) = d.current_job.and_then(|id| running.get(&id).cloned()).unwrap_or_default();
                let (total, free) = d.memory.unwrap_or_default();
                proto::GpuStatus {
                    ordinal: d.name.strip_prefix("cuda:").and_then(|n| n.parse().ok()).unwrap_or(i as u32),
                    name: d.name,
                    vram_total_bytes: total,
                    vram_free_bytes: free,
                    current_job_id: job,
                    current_proof_kind: kind.into(),
                    out_of_service_reason: d.out_of_service.unwrap_or_default(),
                    busy_ms: d.busy_ms as u64,
                    calls: d.calls,
                    faults: d.faults,
                }
            })
            .collect();
        let queues = self
            .queues()
            .into_iter()
            .map(|(kind, pending, running)| proto::QueueStatus {
                proof_kind: kind.into(),
                pending: u32::try_from(pending).unwrap_or(u32::MAX),
                in_progress: u32::try_from(running).unwrap_or(u32::MAX),
            })
            .collect();
        proto::GetStatusResponse {
            gpus,
            loaded_srs,
            queues,
            total_proofs_completed: self.completed.load(Ordering::SeqCst),
            total_proofs_failed: self.failed.load(Ordering::SeqCst),
            uptime_seconds: self.started.elapsed().as_secs(),
            pinned_memory_bytes: self.engine.memory_in_use(),
            pinned_memory_limit_bytes: self.engine.memory_budget(),
        }
    }

    /// The Prometheus text.
    pub(crate) fn metrics_text(&self) -> String {
        let resident = self.engine.resident_params();
        let snapshot = Snapshot {
            queues: self.queues(),
            budget_used: self.engine.memory_in_use(),
            budget_total: self.engine.memory_budget(),
            resident_bytes: resident.iter().map(|r| r.bytes).sum(),
            resident_files: resident.len() as u64,
            uptime_secs: self.started.elapsed().as_secs(),
            devices: self.engine.devices(),
        };
        self.metrics.text(&snapshot)
    }
}
