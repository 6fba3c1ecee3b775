//! A SnapDeals partition to prove, with the values its recorded rows leave
//! free, taken from the circuit filecoin-proofs built, so that recorded
//! synthesis replays its witness from the rows instead of running the
//! SHA-256 and Poseidon gadgets (see `cuzk_synth::Circuit::take_block_values`).
//!
//! storage-proofs-update's `EmptySectorUpdateCircuit` allocates: the public
//! k_and_h_select (and its bits), comm_r_old, comm_d_new and comm_r_new;
//! phi = H(comm_d_new, comm_r_old); comm_c, root_r_old, root_r_new, the
//! partition's apex leaves and its path above them (one sibling per level);
//! the comm_r checks and the apex tree; every challenge's bits (Poseidon
//! digests of comm_r_new, decomposed); then per challenge its rho, the old
//! replica leaf, the new data leaf, the new replica leaf (computed), tree R's
//! old and new paths' siblings, the apex leaf selected by the challenge's
//! bits and tree D's path up to it. The rows determine everything but the
//! hash preimages: comm_c, the two roots, the apex leaves and partition
//! path, and per challenge the two leaves and the three paths' siblings
//! (the bit decompositions are digits of known numbers, the selections and
//! hashes follow). Those, in allocation order, are the free values.
//!
//! The circuit derives every challenge's bits before its first challenge,
//! so it does not cut into a prefix and blocks of one shape: it gives its
//! values as one block, the whole partition, replayed on one thread (a
//! proof's 16 partitions replay at once). A wrong value fails the rows,
//! never proves; the circuit's own sanity asserts (which would panic) are
//! not run, the rows check the same values.

use blstrs::Scalar;
use cuzk_synth::BlockValues;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::TreeRHasher;
use storage_proofs_update::EmptySectorUpdateCircuit;

/// filecoin-proofs' update circuit of one partition and its values.
pub struct SnapPartition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    /// The circuit, synthesized unchanged when the gadgets run.
    pub circuit: EmptySectorUpdateCircuit<Tree>,
    values: Option<BlockValues<Scalar>>,
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> SnapPartition<Tree> {
    /// `circuit` as filecoin-proofs built it, with its values (none when
    /// one is missing or a path is shorter than the circuit reads: the
    /// gadgets then run and report it).
    pub(crate) fn new(circuit: EmptySectorUpdateCircuit<Tree>) -> Self {
        let values = whole_values(&circuit);
        SnapPartition { circuit, values }
    }

    /// The values as one block, taken (see `cuzk_synth::Circuit::take_block_values`).
    pub(crate) fn take_blocks(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        self.values.take().map(|whole| vec![whole])
    }
}

fn whole_values<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    c: &EmptySectorUpdateCircuit<Tree>,
) -> Option<BlockValues<Scalar>> {
    let (pp, public, private) = (&c.pub_params, &c.pub_inputs, &c.priv_inputs);
    let inputs = vec![public.k_and_h_select?, public.comm_r_old?, public.comm_d_new?, public.comm_r_new?];
    let mut free = vec![private.comm_c?, private.root_r_old?, private.root_r_new?];
    for leaf in &private.apex_leafs {
        free.push((*leaf)?);
    }
    // As the circuit reads them: the partition's path is the top of the
    // first challenge's tree D path; each challenge allocates its own path
    // up to its apex leaf; tree D is binary, one sibling per level.
    let below_partition = pp.challenge_bit_len.checked_sub(pp.partition_bit_len)?;
    let to_apex = below_partition.checked_sub(pp.apex_leaf_bit_len)?;
    let first = private.challenge_proofs.first()?;
    for siblings in first.path_d_new.get(below_partition..)? {
        free.push((*siblings.first()?)?);
    }
    for p in &private.challenge_proofs {
        free.push(p.leaf_r_old?);
        free.push(p.leaf_d_new?);
        for sibling in p.path_r_old.iter().chain(&p.path_r_new).flatten() {
            free.push((*sibling)?);
        }
        for siblings in p.path_d_new.get(..to_apex)? {
            free.push((*siblings.first()?)?);
        }
    }
    Some(BlockValues { inputs, free })
}
