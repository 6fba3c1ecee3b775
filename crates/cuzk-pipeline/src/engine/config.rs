use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use cuzk_groth16::PointChecks;

use crate::backends::select::BackendChoice;
use crate::backends::ProveBackend;
use crate::srs::LoadProgress;
use crate::synthesis::SynthesisMode;

/// How an engine is built. The library reads no environment variables: every
/// knob is here.
pub struct Config {
    /// Which backend proves (ignored when `backends` is given).
    pub backend: BackendChoice,
    /// Explicit backends, one per device (tests use simulated CPU devices).
    pub backends: Option<Vec<Arc<dyn ProveBackend>>>,
    /// Threads synthesizing partitions; each runs its partition's parallel
    /// work (a witness in parts, the sparse products) on the engine's pools.
    /// One per core by default: a partition that cannot be cut (SnapDeals)
    /// synthesizes on its own thread, so fewer workers leave cores idle;
    /// a partition cut into parts shares the synthesis pool, whose idle
    /// threads take the parts already running before another partition, so
    /// the extra workers mostly wait there. The memory budget bounds how
    /// many hold their bytes at once.
    pub synthesis_workers: usize,
    /// Threads beside them that synthesize only high and critical partitions,
    /// so that a WinningPoSt does not wait for a thread busy with a PoRep
    /// partition (0: none).
    pub urgent_synthesis_workers: usize,
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
    /// (the figures come back in [`crate::Timings::stages`] either way).
    pub host_timing: bool,
    /// Plan every GPU's memory as if the card had this many bytes (SRS
    /// placement, MSM batches, tables): how a smaller card is measured on a
    /// larger one. `None`: the card's own size.
    pub device_memory: Option<u64>,
    /// With `device_memory`, also take the memory above the cap, so that a
    /// call that goes past it fails instead of using memory the smaller card
    /// would not have.
    pub device_memory_enforce: bool,
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
            synthesis_workers: cores.max(1),
            urgent_synthesis_workers: 1,
            workers_per_device: 1,
            max_batch: 16,
            memory_budget: default_memory_budget(),
            point_checks: PointChecks::OnCurve,
            self_check: false,
            timeline: None,
            load_progress: None,
            host_timing: false,
            device_memory: None,
            device_memory_enforce: false,
            rng_seed: None,
            synthesis: SynthesisMode::default(),
            recordings_dir: None,
        }
    }
}

/// Three quarters of physical memory (read from /proc/meminfo), or 16 GiB
/// where that cannot be read.
fn default_memory_budget() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    });
    total_kib.map(|k| k * 1024 / 4 * 3).unwrap_or(16 << 30)
}
