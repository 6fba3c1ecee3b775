//! Groth16 over BLS12-381: parameters, proofs, verification and the CPU prover.
//!
//! Architecture invariant: no GPU words here. This crate owns the file formats
//! (bit-compatible with bellperson 0.27), the maths every backend must agree
//! with, and a CPU backend that GPU backends are compared against byte for byte.
#![forbid(unsafe_code)]

/// Radix-2 evaluation domains over Fr.
pub mod domain;
/// The crate's error type.
pub mod error;
/// CPU multi-scalar multiplication with the 0/1 split.
pub mod msm;
/// Number-theoretic transform kernels behind [`domain::Domain`].
mod ntt;
/// Parameter files and verifying keys.
pub mod params;
/// The 192-byte proof.
pub mod proof;
/// The CPU prover.
pub mod prover;
/// The query lengths a circuit needs of its parameters, for every backend.
pub mod sizes;
/// Parameter generation: scalars from a circuit or a recorded shape, fixed-base multiplications behind a trait.
pub mod setup;
/// Single and batch verification.
pub mod verify;

pub use domain::Domain;
pub use error::{Error, PointDefect, ProofPoint, Section};
pub use params::{inspect, BaseCounts, Parameters, ParamsSummary, PointChecks, VerifyingKey};
pub use proof::Proof;
pub use prover::{create_random_proofs, prove, prove_timed, random_nonzero_scalar, ProveTimings};
pub use sizes::{Needs, QueryLengths};
pub use setup::{
    generate_parameters, generate_parameters_from_shape, generate_random_parameters, CpuFixedBase, FixedBaseMul,
    SetupScalars, ToxicWaste,
};
pub use verify::{prepare_verifying_key, verify_proof, verify_proofs_batch, PreparedVerifyingKey};
