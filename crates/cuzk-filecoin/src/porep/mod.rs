//! PoRep C2: a sector's commit proof, one Groth16 proof per partition of
//! filecoin-proofs' `StackedCircuit`, from the C1 output Curio sends.
//!
//! The circuits are the ones `seal_commit_phase2` proves (from the C1's
//! vanilla proofs, with `StackedCompound::circuit`'s values per partition k,
//! held as a [`PoRepPartition`] so that they synthesize in parts). The
//! public inputs are the ones `verify_seal` builds, which differ from the
//! prover's in one trusted value: C2 takes the C1's `replica_id` as given,
//! while `verify_seal` recomputes it from the miner's prover id, the sector
//! number, the ticket, comm_d and the proof type's porep id. A C1 handed over
//! with the wrong miner id or sector number would give a proof that never
//! verifies on chain, so a request refuses it before anything is proved.

mod config;
mod input;
mod vanilla;

pub use config::{abi_number, registered_seal_proof};

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use blstrs::Scalar;
use cuzk_groth16::prepare_verifying_key;
use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use filecoin_proofs::parameters::{public_params, setup_params};
use filecoin_proofs::{as_safe_commitment, PoRepConfig};
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use filecoin_proofs_api::RegisteredSealProof;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{self, generate_replica_id, StackedCompound, StackedDrg, Tau};

use crate::split::PoRepPartition;
use crate::{
    prover_id, CircuitId, FilecoinCircuit, FilecoinError, ParamCache, Partitions, ProofKind, SectorSize, Shape,
    ShapeCircuit,
};

/// filecoin-proofs' cache identifier of the PoRep parameters at `size`
/// (`stacked-proof-of-replication-<tree>-sha256_hasher-<hash>`), the same for
/// V1 and V1_1 proofs.
pub fn cache_identifier(size: SectorSize) -> Result<String, FilecoinError> {
    fn identifier<Tree: Shape>(config: &PoRepConfig) -> anyhow::Result<String> {
        config.get_cache_identifier::<Tree>()
    }
    let config = config::v1_1(size).as_v1_config();
    crate::with_tree!(size, identifier, &config)
        .map_err(|e| FilecoinError::filecoin(format!("naming the {size} PoRep parameters"), &e))
}

/// The PoRep partition circuit at `size` with no values, as filecoin-proofs'
/// `StackedCompound::blank_circuit` builds it for parameter generation.
pub fn blank_circuit(size: SectorSize) -> Result<FilecoinCircuit, FilecoinError> {
    fn blank<Tree: Shape>(config: &PoRepConfig) -> anyhow::Result<FilecoinCircuit> {
        let pp = public_params::<Tree>(config)?;
        Ok(Tree::wrap(ShapeCircuit::PoRep(StackedCompound::<Tree, Sha256Hasher>::blank_circuit(&pp))))
    }
    let config = config::v1_1(size).as_v1_config();
    crate::with_tree!(size, blank, &config)
        .map_err(|e| FilecoinError::filecoin(format!("building the blank {size} PoRep circuit"), &e))
}

/// A PoRep C2 request: a C1 output checked against the sector it claims to
/// be (registered proof, sizes, partition and challenge counts, and its
/// replica id against the miner id and sector number).
#[derive(Clone, Debug)]
pub struct PoRepRequest {
    c1: SealCommitPhase1Output,
    sector_number: u64,
    miner_id: u64,
    size: SectorSize,
    config: PoRepConfig,
    comm_d: Sha256Domain,
    comm_r: PoseidonDomain,
    /// The replica id `verify_seal` computes (equal to the C1's).
    replica_id: PoseidonDomain,
}

impl PoRepRequest {
    /// Curio's `c1.json` wrapper (`{"SectorNum", "Phase1Out": base64 of the
    /// C1 JSON, "SectorSize"}`) for miner `miner_id`. The wrapper's sector
    /// size must be the C1's.
    pub fn from_curio_wrapper(bytes: &[u8], miner_id: u64) -> Result<PoRepRequest, FilecoinError> {
        let wrapped = input::curio_wrapper(bytes)?;
        let (size, _) = config::supported(wrapped.c1.registered_proof)?;
        if wrapped.sector_size != size.bytes() {
            return Err(FilecoinError::input(
                "SectorSize",
                format!(
                    "{} bytes, but the C1 output is a {:?} proof of a {size} sector",
                    wrapped.sector_size, wrapped.c1.registered_proof
                ),
            ));
        }
        PoRepRequest::new(wrapped.c1, wrapped.sector_number, miner_id)
    }

    /// filecoin-ffi's C1 JSON (`serde_json` of filecoin-proofs-api's
    /// `SealCommitPhase1Output`) for sector `sector_number` of miner `miner_id`.
    pub fn from_c1_json(bytes: &[u8], sector_number: u64, miner_id: u64) -> Result<PoRepRequest, FilecoinError> {
        PoRepRequest::new(input::c1_json(bytes, "c1")?, sector_number, miner_id)
    }

    /// Checks `c1` against its registered proof and against the replica id
    /// of sector `sector_number` of miner `miner_id`.
    pub fn new(c1: SealCommitPhase1Output, sector_number: u64, miner_id: u64) -> Result<PoRepRequest, FilecoinError> {
        let proof = c1.registered_proof;
        let (size, config) = config::supported(proof)?;
        let (vanilla_size, lens) = vanilla::layout(&c1.vanilla_proofs);
        if vanilla_size != size {
            let why =
                format!("proofs of a {vanilla_size} sector, but registered_proof {proof:?} is for {size} sectors");
            return Err(FilecoinError::input("vanilla_proofs", why));
        }
        let partitions = usize::from(config.partitions);
        if lens.len() != partitions {
            let why = format!("{} partitions, but {proof:?} has {partitions}", lens.len());
            return Err(FilecoinError::input("vanilla_proofs", why));
        }
        let per_partition = setup_params(&config)
            .map_err(|e| FilecoinError::filecoin(format!("setting up {proof:?}"), &e))?
            .challenges
            .num_challenges_per_partition();
        if let Some((k, n)) = lens.iter().enumerate().find(|&(_, &n)| n != per_partition) {
            let why = format!("{n} challenge proofs, but {proof:?} proves {per_partition} per partition");
            return Err(FilecoinError::input(format!("vanilla_proofs[{k}]"), why));
        }
        for (field, bytes) in [("comm_d", &c1.comm_d), ("comm_r", &c1.comm_r), ("seed", &c1.seed)] {
            if bytes.iter().all(|&b| b == 0) {
                return Err(FilecoinError::input(field, "all zero"));
            }
        }
        let comm_d: Sha256Domain =
            as_safe_commitment(&c1.comm_d, "comm_d").map_err(|e| FilecoinError::input("comm_d", format!("{e:#}")))?;
        let comm_r: PoseidonDomain =
            as_safe_commitment(&c1.comm_r, "comm_r").map_err(|e| FilecoinError::input("comm_r", format!("{e:#}")))?;
        let replica_id = generate_replica_id::<PoseidonHasher, _>(
            &prover_id(miner_id),
            sector_number,
            &c1.ticket,
            comm_d,
            &config.porep_id,
        );
        if replica_id != c1.replica_id {
            return Err(FilecoinError::ReplicaIdMismatch { miner_id, sector_number });
        }
        Ok(PoRepRequest { c1, sector_number, miner_id, size, config, comm_d, comm_r, replica_id })
    }

    /// The C1 output.
    pub fn c1(&self) -> &SealCommitPhase1Output {
        &self.c1
    }

    /// The sector number.
    pub fn sector_number(&self) -> u64 {
        self.sector_number
    }

    /// The miner id.
    pub fn miner_id(&self) -> u64 {
        self.miner_id
    }

    /// The registered seal proof.
    pub fn registered_proof(&self) -> RegisteredSealProof {
        self.c1.registered_proof
    }

    /// The circuit (PoRep at the sector's size), which names the parameters.
    pub fn circuit_id(&self) -> CircuitId {
        CircuitId::new(ProofKind::PoRepC2, self.size)
    }

    /// The number of partitions, so of 192-byte proofs.
    pub fn partitions(&self) -> usize {
        usize::from(self.config.partitions)
    }

    /// The public inputs `verify_seal` checks each partition's proof
    /// against (without the leading one).
    pub fn public_inputs(&self) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
        crate::with_tree!(self.size, public_inputs_at, self)
    }

    /// One circuit per partition, as `seal_commit_phase2` builds them, beside
    /// the verifier's public inputs. Malformed vanilla proofs may make
    /// synthesis fail or panic: run [`check_vanilla`](Self::check_vanilla)
    /// first on input that was not made by filecoin-proofs' own C1.
    pub fn prepare(&self) -> Result<Partitions, FilecoinError> {
        crate::with_tree!(self.size, prepare_at, self)
    }

    /// filecoin-proofs' own check of the vanilla proofs against the
    /// verifier's view (`StackedDrg::verify_all_partitions`, which C1 runs
    /// on its output but C2 does not repeat): 5 ms at 2 KiB, est. about a
    /// CPU-second at 32 GiB (≈ 36 k Poseidon hashes, spread over cores). A
    /// proof of vanilla proofs it rejects would not verify.
    pub fn check_vanilla(&self) -> Result<(), FilecoinError> {
        crate::with_tree!(self.size, check_vanilla_at, self)
    }

    /// Checks proof bytes (192 per partition, in partition order) against
    /// the verifying key in `cache` and the verifier's public inputs.
    pub fn verify(&self, cache: &ParamCache, proof: &[u8]) -> Result<(), FilecoinError> {
        let id = self.circuit_id();
        let vk = cache.verifying_key(id)?;
        let pvk =
            prepare_verifying_key(&vk).map_err(|source| FilecoinError::Params { path: vk_path(cache, id), source })?;
        crate::proofs::verify(id, &pvk, &self.public_inputs()?, proof)
    }

    /// The public inputs of `verify_seal` as filecoin-proofs types.
    fn verifier_inputs(&self) -> stacked::PublicInputs<PoseidonDomain, Sha256Domain> {
        stacked::PublicInputs {
            replica_id: self.replica_id,
            seed: Some(self.c1.seed),
            tau: Some(Tau { comm_d: self.comm_d, comm_r: self.comm_r }),
            k: None,
        }
    }

    /// The vanilla proofs at tree shape `Tree` (always theirs: `new` checked the variant).
    fn vanilla<Tree: Shape>(&self) -> Result<&[Vec<filecoin_proofs::types::VanillaSealProof<Tree>>], FilecoinError> {
        vanilla::typed::<Tree>(&self.c1.vanilla_proofs).ok_or_else(|| {
            FilecoinError::input("vanilla_proofs", format!("not at the tree shape of {} sectors", self.size))
        })
    }

    fn vanilla_params<Tree: Shape>(&self) -> Result<stacked::PublicParams<Tree>, FilecoinError> {
        public_params::<Tree>(&self.config)
            .map_err(|e| FilecoinError::filecoin(format!("setting up {:?}", self.c1.registered_proof), &e))
    }
}

fn public_inputs_at<Tree: Shape>(req: &PoRepRequest) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
    let pp = req.vanilla_params::<Tree>()?;
    let pub_in = req.verifier_inputs();
    (0..req.partitions()).map(|k| partition_inputs::<Tree>(&pub_in, &pp, k)).collect()
}

fn partition_inputs<Tree: Shape>(
    pub_in: &stacked::PublicInputs<PoseidonDomain, Sha256Domain>,
    pp: &stacked::PublicParams<Tree>,
    k: usize,
) -> Result<Vec<Scalar>, FilecoinError> {
    StackedCompound::<Tree, Sha256Hasher>::generate_public_inputs(pub_in, pp, Some(k))
        .map_err(|e| FilecoinError::filecoin(format!("computing partition {k}'s public inputs"), &e))
}

fn prepare_at<Tree: Shape>(req: &PoRepRequest) -> Result<Partitions, FilecoinError> {
    let pp = req.vanilla_params::<Tree>()?;
    let pub_in = req.verifier_inputs();
    let mut circuits = Vec::with_capacity(req.partitions());
    let mut public_inputs = Vec::with_capacity(req.partitions());
    for (k, proofs) in req.vanilla::<Tree>()?.iter().enumerate() {
        let built = catch_unwind(AssertUnwindSafe(|| PoRepPartition::<Tree>::new(&pub_in, proofs, &pp, k)))
            .map_err(|panic| invalid(req, format!("partition {k} is malformed: {}", panic_message(&*panic))))?;
        let circuit = built.map_err(|e| FilecoinError::filecoin(format!("building partition {k}'s circuit"), &e))?;
        circuits.push(Tree::wrap(ShapeCircuit::PoRepPartition(circuit)));
        public_inputs.push(partition_inputs::<Tree>(&pub_in, &pp, k)?);
    }
    Ok(Partitions { circuit_id: req.circuit_id(), circuits, public_inputs })
}

fn check_vanilla_at<Tree: Shape>(req: &PoRepRequest) -> Result<(), FilecoinError> {
    let pp = req.vanilla_params::<Tree>()?;
    let pub_in = req.verifier_inputs();
    let vanilla = req.vanilla::<Tree>()?;
    let checked = catch_unwind(AssertUnwindSafe(|| {
        StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(&pp, &pub_in, vanilla)
    }))
    .map_err(|panic| invalid(req, format!("they are malformed: {}", panic_message(&*panic))))?;
    match checked {
        Ok(true) => Ok(()),
        Ok(false) => Err(invalid(req, "StackedDrg::verify_all_partitions rejects them".into())),
        Err(e) => Err(invalid(req, format!("{e:#}"))),
    }
}

fn invalid(req: &PoRepRequest, reason: String) -> FilecoinError {
    FilecoinError::InvalidVanilla { circuit: req.circuit_id(), reason }
}

/// What a caught panic said, cut to a line's length.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into());
    match text.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The file the verifying key of `id` is read from, for messages.
fn vk_path(cache: &ParamCache, id: CircuitId) -> std::path::PathBuf {
    cache.files(id).map(|files| files.vk).unwrap_or_else(|_| cache.dir().to_path_buf())
}
