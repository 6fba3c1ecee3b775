//! Running built-in workloads through the engine and reporting each job, for
//! `prove` and `bench` alike.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use blstrs::Scalar;
use cuzk::groth16::{prepare_verifying_key, verify_proofs_batch, ParamsSummary, PreparedVerifyingKey, VerifyingKey};
use cuzk::synth::workloads::Workload;
use clap::Args;
use cuzk::{BackendChoice, Config, Engine, Error, Job, JobHandle, JobResult, SynthesisMode, Timings};

use super::limits;
use super::progress::Progress;

/// A finished job with what is needed to report and check it.
pub struct Report {
    /// The engine's result.
    pub result: JobResult,
    /// Public inputs per proof.
    pub inputs: Vec<Vec<Scalar>>,
    /// Whether every proof verified.
    pub verified: bool,
}

/// The engine's settings, shared by `prove` and `bench`.
#[derive(Args)]
pub struct EngineArgs {
    /// `auto` (GPU if present, else CPU), `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "auto", value_parser = super::parse_backend)]
    pub backend: BackendChoice,
    /// Write a JSON-lines timeline of engine events here.
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// The engine's memory budget in GiB (default: three quarters of RAM).
    /// Peak resident memory stays within it plus ~32 MiB on a small machine
    /// (the process itself, and memory freed in the last 10 ms that the
    /// allocator gives back late; more threads, more of that), with 4 KiB
    /// pages: where transparent huge pages are `always`, tens of MiB more
    /// unless MIMALLOC_ALLOW_THP=0; transient copies while a parameter file
    /// loads aside.
    #[arg(long = "memory-gib", value_name = "GIB", value_parser = limits::memory_gib)]
    pub memory_budget: Option<u64>,
    /// Plan each GPU's memory as a card of this many GiB (SRS placement,
    /// MSM batches, tables): how smaller cards are measured on a larger one.
    /// Default: the card's own size.
    #[arg(long = "device-memory-gib", value_name = "GIB", value_parser = limits::device_memory_gib)]
    pub device_memory: Option<u64>,
    /// With --device-memory-gib, also take the memory above the cap, so that
    /// a call going past it fails loudly instead of using memory the smaller
    /// card would not have.
    #[arg(long, requires = "device_memory")]
    pub device_memory_enforce: bool,
    /// Partitions synthesized at once (default: one per core).
    #[arg(long, value_parser = limits::synth_workers)]
    pub synth_workers: Option<usize>,
    /// `recorded` (record the constraint matrices once per parameter file,
    /// then witness-only synthesis and sparse products) or `classic`.
    #[arg(long, default_value = "recorded", value_parser = |s: &str| s.parse::<SynthesisMode>())]
    pub synthesis: SynthesisMode,
    /// Where recordings persist between runs (default: cuzk/recordings
    /// under the user's cache directory, $XDG_CACHE_HOME or ~/.cache; in
    /// memory only when there is none). Never the parameter directory
    /// unless asked with --recordings-beside-params.
    #[arg(long)]
    pub recordings: Option<PathBuf>,
    /// Save recordings beside the parameter file, as earlier versions did
    /// (FILE.<digest>.r1cs; 6-9 GB per 32 GiB circuit).
    #[arg(long, conflicts_with = "recordings")]
    pub recordings_beside_params: bool,
}

/// Where recordings go: `explicit` (--recordings), beside the parameters
/// when asked (--recordings-beside-params), else cuzk/recordings under the
/// user's cache directory; None (memory only) when there is none. Shared
/// by the proving commands and `cuzk filecoin params --gpu`, whose
/// recording the first proof then finds.
pub fn recordings_dir(explicit: Option<&Path>, beside_params: bool, params: &Path) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    if beside_params {
        return params.parent().map(Path::to_path_buf);
    }
    dirs::cache_dir().map(|d| d.join("cuzk").join("recordings"))
}

/// Starts an engine for jobs against `params` and says which backend it is.
pub fn engine(a: &EngineArgs, params: &Path) -> Result<Engine, Error> {
    start(a, config(a, params)?)
}

/// The engine's configuration from the command line, for callers that
/// change more of it (`soak` turns the self-check on and seeds it).
pub fn config(a: &EngineArgs, params: &Path) -> Result<Config, Error> {
    let progress = Arc::new(Progress::new("params"));
    let recordings = recordings_dir(a.recordings.as_deref(), a.recordings_beside_params, params);
    let mut config = Config {
        backend: a.backend,
        // The library reads no environment; the CLI maps the documented
        // CUZK_TIMING=1 to the engine's flag.
        host_timing: std::env::var_os("CUZK_TIMING").is_some_and(|v| v == "1"),
        load_progress: Some(Arc::new(move |_: &Path, done: u64, total: u64| {
            progress.update("load", done, total)
        })),
        synthesis: a.synthesis,
        recordings_dir: recordings,
        ..Config::default()
    };
    if let Some(n) = a.synth_workers {
        config.synthesis_workers = n;
    }
    if let Some(bytes) = a.memory_budget {
        config.memory_budget = bytes;
    }
    config.device_memory = a.device_memory;
    config.device_memory_enforce = a.device_memory_enforce;
    if let Some(path) = &a.timeline {
        let file = std::fs::File::create(path).map_err(Error::io(path))?;
        config.timeline = Some(Box::new(std::io::BufWriter::new(file)));
    }
    Ok(config)
}

/// Starts an engine with `config` and says which backend it is.
pub fn start(a: &EngineArgs, config: Config) -> Result<Engine, Error> {
    let engine = Engine::new(config)?;
    eprintln!("backend={} synthesis={}", engine.backends().join(","), a.synthesis);
    Ok(engine)
}

/// Waits for recordings to reach their files, then says on stderr where each
/// stands (made, loaded, saved, or why not).
pub fn report_recordings(engine: &Engine) {
    engine.finish_recordings();
    for r in engine.recordings() {
        eprintln!("recording for {}: {}", r.params.display(), r.outcome);
    }
}

/// Submits one job of `partitions` circuits with fresh random witnesses.
pub fn submit(
    engine: &Engine,
    params: &Path,
    workload: Workload,
    size: usize,
    partitions: usize,
) -> Result<(JobHandle, Vec<Vec<Scalar>>), Error> {
    let mut job = Job::new(params);
    let mut inputs = Vec::with_capacity(partitions);
    for _ in 0..partitions {
        let circuit = workload.circuit::<Scalar>(size, rand::random())?;
        inputs.push(circuit.public_inputs());
        job = job.partition(circuit);
    }
    Ok((engine.submit(job)?, inputs))
}

/// Waits for a job and verifies its proofs.
pub fn finish(
    handle: JobHandle,
    inputs: Vec<Vec<Scalar>>,
    pvk: &PreparedVerifyingKey,
) -> Result<Report, Error> {
    let result = handle.wait()?;
    let verified = verify_proofs_batch(pvk, &mut rand::thread_rng(), &result.proofs, &inputs)?;
    Ok(Report { result, inputs, verified })
}

/// The verifying key at the start of a parameter file.
pub fn read_vk(params: &Path) -> Result<VerifyingKey, Error> {
    VerifyingKey::read_file(params).map_err(Error::params(params))
}

/// The counts of a parameter file, read from its headers.
pub fn inspect(params: &Path) -> Result<ParamsSummary, Error> {
    cuzk::groth16::inspect(params).map_err(Error::params(params))
}

/// The verifying key of a parameter file, prepared.
pub fn pvk(params: &Path) -> Result<PreparedVerifyingKey, Error> {
    Ok(prepare_verifying_key(&read_vk(params)?)?)
}

/// The human-readable line of a job; with a GPU backend a second line gives
/// the host function's stages and the gap between its last stage marker and
/// the engine's timer around the call.
pub fn text_line(r: &Report) -> String {
    timings_line(&r.result.timings, &r.result.backend)
}

/// [`text_line`] for any job's timings and backend.
pub fn timings_line(t: &Timings, backend: &str) -> String {
    let mut line = format!("{t} backend={backend}");
    if let (Some(pre), Some(call)) = (t.stage("pre_destructor_ms"), t.stage("call_ms")) {
        let stages: Vec<String> = t
            .stages
            .iter()
            .filter(|(n, _)| n != "call_ms")
            .map(|(n, ms)| format!("{}={ms:.1}", n.trim_end_matches("_ms")))
            .collect();
        line.push_str(&format!(
            "\n  host: {} ms; call={call:.1} ms gap={:.1} ms",
            stages.join(" "),
            call - pre
        ));
    }
    line
}

/// The JSON object of a job.
pub fn json_line(r: &Report, workload: Workload, size: usize, synthesis: SynthesisMode) -> serde_json::Value {
    let mut line = serde_json::json!({
        "job": r.result.id,
        "circuit": workload.to_string(),
        "size": size,
        "constraints": workload.expected_constraints(size),
        "batch": r.result.proofs.len(),
        "partitions": r.result.proofs.len(),
        "backend": r.result.backend,
        "synthesis": synthesis.to_string(),
        "verified": r.verified,
    });
    with_timings(&mut line, &r.result.timings);
    line
}

/// Adds a job's per-phase timing fields to its JSON object (`queue_ms`,
/// `srs_ms`, `synth_ms`, `prove_ms`, `gpu_ms`, `total_ms`, `stages`): every
/// command that reports a job names them alike.
pub fn with_timings(line: &mut serde_json::Value, t: &Timings) {
    let stages: serde_json::Map<_, _> = t.stages.iter().map(|(n, ms)| (n.clone(), serde_json::json!(ms))).collect();
    let fields = serde_json::json!({
        "queue_ms": t.queue_ms,
        "srs_ms": t.srs_ms,
        "synth_ms": t.synth_ms,
        "prove_ms": t.prove_ms,
        "gpu_ms": t.prove_ms,
        "total_ms": t.total_ms,
        "stages": stages,
    });
    if let (Some(line), serde_json::Value::Object(fields)) = (line.as_object_mut(), fields) {
        line.extend(fields);
    }
}
