use std::fmt;
use std::path::PathBuf;

use cuzk_synth::SynthesisError;
use thiserror::Error;

/// A part of a parameter file (or verifying key), named as the file layout names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// α in G1.
    AlphaG1,
    /// β in G1.
    BetaG1,
    /// β in G2.
    BetaG2,
    /// γ in G2.
    GammaG2,
    /// δ in G1.
    DeltaG1,
    /// δ in G2.
    DeltaG2,
    /// The public-input query of the verifying key.
    Ic,
    /// The H query (powers of τ times Z(τ)/δ).
    H,
    /// The L query (private-variable combinations over δ).
    L,
    /// The A query.
    A,
    /// The B query in G1.
    BG1,
    /// The B query in G2.
    BG2,
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Section::AlphaG1 => "vk.alpha_g1",
            Section::BetaG1 => "vk.beta_g1",
            Section::BetaG2 => "vk.beta_g2",
            Section::GammaG2 => "vk.gamma_g2",
            Section::DeltaG1 => "vk.delta_g1",
            Section::DeltaG2 => "vk.delta_g2",
            Section::Ic => "vk.ic",
            Section::H => "h",
            Section::L => "l",
            Section::A => "a",
            Section::BG1 => "b_g1",
            Section::BG2 => "b_g2",
        })
    }
}

/// Why a point encoding was rejected.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PointDefect {
    /// Flag bits or a coordinate (not reduced modulo p) are malformed.
    Encoding,
    /// The coordinates do not satisfy the curve equation.
    NotOnCurve,
    /// The point is on the curve but outside the prime-order subgroup.
    NotInSubgroup,
    /// The point at infinity, where the protocol forbids it.
    Identity,
}

impl fmt::Display for PointDefect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PointDefect::Encoding => "invalid encoding",
            PointDefect::NotOnCurve => "not on curve",
            PointDefect::NotInSubgroup => "not in subgroup",
            PointDefect::Identity => "identity where forbidden",
        })
    }
}

/// Which element of a proof.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProofPoint {
    /// A, in G1.
    A,
    /// B, in G2.
    B,
    /// C, in G1.
    C,
}

/// Everything that can go wrong in this crate.
#[derive(Debug, Error)]
pub enum Error {
    /// Opening, reading or seeking a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// Reading from or writing to a caller-supplied stream failed.
    #[error("stream: {0}")]
    Stream(#[from] std::io::Error),
    /// The file ends before a fixed-size part (a point of the verifying key or a count) is complete.
    #[error("parameters truncated in {section}: need {needed} bytes, file has {file_len}")]
    Truncated {
        /// The section being read.
        section: Section,
        /// File length the layout needs to get past this part.
        needed: u64,
        /// Actual file length.
        file_len: u64,
    },
    /// A section's count says more points than the rest of the file can hold (a
    /// truncated file or a corrupt count); checked before anything is allocated.
    #[error("{section} count {count} needs {needed} bytes but only {left} remain (truncated file or corrupt count)")]
    CountTooLarge {
        /// The section.
        section: Section,
        /// The count read from the file.
        count: u64,
        /// Bytes the points need.
        needed: u64,
        /// Bytes left in the file after the count.
        left: u64,
    },
    /// Bytes remain after the last section.
    #[error("{extra} trailing bytes after b_g2")]
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// A section has more points than a u32 count can describe.
    #[error("{section} has {count} points, more than the file format's u32 count allows")]
    SectionTooLong {
        /// The section.
        section: Section,
        /// Its length.
        count: usize,
    },
    /// A point of a parameter file or verifying key failed decoding or a check.
    #[error("{section}[{index}]: {defect}")]
    InvalidPoint {
        /// The section.
        section: Section,
        /// Index of the point within the section (0 for single VK points).
        index: u64,
        /// What is wrong with it.
        defect: PointDefect,
    },
    /// The parameters' bases were released from host memory (they live on
    /// the devices that prove with them).
    #[error("the parameters' bases were released from host memory; only the devices holding them can prove")]
    BasesReleased,
    /// Parameters and a circuit's assignment disagree on a size.
    #[error("circuit/params mismatch: params have {have} {what}, the assignment needs {need}")]
    Mismatch {
        /// Which query or count.
        what: &'static str,
        /// Size in the parameters.
        have: usize,
        /// Size the assignment needs.
        need: usize,
    },
    /// A proof (or a batch of proofs) has the wrong byte length.
    #[error("proof bytes: expected {expected}, got {got}")]
    ProofLength {
        /// Expected length (192, or a multiple of it for a batch).
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// A batch of proofs is not a whole number of 192-byte proofs.
    #[error("proof batch of {got} bytes is not a multiple of 192")]
    ProofBatchLength {
        /// Actual length.
        got: usize,
    },
    /// A point of a proof failed decoding or a check.
    #[error("proof {proof}, point {point:?}: {defect}")]
    InvalidProofPoint {
        /// Index of the proof in its batch.
        proof: usize,
        /// Which point.
        point: ProofPoint,
        /// What is wrong with it.
        defect: PointDefect,
    },
    /// The verifier got a different number of public inputs than the key has.
    #[error("wrong number of public inputs: expected {expected}, got {got}")]
    PublicInputCount {
        /// Inputs the verifying key expects (without the leading one).
        expected: usize,
        /// Inputs given.
        got: usize,
    },
    /// Batch verification got different numbers of proofs and input vectors.
    #[error("{proofs} proofs but {inputs} public-input vectors")]
    BatchLength {
        /// Number of proofs.
        proofs: usize,
        /// Number of input vectors.
        inputs: usize,
    },
    /// The prover got a different number of (r, s) pairs than assignments.
    #[error("{assignments} assignments but {randomness} (r, s) pairs")]
    RandomnessCount {
        /// Number of assignments.
        assignments: usize,
        /// Number of (r, s) pairs.
        randomness: usize,
    },
    /// The key has α, β, γ or δ at infinity, which no honest setup makes:
    /// under it proofs can be forged (γ, δ) or leak the witness (δ).
    #[error("degenerate verifying key: {section} is the point at infinity (tampered or subverted parameters)")]
    DegenerateKey {
        /// The first degenerate point.
        section: Section,
    },
    /// Synthesizing a circuit failed.
    #[error("synthesis: {0}")]
    Synthesis(#[from] SynthesisError),
    /// An evaluation domain of zero points was asked for.
    #[error("evaluation domain of size zero")]
    EmptyDomain,
    /// The circuit needs a larger radix-2 domain than Fr has roots of unity for.
    #[error("domain for {needed} constraints exceeds 2^{max_log2}")]
    DomainTooLarge {
        /// Points needed.
        needed: u64,
        /// Log2 of the largest supported domain (the two-adicity of Fr).
        max_log2: u32,
    },
}
