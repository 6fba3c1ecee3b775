//! The proving engine: jobs of one or more partitions are queued by priority,
//! synthesized on CPU workers while earlier partitions prove, proved on one or
//! more devices (GPUs, or the CPU backend), and returned with a breakdown of
//! where their time went.
//!
//! Architecture invariant: the library reads no environment variables; every
//! choice comes from [`Config`], and the backend is chosen once, visibly.
#![forbid(unsafe_code)]

/// Proving backends (CPU, CUDA) behind one trait, and the choice between them.
pub(crate) mod backends;
/// The byte budget that bounds parameters, witnesses and temporaries.
pub(crate) mod budget;
/// Frees large buffers on one background thread, off every timer.
pub(crate) mod dropper;
/// The engine itself: queues, workers, job handles.
pub(crate) mod engine;
/// Engine errors.
pub(crate) mod error;
/// Jobs, priorities, results and per-job timings.
pub(crate) mod job;
/// Recorded constraint systems per parameter file (witness-only synthesis).
pub(crate) mod recordings;
/// Parameters loaded once and kept resident, least recently used evicted.
pub(crate) mod srs;
/// How one partition is synthesized, and what synthesis hands the provers.
pub(crate) mod synthesis;
/// An optional JSON-lines record of every synthesis and prove interval.
pub(crate) mod timeline;

pub use backends::cpu::CpuBackend;
pub use backends::cuda::{CudaBackend, MemoryCap};
pub use backends::select::BackendChoice;
pub use backends::{BackendError, ProveBackend, ProveOutput};
/// The GPU layer's error, as [`BackendError::Gpu`] carries it.
pub use cuzk_gpu::GpuError;
pub use engine::{Config, DeviceStatus, Engine, JobHandle, JobStatus, ResidentParams};
pub use error::EngineError;
pub use job::{Job, JobId, JobResult, Priority, Timings};
pub use recordings::{recording_file, RecordingStatus};
pub use srs::LoadProgress;
pub use synthesis::{SynthesisMode, Synthesizer};
