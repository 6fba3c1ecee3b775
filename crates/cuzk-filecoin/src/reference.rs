//! filecoin-proofs' own verifiers over a request and cuzk's proof bytes: the
//! ecosystem's verdict beside cuzk's (`cuzk filecoin verify --verifier
//! filecoin-proofs`, the tests). They verify exactly what a
//! chain node or Curio would.
//!
//! filecoin-proofs finds the verifying key through its own settings
//! (`FIL_PROOFS_PARAMETER_CACHE`, read once on first use): the caller points
//! it at the cache it proved with before the first call. This module reads
//! no environment itself.

use std::collections::BTreeMap;

use filecoin_proofs_api::post::{verify_window_post, verify_winning_post};
use filecoin_proofs_api::seal::verify_seal;
use filecoin_proofs_api::update::verify_empty_sector_update_proof;
use filecoin_proofs_api::{PublicReplicaInfo, RegisteredPoStProof, SectorId};

use crate::porep::PoRepRequest;
use crate::post::{decode_vanilla, guarded};
use crate::snap::SnapRequest;
use crate::window_post::WindowPoStRequest;
use crate::winning_post::WinningPoStRequest;
use crate::{with_tree, FilecoinError, SectorSize, Shape};

/// A filecoin-proofs verdict: `Ok(true)` valid, `Ok(false)` invalid; an error
/// when filecoin-proofs could not decide (missing key, malformed request).
fn verdict(during: &str, result: Result<bool, String>) -> Result<bool, FilecoinError> {
    result.map_err(|message| FilecoinError::Filecoin { during: during.into(), message })
}

/// The sectors (id, comm_r) the vanilla proofs are for, as the verifier knows them.
fn replicas(
    proof: RegisteredPoStProof,
    vanilla: &[Vec<u8>],
) -> Result<BTreeMap<SectorId, PublicReplicaInfo>, FilecoinError> {
    fn of<Tree: Shape>(
        proof: RegisteredPoStProof,
        vanilla: &[Vec<u8>],
        challenges: usize,
    ) -> Result<BTreeMap<SectorId, PublicReplicaInfo>, FilecoinError> {
        let decoded = decode_vanilla::<Tree>(vanilla, challenges)?;
        Ok(decoded.iter().map(|p| (p.sector_id, PublicReplicaInfo::new(proof, p.comm_r.into()))).collect())
    }
    let size = SectorSize::from_bytes(u64::from(proof.sector_size()))?;
    let challenges = proof.as_v1_config().challenge_count;
    with_tree!(size, of, proof, vanilla, challenges)
}

/// filecoin-proofs' `verify_winning_post` of `proof` for `req`.
pub fn winning_post(req: &WinningPoStRequest, proof: &[u8]) -> Result<bool, FilecoinError> {
    let replicas = replicas(req.proof, &req.vanilla)?;
    let prover = crate::prover_id(req.miner_id);
    verdict("verifying the WinningPoSt", guarded(|| verify_winning_post(&req.randomness, proof, &replicas, prover)))
}

/// filecoin-proofs' `verify_window_post` of `proof` for `req`, the partition
/// taken as a deadline of its own sectors (what its public inputs are for
/// WindowPoSt V1_1, whose challenges do not depend on a sector's position).
pub fn window_post(req: &WindowPoStRequest, proof: &[u8]) -> Result<bool, FilecoinError> {
    let replicas = replicas(req.proof, &req.vanilla)?;
    let prover = crate::prover_id(req.miner_id);
    let proofs = [(req.proof, proof)];
    verdict("verifying the WindowPoSt", guarded(|| verify_window_post(&req.randomness, &proofs, &replicas, prover)))
}

/// filecoin-proofs' `verify_seal` of `proof` for `req`: the replica id
/// recomputed from the miner id, sector number, ticket and comm_d, as the
/// chain does.
pub fn porep(req: &PoRepRequest, proof: &[u8]) -> Result<bool, FilecoinError> {
    let c1 = req.c1();
    let (prover, sector) = (crate::prover_id(req.miner_id()), SectorId::from(req.sector_number()));
    let check = || verify_seal(c1.registered_proof, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed, proof);
    verdict("verifying the PoRep", guarded(check))
}

/// filecoin-proofs' `verify_empty_sector_update_proof` of `proof` for `req`.
pub fn snap(req: &SnapRequest, proof: &[u8]) -> Result<bool, FilecoinError> {
    let check =
        || verify_empty_sector_update_proof(req.proof(), proof, req.comm_r_old(), req.comm_r_new(), req.comm_d_new());
    verdict("verifying the SnapDeals proof", guarded(check))
}
