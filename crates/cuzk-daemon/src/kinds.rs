//! From a `SubmitProofRequest` to an engine job: the proof kind and its
//! default priority, the request's fields decoded (cheap checks that name
//! the field, answered at once), then prepared (filecoin-proofs' vanilla
//! checks and the circuits, a blocking step) into a job and the check its
//! proof bytes must pass before the client gets them.
//!
//! Each kind is one arm of [`Decoded`]: PoRep and SnapDeals join as
//! `cuzk_filecoin`'s request types for them land (same `circuit_id`,
//! `prepare` contract as the PoSt kinds).

use std::path::{Path, PathBuf};

use blstrs::Scalar;
use cuzk_filecoin::post::proof_from_abi;
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::{CircuitId, FilecoinError, ParamCache, Partitions};
use cuzk_groth16::{Domain, PreparedVerifyingKey, Proof};
use cuzk_pipeline::{Job, Priority};
use cuzk_synth::workloads::Workload;
use tonic::Status;

use crate::proto;

/// Most partitions of one workload request.
pub(crate) const MAX_WORKLOAD_PARTITIONS: u32 = 64;

/// What a request proves, as the daemon counts and schedules it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    PoRep,
    Snap,
    WindowPoSt,
    WinningPoSt,
    Workload(Workload),
}

impl Kind {
    /// Every kind, for queue listings.
    pub(crate) const ALL: [Kind; 6] = [
        Kind::PoRep,
        Kind::Snap,
        Kind::WindowPoSt,
        Kind::WinningPoSt,
        Kind::Workload(Workload::Sha256),
        Kind::Workload(Workload::MulChain),
    ];

    /// The kind of a request's `proof_kind`.
    pub(crate) fn from_proto(value: i32) -> Result<Kind, Status> {
        use proto::ProofKind as P;
        match P::try_from(value) {
            Ok(P::PorepSealCommit) => Ok(Kind::PoRep),
            Ok(P::SnapDealsUpdate) => Ok(Kind::Snap),
            Ok(P::WindowPostPartition) => Ok(Kind::WindowPoSt),
            Ok(P::WinningPost) => Ok(Kind::WinningPoSt),
            Ok(P::WorkloadSha256) => Ok(Kind::Workload(Workload::Sha256)),
            Ok(P::WorkloadMulChain) => Ok(Kind::Workload(Workload::MulChain)),
            Ok(P::Unspecified) => Err(invalid("proof_kind", "unspecified")),
            Err(_) => Err(invalid("proof_kind", format!("unknown value {value}"))),
        }
    }

    /// The name in metrics labels and queue listings.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::PoRep => "porep",
            Kind::Snap => "snap",
            Kind::WindowPoSt => "wpost",
            Kind::WinningPoSt => "winning",
            Kind::Workload(w) => w.name(),
        }
    }

    /// The priority of a request that leaves it unspecified: a WinningPoSt
    /// missed loses a block reward, a WindowPoSt missed is a fault.
    pub(crate) fn default_priority(self) -> Priority {
        match self {
            Kind::WinningPoSt => Priority::Critical,
            Kind::WindowPoSt => Priority::High,
            Kind::PoRep | Kind::Snap | Kind::Workload(_) => Priority::Normal,
        }
    }
}

/// The request's priority, or the kind's default when unspecified.
pub(crate) fn priority(value: i32, kind: Kind) -> Result<Priority, Status> {
    use proto::Priority as P;
    match P::try_from(value) {
        Ok(P::Unspecified) => Ok(kind.default_priority()),
        Ok(P::Low) => Ok(Priority::Low),
        Ok(P::Normal) => Ok(Priority::Normal),
        Ok(P::High) => Ok(Priority::High),
        Ok(P::Critical) => Ok(Priority::Critical),
        Err(_) => Err(invalid("priority", format!("unknown value {value}"))),
    }
}

/// `INVALID_ARGUMENT` naming `field`.
pub(crate) fn invalid(field: &str, why: impl std::fmt::Display) -> Status {
    Status::invalid_argument(format!("{field}: {why}"))
}

/// A request's fields decoded, before filecoin-proofs looks at the vanilla proofs.
pub(crate) enum Decoded {
    WindowPoSt(WindowPoStRequest),
    WinningPoSt(WinningPoStRequest),
    Workload { workload: Workload, size: usize, partitions: usize, params: PathBuf },
}

/// Decodes `req` (whose kind is `kind`), naming the first field that is
/// missing, malformed or disagrees with another.
pub(crate) fn decode(req: &proto::SubmitProofRequest, kind: Kind, param_dir: &Path) -> Result<Decoded, Status> {
    match kind {
        Kind::WindowPoSt | Kind::WinningPoSt => decode_post(req, kind),
        Kind::Workload(workload) => decode_workload(req, workload, param_dir),
        Kind::PoRep | Kind::Snap => Err(Status::unimplemented(format!(
            "proof_kind: {} is not served by this daemon yet",
            kind.label()
        ))),
    }
}

fn decode_post(req: &proto::SubmitProofRequest, kind: Kind) -> Result<Decoded, Status> {
    let number = i64::try_from(req.registered_proof).map_err(|_| invalid("registered_proof", "out of range"))?;
    let proof = proof_from_abi(number).map_err(|e| invalid("registered_proof", e))?;
    let size = u64::from(proof.sector_size());
    if req.sector_size != 0 && req.sector_size != size {
        let why = format!("{} bytes, but registered_proof {number} is for {size}-byte sectors", req.sector_size);
        return Err(invalid("sector_size", why));
    }
    let randomness: [u8; 32] = req
        .randomness
        .as_slice()
        .try_into()
        .map_err(|_| invalid("randomness", format!("{} bytes, expected 32", req.randomness.len())))?;
    if req.vanilla_proofs.is_empty() {
        return Err(invalid("vanilla_proofs", "missing (one bincode sector proof per sector)"));
    }
    let vanilla = req.vanilla_proofs.clone();
    let decoded = if kind == Kind::WinningPoSt {
        Decoded::WinningPoSt(WinningPoStRequest { proof, randomness, miner_id: req.miner_id, vanilla })
    } else {
        let partition_index = req.partition_index as usize;
        Decoded::WindowPoSt(WindowPoStRequest { proof, randomness, miner_id: req.miner_id, partition_index, vanilla })
    };
    // The proof type must be of the request's kind (a WindowPoSt number in
    // a WinningPoSt request is refused here, not by the prover).
    decoded.circuit().map(|_| decoded)
}

fn decode_workload(req: &proto::SubmitProofRequest, workload: Workload, dir: &Path) -> Result<Decoded, Status> {
    let size = usize::try_from(req.workload_size).ok().filter(|s| (1..=workload.max_size()).contains(s));
    let size = size.ok_or_else(|| {
        invalid("workload_size", format!("{} is outside 1..={} for {workload}", req.workload_size, workload.max_size()))
    })?;
    let partitions = req.workload_partitions.max(1);
    if partitions > MAX_WORKLOAD_PARTITIONS {
        return Err(invalid("workload_partitions", format!("{partitions} is above {MAX_WORKLOAD_PARTITIONS}")));
    }
    let params = dir.join(format!("{workload}-{size}.params"));
    Ok(Decoded::Workload { workload, size, partitions: partitions as usize, params })
}

/// The parameter file and circuit name of a `PreloadSRS`/`EvictSRS` circuit
/// id: a Filecoin id (`wpost-32g`) or a workload's (`mul-chain-1024`).
pub(crate) fn params_for_circuit(dir: &Path, id: &str) -> Result<PathBuf, Status> {
    if let Ok(circuit) = id.parse::<CircuitId>() {
        return ParamCache::new(dir).files(circuit).map(|f| f.params).map_err(|e| invalid("circuit_id", e));
    }
    let workload = Workload::ALL.into_iter().find_map(|w| {
        let size = id.strip_prefix(w.name())?.strip_prefix('-')?.parse::<usize>().ok()?;
        (1..=w.max_size()).contains(&size).then_some((w, size))
    });
    match workload {
        Some((w, size)) => Ok(dir.join(format!("{w}-{size}.params"))),
        None => Err(invalid(
            "circuit_id",
            format!("unknown circuit id {id:?} (porep|wpost|winning|snap-2k|8m|512m|32g|64g, sha256-N, mul-chain-N)"),
        )),
    }
}

/// What a finished job's bytes are checked against before they leave: the
/// verifier's public inputs per partition and where its key is.
pub(crate) struct Check {
    /// The circuit's name in messages.
    pub(crate) circuit: String,
    /// Set for Filecoin kinds (their checks are `cuzk_filecoin::proofs::verify`).
    filecoin: Option<CircuitId>,
    /// Where the verifying key is read from (the `.vk` file, or a parameter file's head).
    pub(crate) vk: PathBuf,
    inputs: Vec<Vec<Scalar>>,
}

impl Check {
    /// Checks `bytes` (192 per partition) under the prepared key `pvk`.
    pub(crate) fn verify(&self, pvk: &PreparedVerifyingKey, bytes: &[u8]) -> Result<(), String> {
        if let Some(id) = self.filecoin {
            return cuzk_filecoin::proofs::verify(id, pvk, &self.inputs, bytes).map_err(|e| e.to_string());
        }
        if bytes.len() != self.inputs.len() * 192 {
            return Err(format!("{} bytes of proofs for {} partitions", bytes.len(), self.inputs.len()));
        }
        for (k, (chunk, inputs)) in bytes.chunks_exact(192).zip(&self.inputs).enumerate() {
            let proof = Proof::from_bytes(chunk).map_err(|e| format!("partition {k}: {e}"))?;
            match cuzk_groth16::verify_proof(pvk, &proof, inputs) {
                Ok(true) => {}
                Ok(false) => return Err(format!("the proof of {} partition {k} does not verify", self.circuit)),
                Err(e) => return Err(format!("partition {k}: {e}")),
            }
        }
        Ok(())
    }
}

/// A request ready for the engine.
pub(crate) struct Prepared {
    pub(crate) job: Job,
    pub(crate) params: PathBuf,
    pub(crate) check: Check,
}

impl Decoded {
    /// The Filecoin circuit, refusing a proof type of the other kind.
    fn circuit(&self) -> Result<Option<CircuitId>, Status> {
        let id = match self {
            Decoded::WindowPoSt(r) => r.circuit_id(),
            Decoded::WinningPoSt(r) => r.circuit_id(),
            Decoded::Workload { .. } => return Ok(None),
        };
        id.map(Some).map_err(|e| invalid("registered_proof", e))
    }

    /// filecoin-proofs' checks and the circuits, as a job at `priority`
    /// against the parameters in `cache` (blocking: seconds for 32 GiB WindowPoSt).
    pub(crate) fn prepare(self, cache: &ParamCache, priority: Priority) -> Result<Prepared, Status> {
        let partitions = match &self {
            Decoded::WindowPoSt(r) => r.prepare(),
            Decoded::WinningPoSt(r) => r.prepare(),
            Decoded::Workload { workload, size, partitions, params } => {
                return prepare_workload(*workload, *size, *partitions, params.clone(), priority)
            }
        };
        let Partitions { circuit_id, circuits, public_inputs } = partitions.map_err(filecoin_status)?;
        let files = cache.files(circuit_id).map_err(filecoin_status)?;
        require_params(&files.params, &circuit_id.to_string())?;
        let vk = if files.vk.exists() { files.vk } else { files.params.clone() };
        let job = circuits.into_iter().fold(Job::new(&files.params).priority(priority), Job::partition);
        let check = Check { circuit: circuit_id.to_string(), filecoin: Some(circuit_id), vk, inputs: public_inputs };
        Ok(Prepared { job, params: files.params, check })
    }
}

fn prepare_workload(
    workload: Workload,
    size: usize,
    partitions: usize,
    params: PathBuf,
    priority: Priority,
) -> Result<Prepared, Status> {
    let circuit = format!("{workload}-{size}");
    require_params(&params, &circuit)?;
    // The file's header must fit the workload before any circuit is built.
    let summary = cuzk_groth16::inspect(&params).map_err(|e| Status::failed_precondition(format!("{circuit}: {e}")))?;
    let inputs = workload.public_inputs::<Scalar>(size, 0).map_err(|e| invalid("workload_size", e))?.len() as u64 + 1;
    let domain = Domain::size_for(workload.expected_constraints(size) + inputs as usize)
        .map_err(|e| invalid("workload_size", e))?;
    if summary.h + 1 != domain as u64 || summary.ic != inputs {
        return Err(invalid("workload_size", format!("{size} does not fit {}", params.display())));
    }
    let mut job = Job::new(&params).priority(priority);
    let mut all_inputs = Vec::with_capacity(partitions);
    for _ in 0..partitions {
        let c = workload.circuit::<Scalar>(size, rand::random()).map_err(|e| invalid("workload_size", e))?;
        all_inputs.push(c.public_inputs());
        job = job.partition(c);
    }
    let check = Check { circuit, filecoin: None, vk: params.clone(), inputs: all_inputs };
    Ok(Prepared { job, params, check })
}

fn require_params(path: &Path, circuit: &str) -> Result<(), Status> {
    if path.is_file() {
        return Ok(());
    }
    Err(Status::failed_precondition(format!("no parameters for {circuit}: {} is missing", path.display())))
}

/// A Filecoin error as a status: the request's fault is `INVALID_ARGUMENT`;
/// parameter files the daemon lacks are `FAILED_PRECONDITION`.
pub(crate) fn filecoin_status(e: FilecoinError) -> Status {
    match e {
        FilecoinError::Params { .. } | FilecoinError::Io { .. } => Status::failed_precondition(e.to_string()),
        _ => Status::invalid_argument(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_priorities_map_and_default() {
        let k = |p: proto::ProofKind| Kind::from_proto(p as i32).unwrap();
        assert_eq!(k(proto::ProofKind::WinningPost), Kind::WinningPoSt);
        assert_eq!(k(proto::ProofKind::WorkloadMulChain), Kind::Workload(Workload::MulChain));
        assert!(Kind::from_proto(0).unwrap_err().message().contains("proof_kind"));
        assert!(Kind::from_proto(77).unwrap_err().message().contains("77"));
        let unspecified = proto::Priority::Unspecified as i32;
        assert_eq!(priority(unspecified, Kind::WinningPoSt).unwrap(), Priority::Critical);
        assert_eq!(priority(unspecified, Kind::WindowPoSt).unwrap(), Priority::High);
        assert_eq!(priority(unspecified, Kind::PoRep).unwrap(), Priority::Normal);
        assert_eq!(priority(unspecified, Kind::Snap).unwrap(), Priority::Normal);
        assert_eq!(priority(proto::Priority::Low as i32, Kind::WinningPoSt).unwrap(), Priority::Low);
        assert!(priority(9, Kind::PoRep).unwrap_err().message().contains("priority"));
    }

    #[test]
    fn circuit_ids_name_parameter_files() {
        let dir = Path::new("/p");
        let wpost = params_for_circuit(dir, "wpost-2k").unwrap();
        assert!(wpost.starts_with(dir) && wpost.to_string_lossy().ends_with(".params"), "{}", wpost.display());
        assert_eq!(params_for_circuit(dir, "mul-chain-64").unwrap(), dir.join("mul-chain-64.params"));
        for bad in ["porep-1g", "mul-chain-0", "mul-chain-x", "sha256", ""] {
            assert_eq!(params_for_circuit(dir, bad).unwrap_err().code(), tonic::Code::InvalidArgument, "{bad}");
        }
    }
}
