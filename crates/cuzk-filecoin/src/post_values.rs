//! A PoSt partition to prove, with the values its recorded rows leave free,
//! taken from its vanilla proofs, so that recorded synthesis replays its
//! witness from the rows instead of running the Poseidon gadgets (see
//! `cuzk_synth::Circuit::take_block_values`).
//!
//! filecoin-proofs' `Sector` circuit allocates, per sector, comm_r_last,
//! comm_c and comm_r (made public), checks comm_r = H(comm_c, comm_r_last),
//! then per challenge the leaf and, per tree level, the index bits and the
//! siblings, hashing up to comm_r_last, and packs the index bits into one
//! public input. The rows determine everything but the Poseidon preimages
//! nobody can invert: comm_r_last, comm_c, and each challenge's leaf and
//! siblings (712 values of a 32 GiB sector's 54,024); the index bits are
//! the digits of the packed input. Those values, in allocation order, are
//! what a block gives; a wrong one fails the rows, never proves.
//!
//! The blocks are those [`crate::split`] cuts: a partition's sectors, or
//! the challenges of a one-sector circuit (WinningPoSt), whose prefix (the
//! sector's commitments) the gadgets still run.

use blstrs::Scalar;
use cuzk_synth::BlockValues;
use ff::{Field, PrimeField};
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_post::fallback::{self, FallbackPoStCircuit};

/// filecoin-proofs' PoSt circuit of one partition and its block values.
pub struct PoStPartition<Tree: 'static + MerkleTreeTrait> {
    /// The circuit, synthesized unchanged when the gadgets run.
    pub circuit: FallbackPoStCircuit<Tree>,
    blocks: Option<Vec<BlockValues<Scalar>>>,
}

impl<Tree: 'static + MerkleTreeTrait> PoStPartition<Tree> {
    /// `circuit` as filecoin-proofs built it from `proof`, with the block
    /// values of `proof` (none when a value is missing or a challenge's
    /// index bits would not pack into one input: the gadgets then run).
    pub(crate) fn new(circuit: FallbackPoStCircuit<Tree>, proof: &fallback::Proof<Tree::Proof>) -> Self {
        let blocks = block_values(&circuit, proof);
        PoStPartition { circuit, blocks }
    }

    /// The block values, taken (see `cuzk_synth::Circuit::take_block_values`).
    pub(crate) fn take_blocks(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        self.blocks.take()
    }
}

/// One value per sector: the circuit's own sectors (padded as
/// filecoin-proofs pads them) and the vanilla proof's paths.
fn block_values<Tree: 'static + MerkleTreeTrait>(
    circuit: &FallbackPoStCircuit<Tree>,
    proof: &fallback::Proof<Tree::Proof>,
) -> Option<Vec<BlockValues<Scalar>>> {
    if circuit.sectors.len() != proof.sectors.len() {
        return None;
    }
    let mut sectors = Vec::with_capacity(circuit.sectors.len());
    for (sector, vanilla) in circuit.sectors.iter().zip(&proof.sectors) {
        let proofs = vanilla.inclusion_proofs();
        if sector.leafs.len() != proofs.len() {
            return None;
        }
        let mut head = BlockValues { inputs: vec![sector.comm_r?], free: vec![sector.comm_r_last?, sector.comm_c?] };
        let mut challenges = Vec::with_capacity(proofs.len());
        for (leaf, p) in sector.leafs.iter().zip(proofs) {
            challenges.push(challenge(leaf.as_ref()?, p)?);
        }
        if circuit.sectors.len() == 1 {
            // The split cuts a lone sector by its challenges: its
            // commitments are the prefix, which the gadgets run.
            return Some(challenges);
        }
        for c in challenges {
            head.inputs.extend(c.inputs);
            head.free.extend(c.free);
        }
        sectors.push(head);
    }
    Some(sectors)
}

/// One challenge: its packed index bits (one input), its leaf and its
/// siblings level by level.
fn challenge<P: MerkleProofTrait>(leaf: &Scalar, proof: &P) -> Option<BlockValues<Scalar>> {
    let mut free = vec![*leaf];
    let packed = packed_path(proof, &mut free)?;
    Some(BlockValues { inputs: vec![packed], free })
}

/// A Merkle path as storage-proofs' `PoRCircuit` allocates it: its
/// siblings level by level, lowest first (appended to `free`), and its
/// index bits packed into one public input (returned); `None` for an
/// arity that is not a power of two, an index out of range, or more bits
/// than one input holds.
pub(crate) fn packed_path<P: MerkleProofTrait>(proof: &P, free: &mut Vec<Scalar>) -> Option<Scalar> {
    let (mut packed, mut weight, mut bits) = (Scalar::ZERO, Scalar::ONE, 0u32);
    for (siblings, index) in proof.path() {
        let arity = siblings.len() + 1;
        if !arity.is_power_of_two() || index >= arity {
            return None;
        }
        packed += weight * Scalar::from(index as u64);
        for _ in 0..arity.trailing_zeros() {
            weight = weight.double();
            bits += 1;
        }
        free.extend(siblings.into_iter().map(Into::<Scalar>::into));
    }
    (bits <= Scalar::CAPACITY).then_some(packed)
}
