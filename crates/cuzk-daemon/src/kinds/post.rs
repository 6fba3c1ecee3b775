//! WinningPoSt and WindowPoSt requests: Go's `abi.RegisteredPoStProof`
//! number, the randomness, the miner, one bincode sector proof per sector,
//! and for WindowPoSt the partition's index in the deadline.

use cuzk_filecoin::post::proof_from_abi;
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::Request;
use tonic::Status;

use super::{check_sector_size, invalid, Kind};
use crate::proto;

/// The PoSt request of `req` (whose kind is WinningPoSt or WindowPoSt).
pub(super) fn decode(req: &proto::SubmitProofRequest, kind: Kind) -> Result<Request, Status> {
    let number = i64::try_from(req.registered_proof).map_err(|_| invalid("registered_proof", "out of range"))?;
    let proof = proof_from_abi(number).map_err(|e| invalid("registered_proof", e))?;
    check_sector_size(req.sector_size, req.registered_proof, u64::from(proof.sector_size()))?;
    let randomness: [u8; 32] = req
        .randomness
        .as_slice()
        .try_into()
        .map_err(|_| invalid("randomness", format!("{} bytes, expected 32", req.randomness.len())))?;
    if req.vanilla_proofs.is_empty() {
        return Err(invalid("vanilla_proofs", "missing (one bincode sector proof per sector)"));
    }
    let vanilla = req.vanilla_proofs.clone();
    let request: Request = if kind == Kind::WinningPoSt {
        WinningPoStRequest { proof, randomness, miner_id: req.miner_id, vanilla }.into()
    } else {
        let partition_index = req.partition_index as usize;
        WindowPoStRequest { proof, randomness, miner_id: req.miner_id, partition_index, vanilla }.into()
    };
    // The proof type must be of the request's kind (a WindowPoSt number in
    // a WinningPoSt request is refused here, not by the prover).
    request.circuit_id().map_err(|e| invalid("registered_proof", e))?;
    Ok(request)
}
