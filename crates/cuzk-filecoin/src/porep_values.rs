//! The values a PoRep partition's recorded rows leave free, per challenge,
//! from its vanilla proofs, so that recorded synthesis replays its witness
//! from the rows instead of running the SHA-256 and Poseidon gadgets (see
//! `cuzk_synth::Circuit::take_block_values`).
//!
//! storage-proofs' `StackedCircuit` allocates, per challenge: the data leaf;
//! tree D's path (binary, SHA-256), per level its index bit and sibling;
//! for each DRG parent and then each expander parent, its column (one label
//! per layer) and its tree C path, per level the index bits (lowest first)
//! and the siblings; the challenge as 64 bits packed into one public input;
//! the labels (SHA-256 of replica_id and the parents' bits), the encoding,
//! tree R's path and the column's Poseidon hash with tree C's path. Its
//! Merkle paths pack their index bits into one public input each (their
//! roots stay private), and the challenge's bits are the digits of its
//! input; every hash, label, bit decomposition and selection follows from
//! the rows. So a challenge's block gives its inputs in allocation order
//! (tree D's path, each parent's path, the challenge, tree R's and tree C's
//! paths) and its free values, the leaf, the parents' columns and every
//! path's siblings: 18 inputs and 1,307 free values of a 32 GiB
//! challenge's 7.2 M aux variables (261 at 2 KiB). A wrong value fails the
//! rows, never proves.

use blstrs::Scalar;
use cuzk_synth::BlockValues;
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_hashers::Hasher;
use serde::Deserialize;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_porep::stacked::{self, Column, ColumnProof};

use crate::post_values::packed_path;

/// A vanilla column proof's fields, which storage-proofs keeps private:
/// read back from its serde form, field by field in declaration order.
#[derive(Deserialize)]
#[serde(bound(deserialize = "Column<H>: Deserialize<'de>, P: serde::de::DeserializeOwned"))]
struct ColumnParts<H: Hasher, P> {
    column: Column<H>,
    inclusion_proof: P,
}

/// One block per challenge, or `None` when a proof does not have the shape
/// the circuit gives it (the gadgets then run and report it).
pub(crate) fn block_values<Tree: 'static + MerkleTreeTrait>(
    proofs: &[stacked::Proof<Tree, Sha256Hasher>],
) -> Option<Vec<BlockValues<Scalar>>> {
    proofs.iter().map(challenge).collect()
}

fn challenge<Tree: 'static + MerkleTreeTrait>(proof: &stacked::Proof<Tree, Sha256Hasher>) -> Option<BlockValues<Scalar>> {
    let mut block = BlockValues { inputs: Vec::new(), free: Vec::new() };
    let d = &proof.comm_d_proofs;
    block.free.push(d.leaf().into());
    path(d, &mut block)?;
    let columns = &proof.replica_column_proofs;
    for parent in columns.drg_parents.iter().chain(&columns.exp_parents) {
        let parts = column_parts(parent)?;
        block.free.extend(parts.column.rows().iter().map(|&label| Into::<Scalar>::into(label)));
        path(&parts.inclusion_proof, &mut block)?;
    }
    block.inputs.push(Scalar::from(d.path_index() as u64));
    path(&proof.comm_r_last_proof, &mut block)?;
    // The challenge's own column is computed; only its path is allocated.
    path(&column_parts(&columns.c_x)?.inclusion_proof, &mut block)?;
    Some(block)
}

fn column_parts<P: MerkleProofTrait>(proof: &ColumnProof<P>) -> Option<ColumnParts<P::Hasher, P>> {
    bincode::deserialize(&bincode::serialize(proof).ok()?).ok()
}

/// A path's siblings (free values) and its packed index bits (an input).
fn path<P: MerkleProofTrait>(proof: &P, block: &mut BlockValues<Scalar>) -> Option<()> {
    block.inputs.push(packed_path(proof, &mut block.free)?);
    Some(())
}
