use std::path::PathBuf;

use thiserror::Error;

/// What went wrong, in words a user can act on.
#[derive(Debug, Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The public-inputs file is malformed.
    #[error("{path}: {message}")]
    Inputs {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the entry.
        message: String,
    },
    /// Proofs and inputs do not pair up.
    #[error("{proofs} proof(s) but {inputs} input vector(s)")]
    CountMismatch {
        /// Proofs in the proofs file.
        proofs: usize,
        /// Entries in the inputs file.
        inputs: usize,
    },
    /// Parameters, proofs or verification failed.
    #[error(transparent)]
    Groth16(#[from] cuzk_groth16::Error),
    /// A parameter file is unreadable or malformed.
    #[error("{path}: {source}")]
    Params {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the section.
        source: cuzk_groth16::Error,
    },
    /// The engine failed a job.
    #[error(transparent)]
    Engine(#[from] cuzk_pipeline::EngineError),
    /// A circuit failed to synthesize.
    #[error(transparent)]
    Synthesis(#[from] cuzk_synth::SynthesisError),
    /// Parameters could not be generated on the GPU.
    #[error("GPU setup: {0}")]
    Setup(#[from] cuzk_gpu::setup::SetupError),
    /// Proofs were made but do not verify (the worst outcome: reported loudly).
    #[error("{0}")]
    Unverified(String),
    /// A command-line value is invalid.
    #[error("{0}")]
    Usage(String),
    /// A timeline file is malformed (naming the line), or its picture
    /// could not be drawn.
    #[error("{path}: {message}")]
    Timeline {
        /// The timeline, or the picture.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A Filecoin request, its inputs, its parameters or its proof: the
    /// error names the field, file or partition.
    #[cfg(feature = "filecoin")]
    #[error(transparent)]
    Filecoin(#[from] cuzk_filecoin::FilecoinError),
    /// The daemon's configuration is wrong (naming the key), or it could not
    /// start or keep serving.
    #[cfg(feature = "daemon")]
    #[error(transparent)]
    Daemon(#[from] cuzk_daemon::DaemonError),
    /// A daemon could not be reached, refused a call (naming the field), or
    /// a request's input is malformed.
    #[cfg(feature = "daemon")]
    #[error(transparent)]
    Client(#[from] cuzk_daemon::client::ClientError),
    /// A job the daemon did not prove: it failed or was cancelled.
    #[cfg(feature = "daemon")]
    #[error("job {job}: {status}: {message}")]
    NotProved {
        /// The job id.
        job: String,
        /// `FAILED`, `CANCELLED` or `UNKNOWN`.
        status: &'static str,
        /// The daemon's reason.
        message: String,
    },
    /// Requests of `cuzk client bench` that were not proved.
    #[cfg(feature = "daemon")]
    #[error("{failed} of {requests} requests were not proved; the first: {first}")]
    BenchFailed {
        /// Requests not proved.
        failed: usize,
        /// Requests sent.
        requests: usize,
        /// Why the first of them was not.
        first: String,
    },
}

impl Error {
    /// Names the parameter file an error concerns (I/O errors name it already).
    pub fn params(path: impl Into<PathBuf>) -> impl FnOnce(cuzk_groth16::Error) -> Error {
        let path = path.into();
        move |source| match source {
            e @ cuzk_groth16::Error::Io { .. } => Error::Groth16(e),
            source => Error::Params { path, source },
        }
    }

    /// Whether a device ran out of memory proving (a caller may retry later
    /// or elsewhere rather than give up on the job).
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, Error::Engine(e) if e.is_out_of_memory())
    }

    /// The first constraint the witness does not satisfy, when that is why
    /// proving failed (the circuit or its inputs are wrong, not the prover).
    pub fn unsatisfied_constraint(&self) -> Option<usize> {
        match self {
            Error::Engine(e) => e.unsatisfied_constraint(),
            Error::Synthesis(cuzk_synth::SynthesisError::UnsatisfiedConstraint(row)) => Some(*row),
            _ => None,
        }
    }

    /// Wraps an I/O error with the file it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}

#[cfg(test)]
mod tests {
    use super::Error;
    use cuzk_pipeline::{BackendError, EngineError, GpuError};
    use cuzk_synth::SynthesisError;

    fn prove_error(source: BackendError) -> Error {
        Error::from(EngineError::Prove { backend: "cuda:0".into(), source })
    }

    #[test]
    fn the_precise_cause_of_a_failed_job_is_visible_at_the_facade() {
        let oom = prove_error(GpuError::OutOfMemory { requested: 1 << 34, free: 1 << 30 }.into());
        assert!(oom.is_out_of_memory() && oom.unsatisfied_constraint().is_none(), "{oom}");
        let device = prove_error(GpuError::UnsatisfiedConstraint { row: 12 }.into());
        assert_eq!((device.is_out_of_memory(), device.unsatisfied_constraint()), (false, Some(12)));
        let cpu = Error::from(EngineError::Synthesis { partition: 3, source: SynthesisError::UnsatisfiedConstraint(5) });
        assert_eq!(cpu.unsatisfied_constraint(), Some(5));
        let other = prove_error(GpuError::Cuda { code: 700, message: "illegal address".into() }.into());
        assert!(!other.is_out_of_memory() && other.unsatisfied_constraint().is_none());
        assert!(!Error::Usage("x".into()).is_out_of_memory());
    }
}
