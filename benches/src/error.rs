use std::path::PathBuf;

/// Everything that can stop a benchmark or a comparison run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// cuzk's setup, parameter I/O, prover or verifier failed.
    #[error("cuzk: {0}")]
    Cuzk(#[from] cuzk_groth16::Error),
    /// cuzk's synthesis of a workload failed (or the workload is invalid).
    #[error("cuzk synthesis: {0}")]
    Synthesis(#[from] cuzk_synth::SynthesisError),
    /// bellperson's prover or verifier failed.
    #[error("bellperson: {0}")]
    Bellperson(#[from] bellpepper_core::SynthesisError),
    /// Reading or writing a parameter file, proof or report failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file (or a description of the in-memory buffer).
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A proof failed verification, so its timing would compare nothing.
    #[error("{prover}'s proof of {case} does not verify")]
    InvalidProof {
        /// `cuzk` or `bellperson`.
        prover: &'static str,
        /// The workload and size.
        case: String,
    },
    /// Some other `log` logger was installed first, so bellperson's phase
    /// timings (which it only logs) cannot be captured.
    #[error("another logger is installed; bellperson's phase timings cannot be captured")]
    LoggerTaken,
    /// bellperson proved without logging "synthesis time" and "prover time"
    /// (another bellperson version, or its log lines were filtered out).
    #[error("bellperson did not log its synthesis and prover times")]
    TimingsNotLogged,
    /// Recorded synthesis (witness, then the sparse products) gave another
    /// assignment than classic synthesis of the same circuit.
    #[error("recorded synthesis differs from classic synthesis at {field}[{index}]")]
    RecordedMismatch {
        /// `a`, `b`, `c`, `inputs`, `aux` or a density (`a_aux_density`, ...).
        field: &'static str,
        /// The first index that differs (or the shorter length).
        index: usize,
    },
    /// A synthesized input assignment is not the verifier's public inputs.
    #[error(
        "synthesized public input {index} is not the verifier's ({synthesized} inputs synthesized, {expected} expected)"
    )]
    PublicInputs {
        /// The first differing index, counted after the leading one.
        index: usize,
        /// Inputs synthesized, after the leading one.
        synthesized: usize,
        /// Inputs the verifier computes.
        expected: usize,
    },
    /// Filecoin's inputs, circuits or parameter files failed.
    #[cfg(feature = "filecoin")]
    #[error("filecoin: {0}")]
    Filecoin(#[from] cuzk_filecoin::FilecoinError),
    /// A command-line value could not be understood.
    #[error("bad {what} {value:?}: expected {expected}")]
    BadArgument {
        /// The option.
        what: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// A `WORKLOAD:SIZE` argument could not be understood.
    #[error("bad case {0:?}: expected WORKLOAD:SIZE, e.g. sha256:10 or mul-chain:2^18")]
    BadCase(String),
}
