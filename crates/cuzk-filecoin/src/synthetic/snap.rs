//! A SnapDeals update of a committed-capacity sector that was never sealed,
//! with all-zero new data: what an update proves per challenge is
//! new replica = old replica + new data · ρ, with Merkle paths into trees
//! R_old, D_new and R_new and D_new's apex leaves. The challenges depend on
//! comm_r_new, so the old replica is one default leaf everywhere (its tree a
//! chain of default hashes, known before any challenge); zero data leaves
//! the replica unchanged, so R_new is R_old and comm_r_new is comm_r_old.
//! The circuit and its cost are those of any update; only the values are
//! uniform.

use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use filecoin_hashers::{HashFunction, Hasher};
use storage_proofs_core::merkle::MerkleProof;
use storage_proofs_update::vanilla::{ChallengeProof, PartitionProof, PublicParams};
use storage_proofs_update::Challenges;
use typenum::Unsigned;

use super::sparse_tree::SparseTree;
use crate::testdata::{update_proof, SnapInputs};
use crate::{FilecoinError, SectorSize, Shape};

/// The update proof's inputs at `size`: one bincode `PartitionProof` per
/// partition, as filecoin-proofs-api's `generate_partition_proofs` returns
/// them, with the three commitments.
pub fn snap_update(size: SectorSize) -> Result<SnapInputs, FilecoinError> {
    crate::with_tree!(size, update_at, size)
}

fn update_at<Tree: Shape>(size: SectorSize) -> Result<SnapInputs, FilecoinError> {
    let pp = PublicParams::from_sector_size(size.bytes());
    let nodes = pp.sector_nodes as u64;
    let shape = (Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize());
    let replica_leaf = super::filler("replica", &[]);
    let tree_r = SparseTree::<PoseidonHasher>::new(nodes, shape, replica_leaf, [])?;
    let tree_d = SparseTree::<Sha256Hasher>::new(nodes, (2, 0, 0), Sha256Domain::default(), [])?;
    let comm_c = super::filler("comm_c", &[]);
    let comm_r: PoseidonDomain = <PoseidonHasher as Hasher>::Function::hash2(&comm_c, &tree_r.root());
    let comm_d = tree_d.root();

    let apex_height = pp.challenge_bit_len - pp.partition_bit_len - pp.apex_leaf_bit_len;
    let r_proof = |c: u64| {
        MerkleProof::<PoseidonHasher, Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>::from_parts(
            tree_r.leaf(c),
            tree_r.root(),
            tree_r.path(c),
        )
    };
    let vanilla = (0..pp.partition_count)
        .map(|k| {
            let first_apex = (k * pp.apex_leaf_count) as u64;
            let apex_leafs = (0..pp.apex_leaf_count as u64).map(|i| tree_d.node(apex_height, first_apex + i)).collect();
            let challenge_proofs = Challenges::new(pp.sector_nodes, comm_r, k)
                .map(|c| {
                    let c = u64::from(c);
                    ChallengeProof::<Tree> {
                        proof_r_old: r_proof(c),
                        proof_d_new: MerkleProof::from_parts(tree_d.leaf(c), comm_d, tree_d.path(c)),
                        proof_r_new: r_proof(c),
                    }
                })
                .collect();
            let proof = PartitionProof::<Tree> { comm_c, apex_leafs, challenge_proofs };
            bincode::serialize(&proof).map_err(|e| FilecoinError::input("SnapDeals partition proof", e))
        })
        .collect::<Result<Vec<_>, FilecoinError>>()?;
    let comm_r = super::commitment(&comm_r);
    Ok(SnapInputs {
        proof: update_proof(size),
        vanilla,
        comm_r_old: comm_r,
        comm_r_new: comm_r,
        comm_d_new: super::commitment(&comm_d),
    })
}
