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
    /// Seal commit phase 2 of one sector.
    PoRepC2(PoRepRequest),
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
        Request::PoRepC2(r)
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
