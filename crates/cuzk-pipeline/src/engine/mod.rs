//! The engine: jobs in, proofs out. Synthesis threads and per-device prove
//! threads work around one state lock and one condition variable
//! ([`state`]); the queues between them are in [`queue`], the byte rules
//! that bound them in [`memory`].

use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_synth::RecordedShape;
use rand::rngs::StdRng;
use rand::SeedableRng;

use self::queue::Pending;
use self::state::{JobState, Shared, State};
use self::synth_worker::Lane;
use crate::backends::cuda::MemoryCap;
use crate::backends::{select, ProveBackend};
use crate::budget::MemoryBudget;
use crate::dropper::Dropper;
use crate::job::{Job, JobId, JobResult, Timings};
use crate::recordings::{RecordingBudget, RecordingStatus, Recordings};
use crate::srs::SrsCache;
use crate::timeline::{Event, Timeline};
use crate::EngineError;

/// How an engine is built.
pub(crate) mod config;
/// Each device's standing: current job, busy time, faults, service.
mod devices;
/// Bytes of partitions, parameters and recordings, and their reservation.
mod memory;
/// The prove threads.
mod prove_worker;
/// Pending, ready and batched partitions.
mod queue;
/// What the engine's threads share.
mod state;
/// The synthesis threads.
mod synth_worker;

pub use self::config::Config;
pub use self::devices::DeviceStatus;

/// Where a job stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobStatus {
    /// Accepted; some partitions are still waiting or running.
    Running {
        /// Partitions synthesized so far.
        synthesized: usize,
        /// Partitions proved so far.
        proved: usize,
        /// Partitions in the job.
        total: usize,
    },
    /// Ended, with proofs or an error (the handle has the outcome).
    Finished,
}

/// The proving engine. Dropping it fails every unfinished job with
/// [`EngineError::Shutdown`] and joins its threads.
pub struct Engine {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    backend_names: Vec<String>,
}

/// Waits for, cancels and inspects one submitted job.
pub struct JobHandle {
    id: JobId,
    rx: Receiver<Result<JobResult, EngineError>>,
    shared: Arc<Shared>,
}

impl Engine {
    /// Starts the engine's workers. Fails only when the configured backend is
    /// unavailable here (e.g. a GPU was asked for and none is present).
    pub fn new(mut config: Config) -> Result<Engine, EngineError> {
        let backends = match config.backends.take() {
            Some(b) if !b.is_empty() => b,
            Some(_) => return Err(EngineError::BackendUnavailable("no backend given".into())),
            None => {
                let cap = config.device_memory.map(|bytes| MemoryCap { bytes, enforce: config.device_memory_enforce });
                select::select(config.backend, config.host_timing, cap).map_err(EngineError::BackendUnavailable)?.0
            }
        };
        let backend_names = backends.iter().map(|b| b.name()).collect();
        let rng = match config.rng_seed {
            Some(seed) => StdRng::seed_from_u64(seed),
            None => StdRng::from_entropy(),
        };
        // Each synthesis thread runs its partition inside this pool (`install`),
        // so the pool has a worker for each of them at least: with fewer, an
        // urgent partition would queue behind busy ones.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let synth_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(cores.max(config.synthesis_workers.max(1) + config.urgent_synthesis_workers))
            .thread_name(|i| format!("cuzk-synth-pool-{i}"))
            .start_handler(|_| synth_worker::yield_cpu_to_provers())
            .build()
            .map_err(|e| EngineError::Threads(e.to_string()))?;
        let urgent_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(cores)
            .thread_name(|i| format!("cuzk-urgent-pool-{i}"))
            .build()
            .map_err(|e| EngineError::Threads(e.to_string()))?;
        let state = Arc::new(Mutex::new(State {
            shutdown: false,
            next_id: 0,
            pending: BinaryHeap::new(),
            ready: Vec::new(),
            jobs: HashMap::new(),
            budget: MemoryBudget::new(config.memory_budget),
            srs_reserved: HashMap::new(),
            recordings_reserved: 0,
            rng,
            devices: vec![Default::default(); backends.len()],
            admitting: Vec::new(),
        }));
        let wake = Arc::new(Condvar::new());
        let shared = Arc::new(Shared {
            state: state.clone(),
            wake: wake.clone(),
            srs: SrsCache::with_on_load(config.point_checks, config.load_progress.take(), prepare_all(&backends)),
            recordings: Recordings::new(
                config.synthesis,
                config.recordings_dir.take(),
                backends.iter().all(|b| b.takes_witnesses()).then(|| prepare_shapes(&backends, &state, &wake)),
                RecordingBudget { reserve: reserve_recording(&state), partition_bytes: memory::partition_bytes },
            ),
            dropper: Dropper::new(),
            timeline: config.timeline.take().map(Timeline::new),
            device_locks: backends.iter().map(|_| Mutex::new(())).collect(),
            backends,
            synth_pool,
            urgent_pool,
            max_batch: config.max_batch.max(1),
            self_check: config.self_check,
        });
        let mut threads = Vec::new();
        for i in 0..config.synthesis_workers.max(1) {
            let s = shared.clone();
            threads.push(spawn(format!("cuzk-synth-{i}"), move || synth_worker::run(&s, Lane::Any)));
        }
        for i in 0..config.urgent_synthesis_workers {
            let s = shared.clone();
            threads.push(spawn(format!("cuzk-synth-urgent-{i}"), move || synth_worker::run(&s, Lane::Urgent)));
        }
        for d in 0..shared.backends.len() {
            for w in 0..config.workers_per_device.max(1) {
                let s = shared.clone();
                threads.push(spawn(format!("cuzk-prove-{d}.{w}"), move || prove_worker::run(&s, d)));
            }
        }
        Ok(Engine { shared, threads, backend_names })
    }

    /// Bytes of the memory budget one partition proved against `params`
    /// reserves while it is synthesized and, with a, b, c, until it is
    /// proved: its witness, a/b/c, density bitsets and the backend's
    /// temporaries (an estimate; callers size budgets with it).
    pub fn partition_bytes(params: &Parameters) -> u64 {
        memory::partition_bytes(params)
    }

    /// Loads the parameters in `params` (and uploads them to every GPU), and
    /// their recorded constraint system when one was saved, now instead of
    /// when the first job needs them, then waits for what the backends build
    /// from them in the background (`ProveBackend::settle`); returns the
    /// milliseconds it took. The memory budget covers them as it would for a job.
    pub fn preload(&self, params: impl Into<PathBuf>) -> Result<f64, EngineError> {
        let path = params.into();
        let mut st = self.shared.lock();
        self.shared.reserve_srs(&mut st, &path)?;
        drop(st);
        let (params, ms) = self.shared.load_params(&path)?;
        // Parameters loaded by an earlier preload were settled by it (a
        // load that found them resident takes 0 ms).
        let mut settle_ms = 0.0;
        if ms > 0.0 {
            let settle = Instant::now();
            for b in &self.shared.backends {
                b.settle(&params);
            }
            settle_ms = settle.elapsed().as_secs_f64() * 1e3;
        }
        Ok(ms + settle_ms + self.shared.recordings.synthesizer(&path, &params).warm())
    }

    /// Where each parameter file's recorded constraint system stands.
    pub fn recordings(&self) -> Vec<RecordingStatus> {
        self.shared.recordings.status()
    }

    /// Waits until fresh recordings are written to their files (dropping the
    /// engine waits too).
    pub fn finish_recordings(&self) {
        self.shared.recordings.finish_saves();
    }

    /// The devices proofs run on (`cpu`, `cuda:0`, ...).
    pub fn backends(&self) -> &[String] {
        &self.backend_names
    }

    /// Every device, in the order of [`Engine::backends`]: the job it proves
    /// now, its busy time and faults, whether it is in service, its memory.
    pub fn devices(&self) -> Vec<DeviceStatus> {
        let states = self.shared.lock().devices.clone();
        self.shared
            .backends
            .iter()
            .zip(states)
            .map(|(b, d)| DeviceStatus {
                name: b.name(),
                current_job: d.current_job,
                busy_ms: d.busy_ms,
                calls: d.calls,
                faults: d.faults,
                out_of_service: d.retired,
                memory: b.memory(),
            })
            .collect()
    }

    /// Queues a job; its partitions start synthesizing as soon as workers and
    /// memory allow.
    pub fn submit(&self, job: Job) -> Result<JobHandle, EngineError> {
        if job.is_empty() {
            return Err(EngineError::EmptyJob);
        }
        let (tx, rx) = sync_channel(1);
        let mut st = self.shared.lock();
        if st.shutdown {
            return Err(EngineError::Shutdown);
        }
        if let Some(why) = st.no_device_left() {
            return Err(EngineError::BackendUnavailable(why));
        }
        let id = st.next_id;
        st.next_id += 1;
        let n = job.partitions.len();
        for (part, (synthesize, expect)) in job.partitions.into_iter().zip(job.expected).enumerate() {
            st.pending.push(Pending { priority: job.priority, job: id, part, synthesize, expect });
        }
        st.jobs.insert(
            id,
            JobState {
                params: job.params,
                priority: job.priority,
                proofs: vec![None; n],
                synthesized: 0,
                submitted: Instant::now(),
                first_synth: None,
                timings: Timings::default(),
                backends: BTreeSet::new(),
                done: tx,
            },
        );
        drop(st);
        tracing::info!(job = id, partitions = n, "submitted");
        self.shared.record(Event::Submit, id, &[], None);
        self.shared.wake.notify_all();
        Ok(JobHandle { id, rx, shared: self.shared.clone() })
    }

    /// Bytes of the memory budget reserved right now.
    pub fn memory_in_use(&self) -> u64 {
        self.shared.lock().budget.used()
    }

    /// The whole memory budget, in bytes.
    pub fn memory_budget(&self) -> u64 {
        self.shared.lock().budget.total()
    }

    /// Cancels job `id` as [`JobHandle::cancel`] does (for callers that keep
    /// ids while another thread waits on the handle); false when the job has
    /// already ended.
    pub fn cancel(&self, id: JobId) -> bool {
        let mut st = self.shared.lock();
        let in_flight = st.jobs.contains_key(&id);
        if in_flight {
            self.shared.fail(&mut st, id, EngineError::Cancelled);
        }
        drop(st);
        self.shared.wake.notify_all();
        in_flight
    }

    /// Whether job `id` is in flight and one of its partitions has begun
    /// (holds its memory and is synthesizing, or has gone further).
    pub fn started(&self, id: JobId) -> bool {
        self.shared.lock().jobs.get(&id).is_some_and(|j| j.first_synth.is_some())
    }

    /// Every parameter file resident or loading, with its resident bytes and
    /// the unfinished jobs proved against it.
    pub fn resident_params(&self) -> Vec<ResidentParams> {
        let files = self.shared.srs.entries();
        let st = self.shared.lock();
        files
            .into_iter()
            .map(|(path, bytes, loaded)| {
                let jobs = st.jobs.values().filter(|j| j.params == path).count();
                ResidentParams { path, bytes, loaded, jobs }
            })
            .collect()
    }

    /// Evicts the parameters in `params` now, with what the devices built
    /// from them, and gives their bytes back to the budget; returns those
    /// bytes, or `None` when they were not resident. Refused with
    /// [`EngineError::InUse`] while an unfinished job is proved against them,
    /// a partition holds them, or they are still loading.
    pub fn evict(&self, params: &Path) -> Result<Option<u64>, EngineError> {
        let mut st = self.shared.lock();
        let in_use = |why: String| EngineError::InUse { path: params.to_path_buf(), why };
        let jobs = st.jobs.values().filter(|j| j.params == params).count();
        if jobs > 0 {
            return Err(in_use(format!("{jobs} unfinished job(s) are proved against them")));
        }
        let removed = self.shared.srs.remove_unheld(params).map_err(|why| in_use(why.to_string()))?;
        let reserved = st.srs_reserved.remove(params);
        if let Some(bytes) = reserved {
            st.budget.release(bytes);
        }
        drop(st);
        self.shared.wake.notify_all();
        Ok(removed.map(|_| reserved.unwrap_or(0)))
    }
}

/// A parameter file the engine holds (see [`Engine::resident_params`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResidentParams {
    /// The file.
    pub path: PathBuf,
    /// Bytes it takes resident (its length: points are stored uncompressed).
    pub bytes: u64,
    /// False while it is still loading.
    pub loaded: bool,
    /// Unfinished jobs proved against it.
    pub jobs: usize,
}

impl Drop for Engine {
    fn drop(&mut self) {
        {
            let mut st = self.shared.lock();
            st.shutdown = true;
            let ids: Vec<JobId> = st.jobs.keys().copied().collect();
            for id in ids {
                self.shared.fail(&mut st, id, EngineError::Shutdown);
            }
        }
        self.shared.wake.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.shared.recordings.finish_saves();
    }
}

impl JobHandle {
    /// The job's id.
    pub fn id(&self) -> JobId {
        self.id
    }

    /// Blocks until the job ends.
    pub fn wait(self) -> Result<JobResult, EngineError> {
        self.rx.recv().unwrap_or(Err(EngineError::Shutdown))
    }

    /// Cancels the job at whatever stage it is; its queued work is dropped,
    /// work already running finishes and is discarded. No effect once ended.
    pub fn cancel(&self) {
        let mut st = self.shared.lock();
        if st.jobs.contains_key(&self.id) {
            self.shared.fail(&mut st, self.id, EngineError::Cancelled);
        }
        drop(st);
        self.shared.wake.notify_all();
    }

    /// Where the job stands.
    pub fn status(&self) -> JobStatus {
        let st = self.shared.lock();
        match st.jobs.get(&self.id) {
            Some(j) => JobStatus::Running {
                synthesized: j.synthesized,
                proved: j.proofs.iter().filter(|p| p.is_some()).count(),
                total: j.proofs.len(),
            },
            None => JobStatus::Finished,
        }
    }
}

/// The load hook that prepares every backend for new parameters, all
/// devices at once (each uploads over its own link).
fn prepare_all(backends: &[Arc<dyn ProveBackend>]) -> crate::srs::OnLoad {
    let backends = backends.to_vec();
    Box::new(move |params: &Arc<Parameters>| {
        std::thread::scope(|scope| {
            let tasks: Vec<_> = backends
                .iter()
                .map(|b| scope.spawn(move || b.prepare(params).map_err(|e| format!("{}: {e}", b.name()))))
                .collect();
            tasks.into_iter().try_for_each(|t| t.join().unwrap_or_else(|_| Err("a backend panicked while preparing parameters".into())))
        })?;
        // When every device holds the bases, the host copy (a Filecoin
        // parameter file is ~47 GB) serves nothing more: keep the key and
        // the counts, and let the backends know the slim set stands for it.
        if !backends.iter().all(|b| b.holds_bases(params)) {
            return Ok(None);
        }
        let slim = Arc::new(params.without_bases());
        for b in &backends {
            b.adopt_slim(params, &slim);
        }
        Ok(Some(slim))
    })
}

/// Gives every backend its copy of a recording that just became ready, all
/// at once; a backend that fails here tries again in its first prove call,
/// whose job then carries the error.
///
/// Then it wakes the synthesis threads waiting for budget bytes: from now
/// on their partitions stop at the witness and need fewer (the state lock
/// is taken first, so none is between its check and its wait).
fn prepare_shapes(backends: &[Arc<dyn ProveBackend>], state: &Arc<Mutex<State>>, wake: &Arc<Condvar>) -> crate::synthesis::OnReady {
    let backends = backends.to_vec();
    let (state, wake) = (state.clone(), wake.clone());
    Box::new(move |shape: &Arc<RecordedShape<Scalar>>| {
        std::thread::scope(|scope| {
            for b in &backends {
                scope.spawn(move || {
                    if let Err(e) = b.prepare_shape(shape) {
                        tracing::warn!(backend = %b.name(), error = %e, "recorded shape not prepared");
                    }
                });
            }
        });
        drop(state.lock().unwrap_or_else(|p| p.into_inner()));
        wake.notify_all();
    })
}

/// The budget's reservation of a recording about to be published: kept
/// for the engine's life when a partition of the given bytes still fits
/// beside it and the parameters, else the budget's total for the message.
fn reserve_recording(state: &Arc<Mutex<State>>) -> crate::synthesis::Reserve {
    let state = state.clone();
    Arc::new(move |bytes, partition| {
        let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
        if st.admit_recording(bytes, partition) {
            Ok(())
        } else {
            Err(st.budget.total())
        }
    })
}

fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    std::thread::Builder::new().name(name).spawn(f).expect("spawning an engine thread")
}
