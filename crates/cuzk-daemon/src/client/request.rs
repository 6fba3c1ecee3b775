//! `SubmitProofRequest`s as Curio fills them, from the inputs an operator
//! has at hand: Curio's `c1.json` for PoRep, vanilla proofs and the chain's
//! values for PoSt and SnapDeals, a size for the built-in workloads. What
//! the request's other fields follow from (the registered proof, the sector
//! number and size) is read from the inputs, and inputs that cannot make a
//! request are refused here, naming the input, before anything is sent.

use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::post::proof_from_abi;
use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::{CircuitId, FilecoinError, ProofKind as FilecoinKind, SectorSize};
use cuzk_synth::workloads::Workload;

use super::ClientError;
use crate::proto::{ProofKind, SubmitProofRequest};

/// A built-in workload: `partitions` circuits of `size` (the daemon looks
/// for `<param_dir>/<workload>-<size>.params`).
pub fn workload(workload: Workload, size: u64, partitions: u32) -> SubmitProofRequest {
    let proof_kind = match workload {
        Workload::Sha256 => ProofKind::WorkloadSha256,
        Workload::MulChain => ProofKind::WorkloadMulChain,
    };
    SubmitProofRequest {
        proof_kind: proof_kind as i32,
        workload_size: size,
        workload_partitions: partitions,
        ..Default::default()
    }
}

/// PoRep C2 from Curio's `c1.json` wrapper (`{"SectorNum", "Phase1Out",
/// "SectorSize"}`) for miner `miner_id`, sent as it is. The wrapper is
/// checked first as the daemon will check it (its C1 against the sector
/// and miner it claims), and gives the registered proof, the sector number
/// and the sector size.
pub fn porep(c1_wrapper: Vec<u8>, miner_id: u64) -> Result<SubmitProofRequest, ClientError> {
    let checked = PoRepRequest::from_curio_wrapper(&c1_wrapper, miner_id).map_err(input_error("c1.json"))?;
    Ok(SubmitProofRequest {
        proof_kind: ProofKind::PorepSealCommit as i32,
        // Go's abi.RegisteredSealProof numbers the variants in their order.
        registered_proof: checked.registered_proof() as u64,
        sector_size: checked.circuit_id().sector_size.bytes(),
        sector_number: checked.sector_number(),
        miner_id,
        vanilla_proof: c1_wrapper,
        ..Default::default()
    })
}

/// The inputs of a WinningPoSt or WindowPoSt request.
pub struct PoSt {
    /// Go's `abi.RegisteredPoStProof` number: 0-4 WinningPoSt, 5-14
    /// WindowPoSt; it decides the request's kind.
    pub registered_proof: u64,
    /// The challenge randomness.
    pub randomness: [u8; 32],
    /// The miner's actor id.
    pub miner_id: u64,
    /// WindowPoSt: the partition's index in the deadline (WinningPoSt has none).
    pub partition_index: Option<u32>,
    /// One bincode sector proof per sector, in order.
    pub vanilla: Vec<Vec<u8>>,
}

/// A WinningPoSt or WindowPoSt request, its kind and sector size read from
/// the registered proof.
pub fn post(p: PoSt) -> Result<SubmitProofRequest, ClientError> {
    let number = i64::try_from(p.registered_proof).map_err(|_| request_error("registered_proof", "out of range"))?;
    let proof = proof_from_abi(number).map_err(input_error("registered_proof"))?;
    let (randomness, miner_id) = (p.randomness, p.miner_id);
    let winning = WinningPoStRequest { proof, randomness, miner_id, vanilla: Vec::new() };
    let (kind, circuit) = match winning.circuit_id() {
        Ok(id) => {
            if p.partition_index.is_some_and(|i| i != 0) {
                return Err(request_error("partition_index", "a WinningPoSt has no partitions"));
            }
            (ProofKind::WinningPost, id)
        }
        Err(_) => {
            let partition_index = p.partition_index.unwrap_or(0) as usize;
            let window = WindowPoStRequest { proof, randomness, miner_id, partition_index, vanilla: Vec::new() };
            (ProofKind::WindowPostPartition, window.circuit_id().map_err(input_error("registered_proof"))?)
        }
    };
    if p.vanilla.is_empty() {
        return Err(request_error("vanilla_proofs", "none given (one bincode sector proof per sector)"));
    }
    Ok(SubmitProofRequest {
        proof_kind: kind as i32,
        registered_proof: p.registered_proof,
        sector_size: circuit.sector_size.bytes(),
        randomness: randomness.to_vec(),
        miner_id,
        partition_index: p.partition_index.unwrap_or(0),
        vanilla_proofs: p.vanilla,
        ..Default::default()
    })
}

/// The inputs of a SnapDeals request.
pub struct Snap {
    /// Go's `abi.RegisteredUpdateProof` number (0-4: 2 KiB ... 64 GiB).
    pub registered_proof: u64,
    /// One bincode partition proof per update partition, in order.
    pub vanilla: Vec<Vec<u8>>,
    /// CommR of the sector before the update: a 32-byte digest or CID bytes.
    pub comm_r_old: Vec<u8>,
    /// CommR after the update (digest or CID bytes).
    pub comm_r_new: Vec<u8>,
    /// CommD of the new data (digest or CID bytes).
    pub comm_d_new: Vec<u8>,
}

/// A SnapDeals request; the commitments and the number of partition proofs
/// are checked first, and sent as given (Curio sends CID bytes).
pub fn snap(s: Snap) -> Result<SubmitProofRequest, ClientError> {
    let checked =
        SnapRequest::from_curio(s.registered_proof, s.vanilla.clone(), &s.comm_r_old, &s.comm_r_new, &s.comm_d_new)
            .map_err(input_error("registered_proof"))?;
    Ok(SubmitProofRequest {
        proof_kind: ProofKind::SnapDealsUpdate as i32,
        registered_proof: s.registered_proof,
        sector_size: checked.circuit_id().sector_size.bytes(),
        vanilla_proofs: s.vanilla,
        comm_r_old: s.comm_r_old,
        comm_r_new: s.comm_r_new,
        comm_d_new: s.comm_d_new,
        ..Default::default()
    })
}

/// The circuit a request proves, named as `PreloadSRS` and `GetStatus` name
/// it (`winning-2k`, `porep-32g`, `mul-chain-1024`); the kind alone when
/// the request's sector size is not one Filecoin registers.
pub fn circuit_id(req: &SubmitProofRequest) -> String {
    let filecoin = match ProofKind::try_from(req.proof_kind) {
        Ok(ProofKind::PorepSealCommit) => FilecoinKind::PoRepC2,
        Ok(ProofKind::SnapDealsUpdate) => FilecoinKind::SnapDeals,
        Ok(ProofKind::WindowPostPartition) => FilecoinKind::WindowPoSt,
        Ok(ProofKind::WinningPost) => FilecoinKind::WinningPoSt,
        Ok(ProofKind::WorkloadSha256) => return format!("{}-{}", Workload::Sha256, req.workload_size),
        Ok(ProofKind::WorkloadMulChain) => return format!("{}-{}", Workload::MulChain, req.workload_size),
        Ok(ProofKind::Unspecified) | Err(_) => return format!("proof-kind-{}", req.proof_kind),
    };
    match SectorSize::from_bytes(req.sector_size) {
        Ok(size) => CircuitId::new(filecoin, size).to_string(),
        Err(_) => filecoin.short_name().to_string(),
    }
}

fn request_error(field: &str, reason: impl ToString) -> ClientError {
    ClientError::Request { field: field.to_string(), reason: reason.to_string() }
}

/// A Filecoin error as the input it names (`context` when it names none).
fn input_error(context: &'static str) -> impl Fn(FilecoinError) -> ClientError {
    move |e| match e {
        FilecoinError::Input { field, reason } => ClientError::Request { field, reason },
        other => request_error(context, other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post_of(registered_proof: u64, partition_index: Option<u32>) -> Result<SubmitProofRequest, ClientError> {
        post(PoSt { registered_proof, randomness: [7; 32], miner_id: 1000, partition_index, vanilla: vec![vec![1, 2]] })
    }

    #[test]
    fn post_requests_take_their_kind_and_size_from_the_registered_proof() {
        let winning = post_of(0, None).unwrap();
        assert_eq!((winning.proof_kind, winning.sector_size), (ProofKind::WinningPost as i32, 2048));
        assert_eq!((winning.randomness.as_slice(), winning.miner_id), (&[7u8; 32][..], 1000));
        assert_eq!(circuit_id(&winning), "winning-2k");
        let window = post_of(13, Some(4)).unwrap();
        assert_eq!((window.proof_kind, window.partition_index), (ProofKind::WindowPostPartition as i32, 4));
        assert_eq!((window.sector_size, circuit_id(&window).as_str()), (32 << 30, "wpost-32g"));
        assert_eq!(window.vanilla_proofs, vec![vec![1u8, 2]]);
        for (bad, field) in [(post_of(15, None), "registered_proof"), (post_of(0, Some(2)), "partition_index")] {
            assert!(
                matches!(&bad, Err(ClientError::Request { field: f, .. }) if f == field),
                "{field}: {:?}",
                bad.err()
            );
        }
        let none = post(PoSt {
            registered_proof: 0,
            randomness: [0; 32],
            miner_id: 1,
            partition_index: None,
            vanilla: vec![],
        });
        assert!(none.unwrap_err().to_string().starts_with("vanilla_proofs"));
    }

    #[test]
    fn workload_requests_and_their_circuit_ids() {
        let r = workload(Workload::Sha256, 10, 3);
        assert_eq!((r.proof_kind, r.workload_size, r.workload_partitions), (ProofKind::WorkloadSha256 as i32, 10, 3));
        assert_eq!(circuit_id(&r), "sha256-10");
        assert_eq!(circuit_id(&workload(Workload::MulChain, 1024, 1)), "mul-chain-1024");
        let snap =
            SubmitProofRequest { proof_kind: ProofKind::SnapDealsUpdate as i32, sector_size: 3, ..Default::default() };
        assert_eq!(circuit_id(&snap), "snap");
        assert_eq!(circuit_id(&SubmitProofRequest::default()), "proof-kind-0");
    }

    #[test]
    fn inputs_that_make_no_request_are_named() {
        let err = porep(b"{\"SectorNum\": 1}".to_vec(), 1000).unwrap_err();
        assert!(matches!(&err, ClientError::Request { .. }), "{err}");
        assert!(err.to_string().contains("Phase1Out") || err.to_string().contains("c1.json"), "{err}");
        let snap_of = |registered_proof, comm: Vec<u8>| {
            snap(Snap {
                registered_proof,
                vanilla: vec![vec![0]],
                comm_r_old: comm.clone(),
                comm_r_new: comm.clone(),
                comm_d_new: comm,
            })
        };
        let err = snap_of(9, vec![1; 32]).unwrap_err();
        assert!(err.to_string().contains("RegisteredUpdateProof(9)"), "{err}");
        let err = snap_of(0, vec![1; 31]).unwrap_err();
        assert!(err.to_string().starts_with("comm_r_old"), "{err}");
        let ok = snap_of(0, vec![1; 32]).unwrap();
        assert_eq!((ok.proof_kind, ok.sector_size, ok.comm_d_new.len()), (ProofKind::SnapDealsUpdate as i32, 2048, 32));
    }
}
