//! PoRep C2 requests as Curio's cuzk client sends them (curio
//! lib/ffi/cuzk_funcs.go, `PoRepSnarkCuzk`): `registered_proof` (Go's
//! `abi.RegisteredSealProof`), `sector_size`, `sector_number`, `miner_id`,
//! and the C1 output in `vanilla_proof`, as Curio's `c1.json` wrapper
//! `{"SectorNum", "Phase1Out", "SectorSize"}` (what its client sends and
//! its own daemon reads) or as the raw C1 JSON filecoin-ffi returns (a
//! version of its client passes that on unwrapped).
//!
//! Every field is checked against the others before anything is proved:
//! the sector size against the registered proof, the registered proof
//! against the C1's, the sector number against the wrapper's, and the
//! miner id through the replica id `verify_seal` recomputes (a proof of a
//! C1 handed over under the wrong miner would never verify on chain).

use cuzk_filecoin::porep::{registered_seal_proof, PoRepRequest};
use cuzk_filecoin::{FilecoinError, Request};
use serde::de::IgnoredAny;
use serde::Deserialize;
use tonic::Status;

use super::{check_sector_size, filecoin_status, invalid};
use crate::proto;

/// How the C1 output was handed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// Curio's `c1.json` wrapper, which carries its own sector number.
    Wrapper,
    /// filecoin-ffi's `SealCommitPhase1Output` JSON.
    C1,
}

/// The top-level keys that tell the two forms apart (values skipped unread).
#[derive(Deserialize)]
struct Keys {
    #[serde(rename = "Phase1Out")]
    phase1_out: Option<IgnoredAny>,
    #[serde(rename = "SectorNum")]
    sector_num: Option<IgnoredAny>,
    registered_proof: Option<IgnoredAny>,
}

/// Which form `bytes` are in. One pass over them without keeping any value
/// (tens of milliseconds for a 32 GiB C1 of ~50 MB, beside a proof of minutes).
fn form(bytes: &[u8]) -> Result<Form, Status> {
    let keys: Keys = serde_json::from_slice(bytes).map_err(|e| {
        invalid("vanilla_proof", format!("not a JSON object (Curio's c1.json wrapper or a C1 output): {e}"))
    })?;
    if keys.phase1_out.is_some() || keys.sector_num.is_some() {
        Ok(Form::Wrapper)
    } else if keys.registered_proof.is_some() {
        Ok(Form::C1)
    } else {
        let why = "neither Curio's c1.json wrapper (no Phase1Out) nor a C1 output (no registered_proof)";
        Err(invalid("vanilla_proof", why))
    }
}

/// The PoRep C2 request of `req`.
pub(super) fn decode(req: &proto::SubmitProofRequest) -> Result<Request, Status> {
    let proof = registered_seal_proof(req.registered_proof).map_err(|e| invalid("registered_proof", e))?;
    check_sector_size(req.sector_size, req.registered_proof, u64::from(proof.sector_size()))?;
    if !req.vanilla_proofs.is_empty() {
        let why = "must be empty for PoRep (the C1 output goes in vanilla_proof)";
        return Err(invalid("vanilla_proofs", why));
    }
    if req.vanilla_proof.is_empty() {
        return Err(invalid("vanilla_proof", "missing (Curio's c1.json wrapper, or the C1 output JSON)"));
    }
    let form = form(&req.vanilla_proof)?;
    let decoded = match form {
        Form::Wrapper => PoRepRequest::from_curio_wrapper(&req.vanilla_proof, req.miner_id),
        Form::C1 => PoRepRequest::from_c1_json(&req.vanilla_proof, req.sector_number, req.miner_id),
    };
    let porep = decoded.map_err(|e| refused(e, req, form))?;
    if porep.registered_proof() != proof {
        let why = format!(
            "{} is {proof:?}, but the C1 output in vanilla_proof is a {:?} proof",
            req.registered_proof,
            porep.registered_proof()
        );
        return Err(invalid("registered_proof", why));
    }
    if porep.sector_number() != req.sector_number {
        return Err(invalid("sector_number", not_the_wrappers(req.sector_number, porep.sector_number())));
    }
    Ok(porep.into())
}

/// The status of a C1 output the library refused, naming the request's field.
fn refused(e: FilecoinError, req: &proto::SubmitProofRequest, form: Form) -> Status {
    match e {
        // The wrapper's sector number was used for the replica id: when it
        // is not the request's, that is the disagreement to name.
        FilecoinError::ReplicaIdMismatch { sector_number, .. }
            if form == Form::Wrapper && sector_number != req.sector_number =>
        {
            invalid("sector_number", not_the_wrappers(req.sector_number, sector_number))
        }
        FilecoinError::ReplicaIdMismatch { .. } if form == Form::Wrapper => invalid("miner_id", e),
        FilecoinError::ReplicaIdMismatch { .. } => invalid("miner_id or sector_number", e),
        FilecoinError::Input { .. } | FilecoinError::UnsupportedProof { .. } => invalid("vanilla_proof", e),
        e => filecoin_status(e),
    }
}

/// Why a request's sector number is refused.
fn not_the_wrappers(requested: u64, wrapper: u64) -> String {
    format!("{requested}, but the c1.json wrapper's SectorNum is {wrapper}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_forms_are_told_apart_by_their_keys() {
        let wrapper = br#"{"SectorNum":7,"Phase1Out":"e30=","SectorSize":2048}"#;
        assert_eq!(form(wrapper).unwrap(), Form::Wrapper);
        // serde_json's order (sorted keys) as well as Go's.
        assert_eq!(form(br#"{"Phase1Out":null,"SectorNum":1}"#).unwrap(), Form::Wrapper);
        let c1 = br#"{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[{"a":[1,2]}]]}}"#;
        assert_eq!(form(c1).unwrap(), Form::C1);
        for (bytes, why) in [
            (&b"{\"comm_r\":[1]}"[..], "neither"),
            (b"[1,2]", "not a JSON object"),
            (b"\x00\x01", "not a JSON object"),
            (b"{\"Phase1Out\":", "not a JSON object"),
        ] {
            let err = form(bytes).unwrap_err();
            assert_eq!(err.code(), tonic::Code::InvalidArgument);
            assert!(err.message().starts_with("vanilla_proof: ") && err.message().contains(why), "{}", err.message());
        }
    }
}
