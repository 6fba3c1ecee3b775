//! The circuits every benchmark and comparison with a peer runs on
//! (DESIGN §7), each with a witness derived from a seed, so setup, proving
//! and verification all see the same circuit without sharing state.

use std::fmt;
use std::str::FromStr;

use ff::PrimeField;

use crate::{Circuit, ConstraintSystem, SynthesisError};

/// The mul-chain workload.
pub mod mul_chain;
/// The sha256 chain workload.
pub mod sha256_chain;

pub use mul_chain::MulChain;
pub use sha256_chain::Sha256Chain;

/// A benchmark workload, named as on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// `sha256`: chained SHA-256 compressions; size = number of compressions.
    Sha256,
    /// `mul-chain`: dense multiplications; size = number of constraints.
    MulChain,
}

impl Workload {
    /// Every workload.
    pub const ALL: [Workload; 2] = [Workload::Sha256, Workload::MulChain];

    /// The name `FromStr` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Sha256 => "sha256",
            Workload::MulChain => "mul-chain",
        }
    }

    /// The circuit of this workload at `size`, its witness drawn from `seed`.
    pub fn circuit<S: PrimeField>(
        self,
        size: usize,
        seed: u64,
    ) -> Result<WorkloadCircuit<S>, SynthesisError> {
        if size == 0 || size > self.max_size() {
            return Err(SynthesisError::InvalidWorkload(format!(
                "{self} size {size} is outside 1..={}",
                self.max_size()
            )));
        }
        Ok(match self {
            Workload::Sha256 => WorkloadCircuit::Sha256(Sha256Chain::new(size, seed)),
            Workload::MulChain => WorkloadCircuit::MulChain(MulChain::new(size, seed)),
        })
    }

    /// The largest size this workload builds: its constraints stay within
    /// 2^31, half the largest evaluation domain Fr has (2^32), which leaves
    /// room for the prover's per-input constraints and keeps every size
    /// computation far from overflowing. Larger sizes are refused before
    /// anything is allocated for them.
    pub fn max_size(self) -> usize {
        const MAX_CONSTRAINTS: usize = 1 << 31;
        match self {
            Workload::Sha256 => (MAX_CONSTRAINTS - sha256_chain::SHA256_EXTRA_CONSTRAINTS)
                / sha256_chain::SHA256_CONSTRAINTS_PER_STEP,
            Workload::MulChain => MAX_CONSTRAINTS,
        }
    }

    /// Constraints of the circuit at `size`, not counting the prover's
    /// input-independence constraints (one per public input, the one included).
    pub fn expected_constraints(self, size: usize) -> usize {
        match self {
            Workload::Sha256 => Sha256Chain::expected_constraints(size),
            Workload::MulChain => size,
        }
    }

    /// The public inputs (after the constant one) of `circuit(size, seed)`,
    /// computed without synthesis.
    pub fn public_inputs<S: PrimeField>(
        self,
        size: usize,
        seed: u64,
    ) -> Result<Vec<S>, SynthesisError> {
        Ok(self.circuit::<S>(size, seed)?.public_inputs())
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Workload {
    type Err = SynthesisError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Workload::ALL.into_iter().find(|w| w.name() == s).ok_or_else(|| {
            SynthesisError::InvalidWorkload(format!(
                "unknown workload {s:?} (expected sha256 or mul-chain)"
            ))
        })
    }
}

/// One workload's circuit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkloadCircuit<S: PrimeField> {
    /// See [`Sha256Chain`].
    Sha256(Sha256Chain),
    /// See [`MulChain`].
    MulChain(MulChain<S>),
}

impl<S: PrimeField> WorkloadCircuit<S> {
    /// The public inputs (after the constant one), computed without synthesis.
    pub fn public_inputs(&self) -> Vec<S> {
        match self {
            WorkloadCircuit::Sha256(c) => c.public_inputs(),
            WorkloadCircuit::MulChain(c) => c.public_inputs(),
        }
    }
}

impl<S: PrimeField> Circuit<S> for WorkloadCircuit<S> {
    fn synthesize<CS: ConstraintSystem<S>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            WorkloadCircuit::Sha256(c) => c.synthesize(cs),
            WorkloadCircuit::MulChain(c) => c.synthesize(cs),
        }
    }
}
