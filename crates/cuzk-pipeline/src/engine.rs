use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_groth16::{Parameters, PointChecks, Proof};
use cuzk_synth::{ProvingAssignment, RecordedShape, Witness};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::backend::{self, BackendChoice, ProveBackend};
use crate::budget::MemoryBudget;
use crate::dropper::Dropper;
use crate::job::{Job, JobId, JobResult, Priority, Synthesize, Synthesized, Timings};
use crate::recordings::{RecordingStatus, Recordings, SynthesisMode};
use crate::srs::{LoadProgress, SrsCache};
use crate::timeline::{Event, Timeline};
use crate::EngineError;

/// How an engine is built. The library reads no environment variables: every
/// knob is here.
pub struct Config {
    /// Which backend proves (ignored when `backends` is given).
    pub backend: BackendChoice,
    /// Explicit backends, one per device (tests use simulated CPU devices).
    pub backends: Option<Vec<Arc<dyn ProveBackend>>>,
    /// Threads synthesizing partitions (each synthesis is itself sequential).
    pub synthesis_workers: usize,
    /// Prove workers per device; the device lock is held only around kernel work.
    pub workers_per_device: usize,
    /// Most partitions of one job proved in one backend call.
    pub max_batch: usize,
    /// Bytes for resident parameters, witnesses, a/b/c and backend temporaries.
    pub memory_budget: u64,
    /// Checks applied to points when a parameter file loads.
    pub point_checks: PointChecks,
    /// Verify every proof before returning it.
    pub self_check: bool,
    /// Where to write the JSON-lines timeline, if anywhere.
    pub timeline: Option<Box<dyn Write + Send>>,
    /// Called while parameter files load.
    pub load_progress: Option<LoadProgress>,
    /// Ask GPU backends for their per-stage `CUZK_TIMING:` line on stderr
    /// (the figures come back in [`Timings::stages`] either way).
    pub host_timing: bool,
    /// Seed for r and s (tests compare backends on equal randomness); fresh
    /// entropy when `None`.
    pub rng_seed: Option<u64>,
    /// Classic synthesis, or recorded matrices with witness-only synthesis.
    pub synthesis: SynthesisMode,
    /// Where recordings persist between runs; in memory only when `None`.
    pub recordings_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Config {
            backend: BackendChoice::Auto,
            backends: None,
            synthesis_workers: cores.clamp(1, 8),
            workers_per_device: 1,
            max_batch: 16,
            memory_budget: default_memory_budget(),
            point_checks: PointChecks::OnCurve,
            self_check: false,
            timeline: None,
            load_progress: None,
            host_timing: false,
            rng_seed: None,
            synthesis: SynthesisMode::default(),
            recordings_dir: None,
        }
    }
}

/// Three quarters of physical memory (read from /proc/meminfo), or 16 GiB
/// where that cannot be read.
pub fn default_memory_budget() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    });
    total_kib.map(|k| k * 1024 / 4 * 3).unwrap_or(16 << 30)
}

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

/// Backend temporaries are assumed to take as much again as the witness and
/// a/b/c they work on (the CPU prover's coset vectors, the GPU host's split
/// vectors and pinned staging).
const TEMPORARIES_FACTOR: u64 = 2;

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

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    srs: SrsCache,
    recordings: Recordings,
    dropper: Dropper,
    timeline: Option<Timeline>,
    backends: Vec<Arc<dyn ProveBackend>>,
    /// Runs synthesis's parallel work (the sparse products) at the
    /// synthesis threads' lowered priority (see [`SYNTH_NICE_STEPS`]).
    synth_pool: rayon::ThreadPool,
    device_locks: Vec<Mutex<()>>,
    max_batch: usize,
    self_check: bool,
}

struct State {
    shutdown: bool,
    next_id: JobId,
    pending: BinaryHeap<Pending>,
    ready: Vec<Ready>,
    jobs: HashMap<JobId, JobState>,
    budget: MemoryBudget,
    srs_reserved: HashMap<PathBuf, u64>,
    /// Bytes of recorded constraint systems, held for the engine's life.
    recordings_reserved: u64,
    rng: StdRng,
}

struct JobState {
    params: PathBuf,
    priority: Priority,
    proofs: Vec<Option<Proof>>,
    synthesized: usize,
    submitted: Instant,
    first_synth: Option<Instant>,
    timings: Timings,
    backends: BTreeSet<String>,
    done: SyncSender<Result<JobResult, EngineError>>,
}

/// A partition waiting for synthesis; the heap pops the highest priority,
/// then the oldest job, then the lowest partition index.
struct Pending {
    priority: Priority,
    job: JobId,
    part: usize,
    synthesize: Synthesize,
}

struct Ready {
    priority: Priority,
    job: JobId,
    part: usize,
    assignment: Synthesized,
    reserved: u64,
}

/// The partitions of one backend call, all of one kind.
enum Batch {
    Assignments(Vec<ProvingAssignment<Scalar>>),
    /// Witnesses of one recorded shape.
    Witnesses(Arc<RecordedShape<Scalar>>, Vec<Witness<Scalar>>),
}

impl Batch {
    /// Adds `s` when it is of the batch's kind and the batch has fewer than
    /// `max` partitions; else gives it back.
    fn join(batch: &mut Option<Batch>, s: Synthesized, max: usize) -> Option<Synthesized> {
        match (batch.as_mut(), s) {
            (None, Synthesized::Assignment(pa)) => *batch = Some(Batch::Assignments(vec![*pa])),
            (None, Synthesized::Witness(w, shape)) => *batch = Some(Batch::Witnesses(shape, vec![w])),
            (Some(Batch::Assignments(v)), Synthesized::Assignment(pa)) if v.len() < max => v.push(*pa),
            (Some(Batch::Witnesses(shape, v)), Synthesized::Witness(w, other))
                if v.len() < max && Arc::ptr_eq(shape, &other) =>
            {
                v.push(w)
            }
            (_, s) => return Some(s),
        }
        None
    }

    fn prove(
        &self,
        backend: &dyn ProveBackend,
        params: &Arc<Parameters>,
        randomness: &[(Scalar, Scalar)],
    ) -> Result<backend::ProveOutput, String> {
        match self {
            Batch::Assignments(v) => backend.prove(params, v, randomness),
            Batch::Witnesses(shape, v) => backend.prove_witnesses(params, shape, v, randomness),
        }
    }

    /// The public inputs of every partition, the constant one left out.
    fn public_inputs(&self) -> Vec<&[Scalar]> {
        match self {
            Batch::Assignments(v) => v.iter().map(|pa| &pa.input_assignment[1..]).collect(),
            Batch::Witnesses(_, v) => v.iter().map(|w| &w.inputs[1..]).collect(),
        }
    }
}

/// What a prove worker takes from the ready partitions.
struct Taken {
    job: JobId,
    parts: Vec<usize>,
    reserved: u64,
    batch: Batch,
}

impl State {
    /// Bytes of the budget that partitions can ever have: the total less
    /// resident parameters and recordings.
    fn room_for_partitions(&self) -> u64 {
        let held = self.srs_reserved.values().sum::<u64>() + self.recordings_reserved;
        self.budget.total().saturating_sub(held)
    }
}

impl Pending {
    fn key(&self) -> (Priority, Reverse<JobId>, Reverse<usize>) {
        (self.priority, Reverse(self.job), Reverse(self.part))
    }
}
impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl Engine {
    /// Starts the engine's workers. Fails only when the configured backend is
    /// unavailable here (e.g. a GPU was asked for and none is present).
    pub fn new(mut config: Config) -> Result<Engine, EngineError> {
        let (backends, _) = match config.backends.take() {
            Some(b) if !b.is_empty() => (b, "given".to_string()),
            Some(_) => return Err(EngineError::BackendUnavailable("no backend given".into())),
            None => backend::select(config.backend, config.host_timing)?,
        };
        let backend_names = backends.iter().map(|b| b.name()).collect();
        let rng = match config.rng_seed {
            Some(seed) => StdRng::seed_from_u64(seed),
            None => StdRng::from_entropy(),
        };
        let synth_pool = rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("cuzk-synth-pool-{i}"))
            .start_handler(|_| yield_cpu_to_provers())
            .build()
            .map_err(|e| EngineError::Threads(e.to_string()))?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                shutdown: false,
                next_id: 0,
                pending: BinaryHeap::new(),
                ready: Vec::new(),
                jobs: HashMap::new(),
                budget: MemoryBudget::new(config.memory_budget),
                srs_reserved: HashMap::new(),
                recordings_reserved: 0,
                rng,
            }),
            wake: Condvar::new(),
            srs: SrsCache::with_on_load(config.point_checks, config.load_progress.take(), prepare_all(&backends)),
            recordings: Recordings::new(
                config.synthesis,
                config.recordings_dir.take(),
                backends.iter().all(|b| b.takes_witnesses()).then(|| prepare_shapes(&backends)),
            ),
            dropper: Dropper::new(),
            timeline: config.timeline.take().map(Timeline::new),
            device_locks: backends.iter().map(|_| Mutex::new(())).collect(),
            backends,
            synth_pool,
            max_batch: config.max_batch.max(1),
            self_check: config.self_check,
        });
        let mut threads = Vec::new();
        for i in 0..config.synthesis_workers.max(1) {
            let s = shared.clone();
            threads.push(spawn(format!("cuzk-synth-{i}"), move || synth_worker(&s)));
        }
        for d in 0..shared.backends.len() {
            for w in 0..config.workers_per_device.max(1) {
                let s = shared.clone();
                threads.push(spawn(format!("cuzk-prove-{d}.{w}"), move || prove_worker(&s, d)));
            }
        }
        Ok(Engine { shared, threads, backend_names })
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
        let id = st.next_id;
        st.next_id += 1;
        let n = job.partitions.len();
        for (part, synthesize) in job.partitions.into_iter().enumerate() {
            st.pending.push(Pending { priority: job.priority, job: id, part, synthesize });
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
fn prepare_shapes(backends: &[Arc<dyn ProveBackend>]) -> crate::recordings::OnReady {
    let backends = backends.to_vec();
    Box::new(move |shape: &Arc<RecordedShape<Scalar>>| {
        std::thread::scope(|scope| {
            for b in &backends {
                scope.spawn(move || {
                    if let Err(e) = b.prepare_shape(shape) {
                        tracing::warn!(backend = %b.name(), error = %e, "recorded shape not prepared");
                    }
                });
            }
        })
    })
}

fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    std::thread::Builder::new().name(name).spawn(f).expect("spawning an engine thread")
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl Shared {
    /// The parameters in `path`, loading them on a miss; a failed load gives
    /// its budget reservation back.
    fn load_params(&self, path: &std::path::Path) -> Result<(Arc<Parameters>, f64), EngineError> {
        let (params, ms) = self.srs.get(path).map_err(|message| {
            let mut st = self.lock();
            if let Some(b) = st.srs_reserved.remove(path) {
                st.budget.release(b);
            }
            EngineError::Params { path: path.to_path_buf(), message }
        })?;
        if !params.has_bases() {
            // The devices hold the bases: the host keeps the key alone.
            let kept = params.vk.ic.len() as u64 * 96 + 1024;
            let mut st = self.lock();
            let State { srs_reserved, budget, .. } = &mut *st;
            if let Some(reserved) = srs_reserved.get_mut(path).filter(|r| **r > kept) {
                budget.release(*reserved - kept);
                *reserved = kept;
                drop(st);
                self.wake.notify_all();
            }
        }
        Ok((params, ms))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.wake.wait(guard).unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record(&self, event: Event, job: JobId, parts: &[usize], device: Option<&str>) {
        if let Some(t) = &self.timeline {
            t.record(event, job, parts, device);
        }
    }

    /// Ends a job with an error: its queued partitions are dropped when popped,
    /// its synthesized ones are freed in the background.
    fn fail(&self, st: &mut State, id: JobId, err: EngineError) {
        let Some(job) = st.jobs.remove(&id) else { return };
        let mut i = 0;
        while i < st.ready.len() {
            if st.ready[i].job == id {
                let r = st.ready.swap_remove(i);
                st.budget.release(r.reserved);
                self.dropper.drop_then(r.assignment, || {});
            } else {
                i += 1;
            }
        }
        tracing::warn!(job = id, error = %err, "failed");
        let _ = job.done.send(Err(err));
        self.record(Event::Done, id, &[], None);
    }

    /// Bytes one partition of a circuit matching `params` holds: its witness,
    /// a/b/c, density bitsets, and the backend's temporaries.
    fn partition_bytes(params: &Parameters) -> u64 {
        let domain = params.counts().h as u64 + 1;
        let vars = (params.vk.ic.len() + params.counts().l) as u64;
        (3 * domain + vars) * 32 * TEMPORARIES_FACTOR + vars / 2
    }

    /// What a partition that stopped at its witness holds until it is
    /// proved: the witness and the host function's split of it (bitmaps,
    /// tail scalars; at most two queries' worth of scalars when dense), but
    /// no a, b, c. Synthesis reserves `partition_bytes` (it cannot know the
    /// outcome in advance) and gives the difference back after.
    fn witness_bytes(params: &Parameters) -> u64 {
        let vars = (params.vk.ic.len() + params.counts().l) as u64;
        vars * 32 * (1 + TEMPORARIES_FACTOR) + vars / 2
    }

    /// Reserves the resident bytes of a parameter file the first time it is
    /// needed, evicting unused files if that makes room.
    fn reserve_srs(&self, st: &mut State, path: &PathBuf) -> Result<(), EngineError> {
        if st.srs_reserved.contains_key(path) {
            return Ok(());
        }
        let bytes = SrsCache::resident_bytes(path)
            .map_err(|message| EngineError::Params { path: path.clone(), message })?;
        while !st.budget.try_reserve(bytes) {
            match self.srs.evict_one(path) {
                Some(_) => {
                    let evicted: Vec<PathBuf> = st
                        .srs_reserved
                        .keys()
                        .filter(|p| !self.srs.contains(p))
                        .cloned()
                        .collect();
                    for p in evicted {
                        let b = st.srs_reserved.remove(&p).unwrap_or(0);
                        st.budget.release(b);
                    }
                }
                None => {
                    return Err(EngineError::TooLarge { needed: bytes, budget: st.budget.total() })
                }
            }
        }
        st.srs_reserved.insert(path.clone(), bytes);
        Ok(())
    }
}

/// How far synthesis threads lower their priority (nice 0 → 10, a CPU
/// share of about 1 to 9 against a normal thread). The engine is as fast as
/// its devices are fed: with four H200s sharing 64 cores, synthesis at equal
/// priority stretched the host-function calls' CPU stages (split, uploads,
/// epilogue) from ~0.8 s to ~1.6 s per 10 partitions. Synthesis still gets
/// every core the provers leave idle.
const SYNTH_NICE_STEPS: i32 = 10;

/// Lowers the calling thread's priority for synthesis; where the system
/// does not allow it, synthesis runs at normal priority (logged once).
fn yield_cpu_to_provers() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if let Err(e) = cuzk_gpu::host::lower_thread_priority(SYNTH_NICE_STEPS) {
        WARNED.call_once(|| tracing::warn!(error = %e, "synthesis threads keep normal priority"));
    }
}

fn synth_worker(s: &Shared) {
    yield_cpu_to_provers();
    loop {
        let mut st = s.lock();
        let task = loop {
            if st.shutdown {
                return;
            }
            match st.pending.pop() {
                Some(t) if st.jobs.contains_key(&t.job) => break t,
                Some(_) => continue,
                None => st = s.wait(st),
            }
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
        let bytes = Shared::partition_bytes(&params);
        let witness_bytes = Shared::witness_bytes(&params).min(bytes);
        let synthesizer = s.recordings.synthesizer(&path, &params);
        drop(params);

        let mut st = s.lock();
        loop {
            if st.shutdown || !st.jobs.contains_key(&task.job) {
                break;
            }
            if st.budget.try_reserve(bytes) {
                break;
            }
            if bytes > st.room_for_partitions() {
                let needed = bytes + st.srs_reserved.get(&path).copied().unwrap_or(0);
                let budget = st.budget.total();
                s.fail(&mut st, task.job, EngineError::TooLarge { needed, budget });
                break;
            }
            st = s.wait(st);
        }
        let Some(job) = st.jobs.get_mut(&task.job) else { continue };
        job.timings.srs_ms = job.timings.srs_ms.max(srs_ms);
        job.first_synth.get_or_insert_with(|| {
            let now = Instant::now();
            job.timings.queue_ms = (now - job.submitted).as_secs_f64() * 1e3;
            now
        });
        drop(st);

        let span = tracing::info_span!("synthesize", job = task.job, partition = task.part).entered();
        s.record(Event::SynthStart, task.job, &[task.part], None);
        let start = Instant::now();
        let result = s.synth_pool.install(|| (task.synthesize)(&synthesizer));
        let synth_ms = ms_since(start);
        s.record(Event::SynthEnd, task.job, &[task.part], None);
        let report = synthesizer.report();
        tracing::debug!(synth_ms, ok = result.is_ok(), stages = ?report.stages(), "synthesized");
        drop(span);

        let mut st = s.lock();
        // A recording stays as long as the engine. It is kept only while a
        // partition still fits beside it and the parameters; otherwise the
        // parameter file's partitions go back to classic synthesis.
        let rec = report.new_recording_bytes;
        if rec > 0 {
            if rec.saturating_add(bytes) <= st.room_for_partitions() && st.budget.try_reserve(rec) {
                st.recordings_reserved += rec;
            } else {
                synthesizer.disable(st.budget.total());
            }
        }
        if let Some(job) = st.jobs.get_mut(&task.job) {
            job.timings.add_stages(&report.stages());
        }
        match (result, st.jobs.get_mut(&task.job)) {
            (Ok(assignment), Some(job)) => {
                job.timings.synth_ms += synth_ms;
                job.synthesized += 1;
                let priority = job.priority;
                let reserved = match assignment {
                    Synthesized::Witness(..) => witness_bytes,
                    Synthesized::Assignment(_) => bytes,
                };
                st.budget.release(bytes - reserved);
                st.ready.push(Ready { priority, job: task.job, part: task.part, assignment, reserved });
            }
            (Err(e), Some(_)) => {
                st.budget.release(bytes);
                let err = EngineError::Synthesis { partition: task.part, message: e.to_string() };
                s.fail(&mut st, task.job, err);
            }
            (Ok(assignment), None) => {
                st.budget.release(bytes);
                s.dropper.drop_then(assignment, || {});
            }
            (Err(_), None) => st.budget.release(bytes),
        }
        drop(st);
        s.wake.notify_all();
    }
}

/// Takes ready partitions of the most urgent job (highest priority, then
/// oldest), lowest partition first: at most `max`, all of the lowest one's
/// kind (assignments, or witnesses of one shape), for one backend call.
fn take_batch(ready: &mut Vec<Ready>, max: usize) -> Option<Taken> {
    let best = ready.iter().map(|r| (r.priority, Reverse(r.job))).max()?;
    let job = best.1 .0;
    let mut mine: Vec<Ready> = Vec::new();
    let mut i = 0;
    while i < ready.len() {
        if ready[i].job == job {
            mine.push(ready.swap_remove(i));
        } else {
            i += 1;
        }
    }
    mine.sort_by_key(|r| r.part);
    let (mut batch, mut parts, mut reserved) = (None, Vec::new(), 0);
    for Ready { priority, job, part, assignment, reserved: bytes } in mine {
        match Batch::join(&mut batch, assignment, max) {
            None => {
                parts.push(part);
                reserved += bytes;
            }
            Some(assignment) => ready.push(Ready { priority, job, part, assignment, reserved: bytes }),
        }
    }
    batch.map(|batch| Taken { job, parts, reserved, batch })
}

fn prove_worker(s: &Shared, device: usize) {
    let backend = s.backends[device].clone();
    let name = backend.name();
    loop {
        let mut st = s.lock();
        let batch = loop {
            if st.shutdown {
                return;
            }
            // Leave every device a share of what is ready, so one device
            // does not take a whole job while another idles.
            let share = st.ready.len().div_ceil(s.backends.len()).max(1);
            if let Some(taken) = take_batch(&mut st.ready, s.max_batch.min(share)) {
                break taken;
            }
            st = s.wait(st);
        };
        let Taken { job: job_id, parts, reserved, batch } = batch;
        let Some(path) = st.jobs.get(&job_id).map(|j| j.params.clone()) else {
            st.budget.release(reserved);
            s.dropper.drop_then(batch, || {});
            continue;
        };
        let randomness: Vec<(Scalar, Scalar)> = parts
            .iter()
            .map(|_| {
                (
                    cuzk_groth16::random_nonzero_scalar(&mut st.rng),
                    cuzk_groth16::random_nonzero_scalar(&mut st.rng),
                )
            })
            .collect();
        drop(st);

        let outcome = s.srs.get(&path).map_err(|message| EngineError::Params { path, message }).and_then(
            |(params, _)| {
                let _span = tracing::info_span!("prove", job = job_id, partitions = ?parts, device = %name).entered();
                s.record(Event::ProveStart, job_id, &parts, Some(&name));
                let start = Instant::now();
                let out = {
                    let _device = s.device_locks[device].lock().unwrap_or_else(|p| p.into_inner());
                    batch.prove(&*backend, &params, &randomness)
                };
                let prove_ms = ms_since(start);
                s.record(Event::ProveEnd, job_id, &parts, Some(&name));
                let out = out.map_err(|message| EngineError::Prove { backend: name.clone(), message })?;
                if s.self_check {
                    self_check(&params, &batch.public_inputs(), &out.proofs)
                        .map_err(|message| EngineError::Prove { backend: name.clone(), message })?;
                }
                Ok((out, prove_ms))
            },
        );

        s.dropper.drop_then(batch, move || {});
        let mut st = s.lock();
        st.budget.release(reserved);
        match outcome {
            Ok((out, prove_ms)) => {
                if let Some(job) = st.jobs.get_mut(&job_id) {
                    job.timings.prove_ms += prove_ms;
                    job.timings.add_call(&out.breakdown, prove_ms);
                    let proofs = out.proofs;
                    job.backends.insert(name.clone());
                    for (part, proof) in parts.iter().zip(proofs) {
                        job.proofs[*part] = Some(proof);
                    }
                    if job.proofs.iter().all(Option::is_some) {
                        finish(s, &mut st, job_id);
                    }
                }
            }
            Err(e) => s.fail(&mut st, job_id, e),
        }
        drop(st);
        s.wake.notify_all();
    }
}

fn finish(s: &Shared, st: &mut State, id: JobId) {
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
    s.record(Event::Done, id, &[], None);
}

/// Verifies a batch's proofs against the inputs they were made for.
fn self_check(params: &Parameters, inputs: &[&[Scalar]], proofs: &[Proof]) -> Result<(), String> {
    let pvk = cuzk_groth16::prepare_verifying_key(&params.vk).map_err(|e| format!("self-check: {e}"))?;
    for (i, (inputs, p)) in inputs.iter().zip(proofs).enumerate() {
        match cuzk_groth16::verify_proof(&pvk, p, inputs) {
            Ok(true) => {}
            Ok(false) => return Err(format!("self-check: proof {i} of the batch does not verify")),
            Err(e) => return Err(format!("self-check: proof {i}: {e}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::workloads::MulChain;

    fn ready(part: usize, assignment: Synthesized) -> Ready {
        Ready { priority: Priority::Normal, job: 1, part, assignment, reserved: 10 + part as u64 }
    }

    fn kind(t: &Taken) -> (Option<*const RecordedShape<Scalar>>, usize) {
        match &t.batch {
            Batch::Assignments(v) => (None, v.len()),
            Batch::Witnesses(shape, v) => (Some(Arc::as_ptr(shape)), v.len()),
        }
    }

    #[test]
    fn batches_hold_one_kind_lowest_partition_first_and_at_most_max() {
        let shape = |seed| Arc::new(RecordedShape::record(MulChain::<Scalar>::new(2, seed)).unwrap().0);
        let (s, t) = (shape(1), shape(2));
        let pa = || Synthesized::Assignment(Box::new(ProvingAssignment::new()));
        let w = |shape: &Arc<RecordedShape<Scalar>>| Synthesized::Witness(Witness::default(), shape.clone());
        let mut queue =
            vec![ready(3, w(&t)), ready(1, w(&s)), ready(0, pa()), ready(4, pa()), ready(2, w(&s)), ready(5, w(&s))];
        let mut take = |max| take_batch(&mut queue, max).unwrap();
        let first = take(8);
        assert_eq!((first.parts.clone(), first.reserved, kind(&first)), (vec![0, 4], 24, (None, 2)));
        let second = take(2);
        assert_eq!((second.parts.clone(), kind(&second)), (vec![1, 2], (Some(Arc::as_ptr(&s)), 2)));
        let third = take(8);
        assert_eq!((third.parts.clone(), kind(&third)), (vec![3], (Some(Arc::as_ptr(&t)), 1)));
        let fourth = take(8);
        assert_eq!((fourth.parts.clone(), kind(&fourth)), (vec![5], (Some(Arc::as_ptr(&s)), 1)));
        assert!(take_batch(&mut queue, 8).is_none());
    }
}
