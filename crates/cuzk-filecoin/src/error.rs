//! The one error type of the crate. Every variant names what was wrong (the
//! file, the field, the partition), so an operator can act on it without
//! reading code.

use std::path::PathBuf;

use crate::kind::{CircuitId, KindError};

/// Everything that can go wrong between Curio's inputs and verified proof bytes.
#[derive(Debug, thiserror::Error)]
pub enum FilecoinError {
    /// A sector size or circuit id that is not one of Filecoin's.
    #[error(transparent)]
    Kind(#[from] KindError),
    /// A registered proof this crate does not prove, with why.
    #[error("unsupported registered proof {proof}: {why}")]
    UnsupportedProof {
        /// The registered proof, as named by filecoin-proofs-api or by its number.
        proof: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// An input that does not decode or does not fit the request; `field`
    /// names it as the request names it (`Phase1Out`, `vanilla_proofs[3]`, `comm_r_new`).
    #[error("invalid {field}: {reason}")]
    Input {
        /// The field, as the request or file names it.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A C1 output whose replica id is not the one `verify_seal` derives from
    /// the miner id and sector number (with the C1's ticket, comm_d and porep
    /// id): proved as is, it would never verify.
    #[error(
        "the C1 output's replica_id is not that of miner {miner_id} sector {sector_number} (wrong miner id or \
         sector number, or another ticket or proof type): its proof would fail verify_seal"
    )]
    ReplicaIdMismatch {
        /// The miner id the request names.
        miner_id: u64,
        /// The sector number the request names.
        sector_number: u64,
    },
    /// The vanilla proofs fail filecoin-proofs' own checks, so any SNARK of them would not verify.
    #[error("the vanilla proofs of {circuit} do not verify: {reason}")]
    InvalidVanilla {
        /// The circuit the request is for.
        circuit: CircuitId,
        /// What filecoin-proofs said.
        reason: String,
    },
    /// A filecoin-proofs call failed; `during` says which step.
    #[error("filecoin-proofs failed while {during}: {message}")]
    Filecoin {
        /// The step (`building partition 3's circuit`, `computing public inputs`).
        during: String,
        /// filecoin-proofs' own message, with its causes.
        message: String,
    },
    /// A parameter, verifying-key or metadata file of the cache that cannot be used.
    #[error("parameter file {}: {source}", path.display())]
    Params {
        /// The file.
        path: PathBuf,
        /// What was wrong with it.
        #[source]
        source: cuzk_groth16::Error,
    },
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Proof bytes that are not `192 × partitions` long, or do not decode.
    #[error("proof bytes of {circuit}: {reason}")]
    ProofBytes {
        /// The circuit the proof is for.
        circuit: CircuitId,
        /// What is wrong with them.
        reason: String,
    },
    /// A proof that does not verify against the verifier's public inputs.
    #[error("the proof of {circuit} partition {partition} does not verify")]
    ProofInvalid {
        /// The circuit.
        circuit: CircuitId,
        /// The first failing partition.
        partition: usize,
    },
}

impl FilecoinError {
    /// A filecoin-proofs error during `during`, its cause chain kept in the message.
    pub(crate) fn filecoin(during: impl Into<String>, err: &anyhow::Error) -> FilecoinError {
        FilecoinError::Filecoin { during: during.into(), message: format!("{err:#}") }
    }

    /// A malformed input field.
    pub(crate) fn input(field: impl Into<String>, reason: impl std::fmt::Display) -> FilecoinError {
        FilecoinError::Input { field: field.into(), reason: reason.to_string() }
    }
}
