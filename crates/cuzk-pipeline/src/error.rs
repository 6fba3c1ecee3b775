use std::path::PathBuf;

use cuzk_synth::SynthesisError;
use thiserror::Error;

use crate::backends::BackendError;
use crate::job::JobId;

/// Why a job (or the engine) failed. A failed job fails alone: the engine and
/// every other job carry on.
#[derive(Debug, Error)]
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
    #[error("partition {partition}: synthesis failed: {source}")]
    Synthesis {
        /// The partition's index within its job.
        partition: usize,
        /// What went wrong (with a recording, a row the witness does not
        /// satisfy is found here, on the CPU).
        #[source]
        source: SynthesisError,
    },
    /// A partition's synthesized public inputs differ from the ones its job
    /// said the verifier expects ([`crate::Job::partition_expecting`]):
    /// found after synthesis, before any device proved it.
    #[error(
        "job {job} partition {partition}: public input {index} differs from what the verifier expects \
         (the circuit has {synthesized} public inputs, the verifier {expected})"
    )]
    PublicInputs {
        /// The job.
        job: JobId,
        /// The partition's index within its job.
        partition: usize,
        /// The first differing input, counted without the leading one (an
        /// index into the verifier's vector); when one vector is a prefix of
        /// the other, the shorter one's length.
        index: usize,
        /// Public inputs the verifier expects.
        expected: usize,
        /// Public inputs the circuit allocated (the one left out).
        synthesized: usize,
    },
    /// The backend failed to prove.
    #[error("{backend}: proving failed: {source}")]
    Prove {
        /// The backend (`cpu`, `cuda:0`, ...).
        backend: String,
        /// What went wrong, as the backend's layer said it.
        #[source]
        source: BackendError,
    },
    /// The job needs more memory than the engine was given.
    #[error("job needs {needed} bytes but the engine's memory budget is {budget} bytes")]
    TooLarge {
        /// Bytes the job needs at once.
        needed: u64,
        /// The engine's whole budget.
        budget: u64,
    },
    /// Parameters that cannot be evicted now, and why (unfinished jobs use
    /// them, a partition holds them, or they are still loading).
    #[error("parameters {path} are in use: {why}")]
    InUse {
        /// The file.
        path: PathBuf,
        /// Who holds them.
        why: String,
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

impl EngineError {
    /// Whether a device ran out of memory proving the job.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, EngineError::Prove { source, .. } if source.is_out_of_memory())
    }

    /// The first constraint the job's witness does not satisfy, wherever it
    /// was found: by the CPU evaluating a recording during synthesis, or by
    /// the backend (a GPU computing a, b, c from the witness).
    pub fn unsatisfied_constraint(&self) -> Option<usize> {
        match self {
            EngineError::Synthesis { source: SynthesisError::UnsatisfiedConstraint(row), .. } => Some(*row),
            EngineError::Prove { source, .. } => source.unsatisfied_constraint(),
            _ => None,
        }
    }
}
