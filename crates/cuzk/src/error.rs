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
    /// Proofs were made but do not verify (the worst outcome: reported loudly).
    #[error("{0}")]
    Unverified(String),
    /// A command-line value is invalid.
    #[error("{0}")]
    Usage(String),
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

    /// Wraps an I/O error with the file it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}
