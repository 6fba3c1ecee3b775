use std::path::PathBuf;

/// Everything that stops a peer run.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// A parameter file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The parameter file does not belong to the circuit asked for, so
    /// supraseal would abort on an assertion instead of proving.
    #[error("{}: {detail}", path.display())]
    ParamsMismatch {
        /// The file.
        path: PathBuf,
        /// Which size disagrees, with both values.
        detail: String,
    },
    /// supraseal could not load the parameters (no CUDA device, pinned
    /// memory exhausted, a malformed file).
    #[error("supraseal could not load {}: {message}", path.display())]
    Srs {
        /// The file.
        path: PathBuf,
        /// supraseal's message.
        message: String,
    },
    /// The workload could not be built (a size of zero).
    #[error("workload: {0}")]
    Workload(#[from] cuzk_synth::SynthesisError),
    /// bellperson's synthesis, prover or verifier failed.
    #[error("bellperson: {0}")]
    Bellperson(#[from] bellpepper_core::SynthesisError),
    /// Some other `log` logger was installed first, so bellperson's phase
    /// timings (which it only logs) cannot be captured.
    #[error("another logger is installed; bellperson's phase timings cannot be captured")]
    LoggerTaken,
    /// bellperson proved without logging "synthesis time" and "prover time"
    /// (another bellperson version), so synthesis and GPU time cannot be told apart.
    #[error("bellperson did not log its synthesis and prover times")]
    TimingsNotLogged,
    /// Some proofs did not verify; their times compare nothing.
    #[error("{failed} of {total} proofs do not verify")]
    Unverified {
        /// Proofs that failed bellperson's verifier.
        failed: usize,
        /// Proofs made.
        total: usize,
    },
}
