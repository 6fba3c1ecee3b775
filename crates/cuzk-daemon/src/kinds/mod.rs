//! From a `SubmitProofRequest` to an engine job: the proof kind and its
//! default priority, the request's fields decoded (cheap checks that name
//! the field, answered at once), then prepared (filecoin-proofs' vanilla
//! checks and the circuits, a blocking step) into a job and the check its
//! proof bytes must pass before the client gets them.
//!
//! One module per kind decodes its fields (`porep`, `snap`, `post`,
//! `workload`); every Filecoin kind then becomes one `cuzk_filecoin`
//! [`Request`] and is prepared and checked the same way here.

mod porep;
mod post;
mod snap;
mod workload;

use std::path::{Path, PathBuf};

use blstrs::Scalar;
use cuzk_filecoin::{CircuitId, FilecoinError, ParamCache, Partitions, Request};
use cuzk_groth16::{PreparedVerifyingKey, Proof};
use cuzk_pipeline::{Job, Priority};
use cuzk_synth::workloads::Workload;
use tonic::Status;

use crate::proto;

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
    /// A Filecoin proof kind (its circuit id already known to be of the request's kind).
    Filecoin(Request),
    /// A benchmark workload.
    Workload(workload::WorkloadJob),
}

/// Decodes `req` (whose kind is `kind`), naming the first field that is
/// missing, malformed or disagrees with another.
pub(crate) fn decode(req: &proto::SubmitProofRequest, kind: Kind, param_dir: &Path) -> Result<Decoded, Status> {
    match kind {
        Kind::PoRep => porep::decode(req).map(Decoded::Filecoin),
        Kind::Snap => snap::decode(req).map(Decoded::Filecoin),
        Kind::WindowPoSt | Kind::WinningPoSt => post::decode(req, kind).map(Decoded::Filecoin),
        Kind::Workload(w) => workload::decode(req, w, param_dir).map(Decoded::Workload),
    }
}

/// Refuses a `sector_size` (0: not given) other than `size`, the sector
/// size of the registered proof numbered `number`.
fn check_sector_size(given: u64, number: u64, size: u64) -> Result<(), Status> {
    if given == 0 || given == size {
        return Ok(());
    }
    Err(invalid("sector_size", format!("{given} bytes, but registered_proof {number} is for {size}-byte sectors")))
}

/// The parameter file and circuit name of a `PreloadSRS`/`EvictSRS` circuit
/// id: a Filecoin id (`wpost-32g`) or a workload's (`mul-chain-1024`).
pub(crate) fn params_for_circuit(dir: &Path, id: &str) -> Result<PathBuf, Status> {
    if let Ok(circuit) = id.parse::<CircuitId>() {
        return ParamCache::new(dir).files(circuit).map(|f| f.params).map_err(|e| invalid("circuit_id", e));
    }
    match workload_circuit(id) {
        Some((w, size)) => Ok(dir.join(format!("{w}-{size}.params"))),
        None => Err(unknown_circuit(id)),
    }
}

/// The kind a circuit id proves (`wpost-32g`: WindowPoSt; `mul-chain-1024`: the workload).
pub(crate) fn circuit_kind(id: &str) -> Result<Kind, Status> {
    use cuzk_filecoin::ProofKind as F;
    if let Ok(circuit) = id.parse::<CircuitId>() {
        return Ok(match circuit.kind {
            F::PoRepC2 => Kind::PoRep,
            F::SnapDeals => Kind::Snap,
            F::WindowPoSt => Kind::WindowPoSt,
            F::WinningPoSt => Kind::WinningPoSt,
        });
    }
    workload_circuit(id).map(|(w, _)| Kind::Workload(w)).ok_or_else(|| unknown_circuit(id))
}

/// A workload's circuit id (`mul-chain-1024`) as the workload and its size.
fn workload_circuit(id: &str) -> Option<(Workload, usize)> {
    Workload::ALL.into_iter().find_map(|w| {
        let size = id.strip_prefix(w.name())?.strip_prefix('-')?.parse::<usize>().ok()?;
        (1..=w.max_size()).contains(&size).then_some((w, size))
    })
}

fn unknown_circuit(id: &str) -> Status {
    invalid(
        "circuit_id",
        format!("unknown circuit id {id:?} (porep|wpost|winning|snap-2k|8m|512m|32g|64g, sha256-N, mul-chain-N)"),
    )
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
    /// The public inputs of each partition, without the leading one.
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
    /// filecoin-proofs' checks and the circuits, as a job at `priority`
    /// against the parameters in `cache` (blocking: seconds for 32 GiB).
    pub(crate) fn prepare(self, cache: &ParamCache, priority: Priority) -> Result<Prepared, Status> {
        let request = match self {
            Decoded::Filecoin(request) => request,
            Decoded::Workload(w) => return w.prepare(priority),
        };
        // A vanilla proof refused is named as the request's field: PoRep's
        // C1 output (whose own parts the message names) is `vanilla_proof`;
        // the other kinds' errors name the entry of `vanilla_proofs`.
        let porep = matches!(request, Request::PoRepC2(_));
        let refused = |e: FilecoinError| match e {
            FilecoinError::InvalidVanilla { .. } | FilecoinError::Input { .. } if porep => invalid("vanilla_proof", e),
            FilecoinError::InvalidVanilla { .. } => invalid("vanilla_proofs", e),
            FilecoinError::Input { field, reason } => invalid(&field, reason),
            e => filecoin_status(e),
        };
        let circuit_id = request.circuit_id().map_err(refused)?;
        let files = cache.files(circuit_id).map_err(refused)?;
        // Before the vanilla checks and the circuits: a missing file says so at once.
        require_params(&files.params, &circuit_id.to_string())?;
        // The self-check needs a key that is not the parameter file's own:
        // a file of another setup would pass against its own head.
        if !files.vk.is_file() {
            return Err(Status::failed_precondition(format!(
                "no verifying key for {circuit_id}: {} is missing (the proofs could only be checked against {} \
                 itself, which a parameter file of another setup would pass)",
                files.vk.display(),
                files.params.display()
            )));
        }
        // The PoSt and SnapDeals requests check their vanilla proofs as they
        // build circuits; a C1 output is checked here (C2 trusts it, and
        // synthesis of a malformed one may panic in the engine).
        if let Request::PoRepC2(porep) = &request {
            porep.check_vanilla().map_err(refused)?;
        }
        let Partitions { circuits, public_inputs, .. } = request.prepare().map_err(refused)?;
        let vk = files.vk;
        // Each partition's synthesized inputs are compared with the
        // verifier's before a device proves it.
        let mut job = Job::new(&files.params).priority(priority);
        for (circuit, inputs) in circuits.into_iter().zip(&public_inputs) {
            job = job.partition_expecting(circuit, inputs.clone());
        }
        let check = Check { circuit: circuit_id.to_string(), filecoin: Some(circuit_id), vk, inputs: public_inputs };
        Ok(Prepared { job, params: files.params, check })
    }
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
            assert_eq!(circuit_kind(bad).unwrap_err().code(), tonic::Code::InvalidArgument, "{bad}");
        }
        for (id, kind) in [("porep-32g", Kind::PoRep), ("snap-2k", Kind::Snap), ("wpost-64g", Kind::WindowPoSt)] {
            assert_eq!(circuit_kind(id).unwrap(), kind, "{id}");
        }
        assert_eq!(circuit_kind("winning-2k").unwrap(), Kind::WinningPoSt);
        assert_eq!(circuit_kind("sha256-4").unwrap(), Kind::Workload(Workload::Sha256));
    }
}
