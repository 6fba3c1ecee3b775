//! The proving engine: jobs of one or more partitions are queued by priority,
//! synthesized on CPU workers while earlier partitions prove, proved on one or
//! more devices (GPUs, or the CPU backend), and returned with a breakdown of
//! where their time went.
//!
//! Architecture invariant: the library reads no environment variables; every
//! choice comes from [`Config`], and the backend is chosen once, visibly.
#![forbid(unsafe_code)]

/// Proving backends (CPU, CUDA) behind one trait, and the choice between them.
pub mod backend;
/// One GPU as a backend: the Groth16 host function with a resident SRS.
pub mod cuda;
/// The byte budget that bounds parameters, witnesses and temporaries.
pub mod budget;
/// Frees large buffers on one background thread, off every timer.
pub mod dropper;
/// The engine itself: queues, workers, job handles.
pub mod engine;
/// Engine errors.
pub mod error;
/// Jobs, priorities, results and per-job timings.
pub mod job;
/// Recorded constraint systems per parameter file (witness-only synthesis).
pub mod recordings;
/// Parameters loaded once and kept resident, least recently used evicted.
pub mod srs;
/// An optional JSON-lines record of every synthesis and prove interval.
pub mod timeline;

pub use backend::{BackendChoice, CpuBackend, ProveBackend, ProveOutput};
pub use cuda::CudaBackend;
pub use engine::{Config, Engine, JobHandle, JobStatus};
pub use error::EngineError;
pub use job::{Job, JobId, JobResult, Priority, Timings};
pub use recordings::{RecordingStatus, SynthesisMode, Synthesizer};
