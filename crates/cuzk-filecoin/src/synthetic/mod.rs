//! Valid inputs at sizes no machine here can seal (32 and 64 GiB), made
//! without a sector: a PoRep C1 output whose vanilla proofs storage-proofs'
//! own verifier accepts, PoSt vanilla proofs of any number of sectors and
//! a SnapDeals update,
//! in the exact form Curio sends, built in seconds from the values the
//! proofs reveal.

mod labels;
mod porep;
mod post;
mod snap;
mod sparse_tree;

pub use porep::{vanilla_proofs, SectorIds, SyntheticPoRep};
pub use post::post_vanilla;
pub use snap::snap_update;

use std::any::Any;

use filecoin_hashers::poseidon::PoseidonDomain;
use filecoin_hashers::Domain;
use filecoin_proofs::PoRepConfig;
use filecoin_proofs_api::seal::{SealCommitPhase1Output, VanillaSealProof};

use crate::{prover_id, FilecoinError, SectorSize};

/// A C1 output (filecoin-proofs-api's `SealCommitPhase1Output`, as
/// filecoin-ffi returns it to Curio) of committed-capacity sector
/// `sector_number` of miner `miner_id`, sealed with the V1_1 proof of `size`
/// at `ticket`, for interactive seed `seed`.
pub fn porep_c1(
    size: SectorSize,
    miner_id: u64,
    sector_number: u64,
    ticket: [u8; 32],
    seed: [u8; 32],
) -> Result<SealCommitPhase1Output, FilecoinError> {
    let registered_proof = crate::testdata::seal_proof(size);
    let config = registered_proof.as_v1_config();
    let ids = SectorIds { prover_id: prover_id(miner_id), sector_number, ticket, seed };
    let Parts { comm_d, comm_r, replica_id, proofs } = crate::with_tree!(size, parts, &config, &ids)?;
    Ok(SealCommitPhase1Output {
        registered_proof,
        vanilla_proofs: api_vanilla(size, proofs)?,
        comm_r,
        comm_d,
        replica_id,
        seed,
        ticket,
    })
}

/// A synthetic sector with its proofs type-erased, so one function serves every tree shape.
struct Parts {
    comm_d: [u8; 32],
    comm_r: [u8; 32],
    replica_id: PoseidonDomain,
    proofs: Box<dyn Any>,
}

fn parts<Tree: crate::Shape>(config: &PoRepConfig, ids: &SectorIds) -> Result<Parts, FilecoinError> {
    let sector = vanilla_proofs::<Tree>(config, ids)?;
    let (comm_d, comm_r) = (commitment(&sector.comm_d), commitment(&sector.comm_r));
    Ok(Parts { comm_d, comm_r, replica_id: sector.replica_id, proofs: Box::new(sector.proofs) })
}

/// A value no proof recomputes (a filler label, leaf or comm_c): SHA-256 of
/// a tag saying what it is and `parts` saying where, made a field element.
/// Deterministic, so one place shows one value in every proof that opens it.
fn filler(what: &str, parts: &[&[u8]]) -> PoseidonDomain {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"cuzk synthetic sector: ");
    h.update(what.as_bytes());
    for part in parts {
        h.update(part);
    }
    sparse_tree::domain_from_digest(h.finalize().into())
}

/// A commitment's 32 bytes, as filecoin-proofs writes it.
fn commitment<D: Domain>(d: &D) -> [u8; 32] {
    d.into_bytes().try_into().expect("a domain element is 32 bytes")
}

/// The API's variant for `size`, holding `proofs` (proofs at that size's tree shape).
fn api_vanilla(size: SectorSize, proofs: Box<dyn Any>) -> Result<VanillaSealProof, FilecoinError> {
    fn take<T: 'static>(proofs: Box<dyn Any>) -> Result<T, FilecoinError> {
        proofs.downcast::<T>().map(|b| *b).map_err(|_| FilecoinError::input("vanilla proofs", "not at the sector size's tree shape"))
    }
    Ok(match size {
        SectorSize::Kib2 => VanillaSealProof::StackedDrg2KiBV1(take(proofs)?),
        SectorSize::Mib8 => VanillaSealProof::StackedDrg8MiBV1(take(proofs)?),
        SectorSize::Mib512 => VanillaSealProof::StackedDrg512MiBV1(take(proofs)?),
        SectorSize::Gib32 => VanillaSealProof::StackedDrg32GiBV1(take(proofs)?),
        SectorSize::Gib64 => VanillaSealProof::StackedDrg64GiBV1(take(proofs)?),
    })
}
