//! SnapDeals requests as Curio's cuzk client sends them (curio
//! lib/ffi/cuzk_funcs.go, `ProveUpdateCuzk`): `registered_proof` (Go's
//! `abi.RegisteredUpdateProof`), `sector_size`, one bincode `PartitionProof`
//! per update partition in `vanilla_proofs`, and the three commitments as
//! CID bytes (`cid.Bytes()`; bare 32-byte digests are taken too).
//!
//! Curio also sends `sector_number` and `miner_id`; neither is an input of
//! the update proof (its public inputs are the three commitments), so they
//! are not checked.

use cuzk_filecoin::snap::{registered_update_proof, sector_size, SnapRequest};
use cuzk_filecoin::{FilecoinError, Request};
use tonic::Status;

use super::{check_sector_size, filecoin_status, invalid};
use crate::proto;

/// The SnapDeals request of `req`.
pub(super) fn decode(req: &proto::SubmitProofRequest) -> Result<Request, Status> {
    let proof = registered_update_proof(req.registered_proof).map_err(|e| invalid("registered_proof", e))?;
    check_sector_size(req.sector_size, req.registered_proof, sector_size(proof).bytes())?;
    if !req.vanilla_proof.is_empty() {
        let why = "must be empty for SnapDeals (the partition proofs go in vanilla_proofs)";
        return Err(invalid("vanilla_proof", why));
    }
    if req.vanilla_proofs.is_empty() {
        return Err(invalid("vanilla_proofs", "missing (one bincode PartitionProof per update partition)"));
    }
    let snap =
        SnapRequest::new(proof, req.vanilla_proofs.clone(), &req.comm_r_old, &req.comm_r_new, &req.comm_d_new)
            .map_err(|e| match e {
                FilecoinError::Input { field, reason } => invalid(&field, reason),
                e => filecoin_status(e),
            })?;
    Ok(snap.into())
}
