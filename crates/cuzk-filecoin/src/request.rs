//! Every proof request of every kind as one type, so the facade, the CLI and
//! the daemon handle them all through one path: the circuit id (which names
//! the parameter file), the partitions to prove with the verifier's inputs,
//! the vanilla pre-check, and verification of the proof bytes.

use blstrs::Scalar;

use crate::porep::PoRepRequest;
use crate::snap::SnapRequest;
use crate::window_post::WindowPoStRequest;
use crate::winning_post::WinningPoStRequest;
use crate::{CircuitId, FilecoinError, ParamCache, Partitions, ProofKind};

/// A request of any kind, as Curio sends it.
#[derive(Clone, Debug)]
pub enum Request {
    /// Seal commit phase 2 of one sector (boxed: the C1 output's
    /// commitments make it several times larger than the other requests).
    PoRepC2(Box<PoRepRequest>),
    /// One SnapDeals (empty sector update) proof.
    SnapDeals(SnapRequest),
    /// One WindowPoSt partition.
    WindowPoSt(WindowPoStRequest),
    /// One WinningPoSt.
    WinningPoSt(WinningPoStRequest),
}

impl Request {
    /// The proof kind, whatever the registered proof says (see [`Request::circuit_id`]).
    pub fn kind(&self) -> ProofKind {
        match self {
            Request::PoRepC2(_) => ProofKind::PoRepC2,
            Request::SnapDeals(_) => ProofKind::SnapDeals,
            Request::WindowPoSt(_) => ProofKind::WindowPoSt,
            Request::WinningPoSt(_) => ProofKind::WinningPoSt,
        }
    }

    /// The circuit shape (kind and sector size), refusing a PoSt registered
    /// proof of the other PoSt kind (PoRep and SnapDeals requests were
    /// checked when they were made).
    pub fn circuit_id(&self) -> Result<CircuitId, FilecoinError> {
        match self {
            Request::PoRepC2(r) => Ok(r.circuit_id()),
            Request::SnapDeals(r) => Ok(r.circuit_id()),
            Request::WindowPoSt(r) => r.circuit_id(),
            Request::WinningPoSt(r) => r.circuit_id(),
        }
    }

    /// One circuit per partition with the verifier's public inputs of each,
    /// after the kind's vanilla checks.
    pub fn prepare(&self) -> Result<Partitions, FilecoinError> {
        match self {
            Request::PoRepC2(r) => r.prepare(),
            Request::SnapDeals(r) => r.prepare(),
            Request::WindowPoSt(r) => r.prepare(),
            Request::WinningPoSt(r) => r.prepare(),
        }
    }

    /// filecoin-proofs' checks of the vanilla proofs, without building circuits.
    pub fn check_vanilla(&self) -> Result<(), FilecoinError> {
        match self {
            Request::PoRepC2(r) => r.check_vanilla(),
            Request::SnapDeals(r) => r.check_vanilla(),
            Request::WindowPoSt(r) => r.check_vanilla(),
            Request::WinningPoSt(r) => r.check_vanilla(),
        }
    }

    /// The public inputs filecoin-proofs' verifier computes, per partition.
    pub fn public_inputs(&self) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
        match self {
            Request::PoRepC2(r) => r.public_inputs(),
            Request::SnapDeals(r) => r.public_inputs(),
            Request::WindowPoSt(r) => r.public_inputs(),
            Request::WinningPoSt(r) => r.public_inputs(),
        }
    }

    /// Checks `proof` (192 bytes per partition, in partition order) with the
    /// verifying key in `cache`: `Ok(())` only when every partition verifies.
    pub fn verify(&self, cache: &ParamCache, proof: &[u8]) -> Result<(), FilecoinError> {
        match self {
            Request::PoRepC2(r) => r.verify(cache, proof),
            Request::SnapDeals(r) => r.verify(cache, proof),
            Request::WindowPoSt(r) => r.verify(cache, proof),
            Request::WinningPoSt(r) => r.verify(cache, proof),
        }
    }
}

impl From<PoRepRequest> for Request {
    fn from(r: PoRepRequest) -> Self {
        Request::PoRepC2(Box::new(r))
    }
}

impl From<SnapRequest> for Request {
    fn from(r: SnapRequest) -> Self {
        Request::SnapDeals(r)
    }
}

impl From<WindowPoStRequest> for Request {
    fn from(r: WindowPoStRequest) -> Self {
        Request::WindowPoSt(r)
    }
}

impl From<WinningPoStRequest> for Request {
    fn from(r: WinningPoStRequest) -> Self {
        Request::WinningPoSt(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::post::{proof_from_abi, RegisteredPoStProof};
    use crate::SectorSize;

    fn window(proof: RegisteredPoStProof) -> Request {
        WindowPoStRequest { proof, randomness: [0; 32], miner_id: 1000, partition_index: 0, vanilla: vec![] }.into()
    }

    fn winning(proof: RegisteredPoStProof) -> Request {
        WinningPoStRequest { proof, randomness: [0; 32], miner_id: 1000, vanilla: vec![] }.into()
    }

    #[test]
    fn requests_reach_their_kind_and_refuse_the_other_posts_proof_type() {
        let (winning_2k, window_2k) = (proof_from_abi(0).unwrap(), proof_from_abi(10).unwrap());
        let right = [(window(window_2k), ProofKind::WindowPoSt), (winning(winning_2k), ProofKind::WinningPoSt)];
        for (request, kind) in right {
            assert_eq!(request.kind(), kind);
            assert_eq!(request.circuit_id().unwrap(), CircuitId::new(kind, SectorSize::Kib2));
        }
        for request in [window(winning_2k), winning(window_2k)] {
            let err = request.circuit_id().unwrap_err();
            assert!(matches!(err, FilecoinError::UnsupportedProof { .. }), "{err}");
            assert!(matches!(request.check_vanilla(), Err(FilecoinError::UnsupportedProof { .. })));
        }
        // No vanilla proof: refused before anything is built.
        let err = window(window_2k).prepare().err().expect("an empty request is refused");
        assert!(matches!(&err, FilecoinError::Input { field, .. } if field == "vanilla_proofs"), "{err}");
    }
}
