//! cuzk: a Groth16 proving engine for BLS12-381.
//!
//! The facade over the layers: write circuits against [`synth`] (the
//! bellperson-shaped API), load parameters and verify with [`groth16`], and
//! prove many circuits through the [`Engine`], which picks the backend once
//! and reports where every millisecond went.
#![forbid(unsafe_code)]

/// Errors of the facade and the CLI.
pub mod error;
/// Filecoin's proof kinds on the engine.
#[cfg(feature = "filecoin")]
pub mod filecoin;
/// The public-inputs file format (`PROOFS.inputs.json`).
pub mod inputs;
/// Peak resident memory of this process.
pub mod rss;

pub use cuzk_groth16 as groth16;
pub use cuzk_pipeline::{
    BackendChoice, BackendError, Config, Engine, EngineError, GpuError, Job, JobHandle, JobId, JobResult, JobStatus,
    Priority, RecordingStatus, SynthesisMode, Timings,
};
pub use cuzk_synth as synth;
pub use error::Error;
