use std::path::PathBuf;

use thiserror::Error;

/// Why a job (or the engine) failed. A failed job fails alone: the engine and
/// every other job carry on.
#[derive(Debug, Error, Clone)]
pub enum EngineError {
    /// The parameter file could not be loaded.
    #[error("cannot load parameters {path}: {message}")]
    Params {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A circuit failed to synthesize.
    #[error("partition {partition}: synthesis failed: {message}")]
    Synthesis {
        /// The partition's index within its job.
        partition: usize,
        /// What went wrong.
        message: String,
    },
    /// The backend failed to prove.
    #[error("{backend}: proving failed: {message}")]
    Prove {
        /// The backend (`cpu`, `cuda:0`, ...).
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// The job needs more memory than the engine was given.
    #[error("job needs {needed} bytes but the engine's memory budget is {budget} bytes")]
    TooLarge {
        /// Bytes the job needs at once.
        needed: u64,
        /// The engine's whole budget.
        budget: u64,
    },
    /// The job was cancelled before it finished.
    #[error("job cancelled")]
    Cancelled,
    /// The requested backend does not exist on this machine or in this build.
    #[error("backend unavailable: {0}")]
    BackendUnavailable(String),
    /// The job has no partitions.
    #[error("a job needs at least one partition")]
    EmptyJob,
    /// The engine shut down before the job finished.
    #[error("engine shut down")]
    Shutdown,
    /// The engine could not start its threads.
    #[error("cannot start the engine's threads: {0}")]
    Threads(String),
}
