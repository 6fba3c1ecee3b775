//! PoSt vanilla proofs (WindowPoSt and WinningPoSt) of sectors that were
//! never sealed: a PoSt proves, per sector, that the challenged leaves of
//! tree R_last are under comm_r = Poseidon(comm_c, comm_r_last). The
//! challenges depend only on the randomness, the prover and the sector
//! number, so each sector's R_last is a sparse tree whose challenged leaves
//! get filler values; comm_c is a filler value too (nothing opens it).

use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::{HashFunction, Hasher};
use filecoin_proofs::types::FallbackPoStSectorProof;
use filecoin_proofs_api::post::generate_fallback_sector_challenges;
use filecoin_proofs_api::{RegisteredPoStProof, SectorId};
use rayon::prelude::*;
use storage_proofs_core::merkle::MerkleProof;
use storage_proofs_post::fallback::{Proof, SectorProof};
use typenum::Unsigned;

use super::filler;
use super::sparse_tree::SparseTree;
use crate::{prover_id, FilecoinError, SectorSize, Shape};

/// One bincode `FallbackPoStSectorProof` per sector of `sectors`, as
/// filecoin-proofs-api's `generate_single_vanilla_proof` returns them to
/// Curio, for PoSt `proof` of miner `miner_id` under `randomness`.
pub fn post_vanilla(
    proof: RegisteredPoStProof,
    miner_id: u64,
    randomness: [u8; 32],
    sectors: &[u64],
) -> Result<Vec<Vec<u8>>, FilecoinError> {
    let size = SectorSize::from_bytes(u64::from(proof.sector_size()))?;
    let ids: Vec<SectorId> = sectors.iter().map(|&n| SectorId::from(n)).collect();
    let challenges = generate_fallback_sector_challenges(proof, &randomness, &ids, prover_id(miner_id))
        .map_err(|e| FilecoinError::filecoin("deriving the PoSt challenges", &e))?;
    let per_sector: Vec<(u64, Vec<u64>)> = sectors
        .iter()
        .map(|&n| (n, challenges.get(&SectorId::from(n)).cloned().unwrap_or_default()))
        .collect();
    crate::with_tree!(size, sector_proofs, size, &per_sector)
}

fn sector_proofs<Tree: Shape>(size: SectorSize, sectors: &[(u64, Vec<u64>)]) -> Result<Vec<Vec<u8>>, FilecoinError> {
    let nodes = size.bytes() / 32;
    let shape = (Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize());
    sectors
        .par_iter()
        .map(|(number, challenges)| {
            let leaves = challenges.iter().map(|&c| (c, filler("leaf", &[&number.to_be_bytes(), &c.to_be_bytes()])));
            let tree = SparseTree::<PoseidonHasher>::new(nodes, shape, PoseidonDomain::default(), leaves)?;
            let (comm_c, comm_r_last) = (filler("comm_c", &[&number.to_be_bytes()]), tree.root());
            let inclusion_proofs = challenges
                .iter()
                .map(|&c| {
                    MerkleProof::<PoseidonHasher, Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>::from_parts(
                        tree.leaf(c),
                        comm_r_last,
                        tree.path(c),
                    )
                })
                .collect();
            let proof = FallbackPoStSectorProof::<Tree> {
                sector_id: SectorId::from(*number),
                comm_r: <PoseidonHasher as Hasher>::Function::hash2(&comm_c, &comm_r_last),
                vanilla_proof: Proof { sectors: vec![SectorProof { inclusion_proofs, comm_c, comm_r_last }] },
            };
            bincode::serialize(&proof).map_err(|e| FilecoinError::input("PoSt vanilla proof", e))
        })
        .collect()
}
