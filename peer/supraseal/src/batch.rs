//! One call of bellperson's batch prover on fresh random witnesses, timed
//! and verified.

use std::time::{Duration, Instant};

use bellperson::groth16::{
    create_random_proof_batch, verify_proof, PreparedVerifyingKey, SuprasealParameters,
};
use blstrs::{Bls12, Scalar};
use cuzk_synth::workloads::Workload;
use rand::Rng;

use crate::capture::{self, Phases};
use crate::error::PeerError;
use crate::peer::PeerCircuit;

/// What one batch call cost and whether its proofs hold.
#[derive(Copy, Clone, Debug)]
pub struct Outcome {
    /// bellperson's logged synthesis and prover (supraseal) times.
    pub phases: Phases,
    /// The whole `create_random_proof_batch` call: the phases plus drawing
    /// r and s and freeing the assignments after the prover's timer stopped.
    pub total: Duration,
    /// bellperson's verifier over every proof of the batch.
    pub verify: Duration,
    /// Proofs made.
    pub proofs: usize,
    /// Proofs bellperson's verifier rejected.
    pub failed: usize,
}

/// What one batch proves.
#[derive(Copy, Clone)]
pub struct Work<'a> {
    /// supraseal's parameters (the SRS lives on the C++ side).
    pub srs: &'a SuprasealParameters<Bls12>,
    /// The same file's verifying key, prepared for bellperson's verifier.
    pub pvk: &'a PreparedVerifyingKey<Bls12>,
    /// The circuit family.
    pub workload: Workload,
    /// Its size parameter.
    pub size: usize,
}

impl Work<'_> {
    /// Proves `batch` circuits with witnesses drawn from `rng` in one call,
    /// then verifies every proof. Witnesses and public inputs are made before
    /// the clock starts (they are the caller's data, not the prover's work).
    pub fn prove<R: Rng>(&self, batch: usize, rng: &mut R) -> Result<Outcome, PeerError> {
        let mut circuits = Vec::with_capacity(batch);
        let mut inputs = Vec::with_capacity(batch);
        for _ in 0..batch {
            let circuit = self.workload.circuit::<Scalar>(self.size, rng.gen())?;
            inputs.push(circuit.public_inputs());
            circuits.push(PeerCircuit(circuit));
        }

        capture::reset();
        let start = Instant::now();
        let proofs = create_random_proof_batch(circuits, self.srs, rng)?;
        let total = start.elapsed();
        let phases = capture::take()?;

        let start = Instant::now();
        let mut failed = 0;
        for (proof, inputs) in proofs.iter().zip(&inputs) {
            if !verify_proof(self.pvk, proof, inputs)? {
                failed += 1;
            }
        }
        Ok(Outcome {
            phases,
            total,
            verify: start.elapsed(),
            proofs: proofs.len(),
            failed,
        })
    }
}
