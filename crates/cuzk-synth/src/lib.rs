//! Constraint systems, gadgets and witness synthesis for Groth16 over any prime field.
//!
//! The API is shaped like bellpepper-core's (`Circuit`, `ConstraintSystem`,
//! `LinearCombination`, `Variable`), so a bellperson circuit ports by changing
//! its imports. Architecture invariant: this crate knows nothing about GPUs,
//! parameters or proofs; it turns circuits into [`ProvingAssignment`]s.
#![forbid(unsafe_code)]

/// The `ConstraintSystem` trait, the `Circuit` trait and namespaces.
pub mod cs;
/// Bitsets recording which variables a query actually touches.
pub mod density;
/// Synthesis errors.
pub mod error;
/// Linear combinations and variables.
pub mod lc;
/// The prover's constraint system: evaluations of A, B, C per constraint.
pub mod assignment;
/// Running circuits written for bellpepper-core 0.2 (bellperson 0.27) unchanged.
#[cfg(feature = "bellpepper")]
pub mod bellpepper;
/// Booleans, 32-bit words, SHA-256, multipacking and numbers, laid out as bellperson's.
pub mod gadgets;
/// SHA-256 in plain Rust: constants, compression, hashing.
pub mod sha256_native;
/// Recorded synthesis: A, B, C recorded once, then witness-only synthesis and sparse products.
pub mod recorded;
/// A constraint system that records names, values and constraints for tests.
pub mod test_cs;
/// The benchmark circuits (sha256 chain, mul-chain) with seeded witnesses.
pub mod workloads;

pub use assignment::{synthesize_batch, ProvingAssignment};
pub use cs::{BlockValues, Circuit, ConstraintSystem, Namespace, Split};
pub use density::DensityTracker;
pub use error::SynthesisError;
pub use lc::{Index, LinearCombination, Variable};
pub use recorded::{RecordedShape, Witness, WitnessPass};
pub use test_cs::TestConstraintSystem;
pub use workloads::{Workload, WorkloadCircuit};
