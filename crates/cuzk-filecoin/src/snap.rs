//! SnapDeals (empty sector update, "prove replica update 2"): from the inputs
//! Curio sends (one bincode `PartitionProof` per update partition, the
//! registered update proof, CommR old, CommR new and CommD new as digests or
//! CID bytes) to one `EmptySectorUpdateCircuit` per partition and the public
//! inputs filecoin-proofs' verifier computes, as
//! `generate_empty_sector_update_proof_with_vanilla` and
//! `verify_empty_sector_update_proof` (filecoin-proofs src/api/update.rs) do.
//!
//! The parameter names come from `EmptySectorUpdateCompound`'s own public
//! parameters, not from filecoin-proofs-api: its
//! `RegisteredUpdateProof::circuit_identifier()` returns the PoRep names.
//!
//! filecoin-proofs' update circuit asserts on its witness while it is
//! synthesized (the encoding of each challenged node, the partition path), so
//! a vanilla proof that does not verify would make synthesis panic in the
//! engine: [`SnapRequest::prepare`] therefore checks the proofs' structure
//! and runs filecoin-proofs' vanilla verification before it builds circuits.

use std::panic::{catch_unwind, AssertUnwindSafe};

use bincode::Options;
use blstrs::Scalar;
use filecoin_hashers::Domain;
use filecoin_proofs::SectorUpdateConfig;
use filecoin_proofs_api::RegisteredUpdateProof;
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::merkle::MerkleProofTrait;
use storage_proofs_core::parameter_cache::CacheableParameters;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_update::circuit::ChallengeProof as BlankChallengeProof;
use storage_proofs_update::constants::{TreeDDomain, TreeRDomain};
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs, PublicParams,
    SetupParams,
};

use crate::commitment::{self, CommitmentKind};
use crate::{with_tree, CircuitId, FilecoinCircuit, FilecoinError, ParamCache, Partitions, ProofKind, SectorSize};
use crate::snap_values::SnapPartition;
use crate::{Shape, ShapeCircuit};

/// Largest accepted bincode `PartitionProof`. A real one is an estimated
/// 0.6 MB at 32 and 64 GiB (86 challenges × three Merkle paths, 128 apex
/// leaves) and a few KB at 2 KiB; the limit keeps a hostile length prefix
/// from making the decoder read or allocate without bound.
pub const MAX_PARTITION_PROOF_BYTES: usize = 4 << 20;

/// The registered update proof of Go's `abi.RegisteredUpdateProof` number
/// (what Curio puts in `SubmitProofRequest.registered_proof` for SnapDeals):
/// 0–4 are StackedDrg 2 KiB, 8 MiB, 512 MiB, 32 GiB and 64 GiB V1, mapped one
/// to one by filecoin-ffi's `toFilRegisteredUpdateProof`.
pub fn registered_update_proof(number: u64) -> Result<RegisteredUpdateProof, FilecoinError> {
    Ok(match number {
        0 => RegisteredUpdateProof::StackedDrg2KiBV1,
        1 => RegisteredUpdateProof::StackedDrg8MiBV1,
        2 => RegisteredUpdateProof::StackedDrg512MiBV1,
        3 => RegisteredUpdateProof::StackedDrg32GiBV1,
        4 => RegisteredUpdateProof::StackedDrg64GiBV1,
        _ => {
            return Err(FilecoinError::UnsupportedProof {
                proof: format!("RegisteredUpdateProof({number})"),
                why: "Filecoin registers update proofs 0-4 (StackedDrg 2KiB..64GiB V1)",
            })
        }
    })
}

/// The sector size of a registered update proof.
pub fn sector_size(proof: RegisteredUpdateProof) -> SectorSize {
    match proof {
        RegisteredUpdateProof::StackedDrg2KiBV1 => SectorSize::Kib2,
        RegisteredUpdateProof::StackedDrg8MiBV1 => SectorSize::Mib8,
        RegisteredUpdateProof::StackedDrg512MiBV1 => SectorSize::Mib512,
        RegisteredUpdateProof::StackedDrg32GiBV1 => SectorSize::Gib32,
        RegisteredUpdateProof::StackedDrg64GiBV1 => SectorSize::Gib64,
    }
}

/// The update circuit's public parameters at `size` (every [`SectorSize`] is
/// one storage-proofs-update allows, so this cannot panic).
fn public_params(size: SectorSize) -> PublicParams {
    PublicParams::from_sector_size(size.bytes())
}

/// filecoin-proofs' cache identifier of the update circuit at `size`
/// (`empty-sector-update-<tree>-<sha256 of its public parameters>`).
pub fn cache_identifier(size: SectorSize) -> Result<String, FilecoinError> {
    Ok(with_tree!(size, identifier_of, size))
}

fn identifier_of<Tree: Shape>(size: SectorSize) -> String {
    <EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, _>>::cache_identifier(
        &public_params(size),
    )
}

/// The update circuit at `size` with no values, as filecoin-proofs builds it
/// to generate parameters.
pub fn blank_circuit(size: SectorSize) -> Result<FilecoinCircuit, FilecoinError> {
    Ok(with_tree!(size, blank_of, size))
}

fn blank_of<Tree: Shape>(size: SectorSize) -> FilecoinCircuit {
    Tree::wrap(ShapeCircuit::Snap(EmptySectorUpdateCompound::<Tree>::blank_circuit(&public_params(size))))
}

/// A SnapDeals request: what Curio's `ProveUpdateCuzk` sends, checked.
#[derive(Clone)]
pub struct SnapRequest {
    proof: RegisteredUpdateProof,
    vanilla: Vec<Vec<u8>>,
    comm_r_old: [u8; 32],
    comm_r_new: [u8; 32],
    comm_d_new: [u8; 32],
}

impl SnapRequest {
    /// A request for `proof` with one bincode `PartitionProof` per update
    /// partition (filecoin-proofs-api's `PartitionProofBytes`, in partition
    /// order) and the commitments, each a 32-byte digest or CID bytes. The
    /// commitments and the number of partition proofs are checked here; the
    /// proofs themselves when they are decoded ([`check_vanilla`](Self::check_vanilla),
    /// [`prepare`](Self::prepare)).
    pub fn new(
        proof: RegisteredUpdateProof,
        vanilla: Vec<Vec<u8>>,
        comm_r_old: &[u8],
        comm_r_new: &[u8],
        comm_d_new: &[u8],
    ) -> Result<Self, FilecoinError> {
        let request = SnapRequest {
            proof,
            vanilla,
            comm_r_old: commitment::parse("comm_r_old", CommitmentKind::Sealed, comm_r_old)?,
            comm_r_new: commitment::parse("comm_r_new", CommitmentKind::Sealed, comm_r_new)?,
            comm_d_new: commitment::parse("comm_d_new", CommitmentKind::Unsealed, comm_d_new)?,
        };
        let want = request.partitions();
        if request.vanilla.len() != want {
            return Err(FilecoinError::input(
                "vanilla_proofs",
                format!("{} partition proofs, {} has {want} partitions", request.vanilla.len(), request.circuit_id()),
            ));
        }
        Ok(request)
    }

    /// [`new`](Self::new) with the registered proof as Go's
    /// `abi.RegisteredUpdateProof` number, as Curio sends it.
    pub fn from_curio(
        registered_proof: u64,
        vanilla: Vec<Vec<u8>>,
        comm_r_old: &[u8],
        comm_r_new: &[u8],
        comm_d_new: &[u8],
    ) -> Result<Self, FilecoinError> {
        Self::new(registered_update_proof(registered_proof)?, vanilla, comm_r_old, comm_r_new, comm_d_new)
    }

    /// The registered update proof.
    pub fn proof(&self) -> RegisteredUpdateProof {
        self.proof
    }

    /// The old replica's CommR digest.
    pub fn comm_r_old(&self) -> [u8; 32] {
        self.comm_r_old
    }

    /// The new replica's CommR digest.
    pub fn comm_r_new(&self) -> [u8; 32] {
        self.comm_r_new
    }

    /// The new data's CommD digest.
    pub fn comm_d_new(&self) -> [u8; 32] {
        self.comm_d_new
    }

    /// The circuit shape, which names the parameter file.
    pub fn circuit_id(&self) -> CircuitId {
        CircuitId::new(ProofKind::SnapDeals, sector_size(self.proof))
    }

    /// Update partitions, one proof each: 1, 4, 16, 16, 16 for 2 KiB … 64 GiB.
    pub fn partitions(&self) -> usize {
        usize::from(self.config().update_partitions)
    }

    fn config(&self) -> SectorUpdateConfig {
        SectorUpdateConfig::from_porep_config(&self.proof.as_v1_config())
    }

    /// The verifier's public inputs per partition, as
    /// `verify_empty_sector_update_proof` computes them:
    /// `[k | h_select << log2(partitions), comm_r_old, comm_d_new, comm_r_new]`.
    pub fn public_inputs(&self) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
        let size = sector_size(self.proof);
        with_tree!(size, public_inputs_of, self)
    }

    /// filecoin-proofs' vanilla verification of every partition proof (with
    /// the structural checks that keep its circuit from panicking first).
    pub fn check_vanilla(&self) -> Result<(), FilecoinError> {
        let size = sector_size(self.proof);
        with_tree!(size, check_only, self)
    }

    /// One circuit per partition, in partition order, beside the verifier's
    /// public inputs. Runs [`check_vanilla`](Self::check_vanilla) first.
    pub fn prepare(&self) -> Result<Partitions, FilecoinError> {
        let size = sector_size(self.proof);
        with_tree!(size, prepare_of, self)
    }

    /// Checks `proof` (192 bytes per partition, filecoin-proofs' layout)
    /// against this request's public inputs with the verifying key in `cache`.
    pub fn verify(&self, cache: &ParamCache, proof: &[u8]) -> Result<(), FilecoinError> {
        let id = self.circuit_id();
        let vk = cache.verifying_key(id)?;
        let pvk = cuzk_groth16::prepare_verifying_key(&vk).map_err(|source| {
            let path = cache.files(id).map(|f| f.vk).unwrap_or_default();
            FilecoinError::Params { path, source }
        })?;
        crate::proofs::verify(id, &pvk, &self.public_inputs()?, proof)
    }
}

/// Sizes rather than the partition proofs' bytes (hundreds of KB each), so logs stay readable.
impl std::fmt::Debug for SnapRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = |c: &[u8; 32]| c.iter().map(|b| format!("{b:02x}")).collect::<String>();
        f.debug_struct("SnapRequest")
            .field("proof", &self.proof)
            .field("vanilla_bytes", &self.vanilla.iter().map(Vec::len).collect::<Vec<_>>())
            .field("comm_r_old", &hex(&self.comm_r_old))
            .field("comm_r_new", &hex(&self.comm_r_new))
            .field("comm_d_new", &hex(&self.comm_d_new))
            .finish()
    }
}

/// What filecoin-proofs builds from a request before proving or verifying.
struct Setup {
    pp: PublicParams,
    pub_in: PublicInputs,
}

impl Setup {
    fn new<Tree: Shape>(request: &SnapRequest) -> Result<Setup, FilecoinError> {
        let config = request.config();
        let partitions = usize::from(config.update_partitions);
        let compound = EmptySectorUpdateCompound::<Tree>::setup(&compound_proof::SetupParams {
            vanilla_params: SetupParams { sector_bytes: u64::from(config.sector_size) },
            partitions: Some(partitions),
            priority: false,
        })
        .map_err(|e| FilecoinError::filecoin("setting up the update proof", &e))?;
        let domain_err = |e| FilecoinError::filecoin("reading the commitments", &e);
        let pub_in = PublicInputs {
            k: partitions,
            comm_r_old: TreeRDomain::try_from_bytes(&request.comm_r_old).map_err(domain_err)?,
            comm_d_new: TreeDDomain::try_from_bytes(&request.comm_d_new).map_err(domain_err)?,
            comm_r_new: TreeRDomain::try_from_bytes(&request.comm_r_new).map_err(domain_err)?,
            h: config.h,
        };
        Ok(Setup { pp: compound.vanilla_params, pub_in })
    }

    fn public_inputs<Tree: Shape>(&self, k: usize) -> Result<Vec<Scalar>, FilecoinError> {
        EmptySectorUpdateCompound::<Tree>::generate_public_inputs(&self.pub_in, &self.pp, Some(k))
            .map_err(|e| FilecoinError::filecoin(format!("computing partition {k}'s public inputs"), &e))
    }
}

fn public_inputs_of<Tree: Shape>(request: &SnapRequest) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
    let setup = Setup::new::<Tree>(request)?;
    (0..request.partitions()).map(|k| setup.public_inputs::<Tree>(k)).collect()
}

fn check_only<Tree: Shape>(request: &SnapRequest) -> Result<(), FilecoinError> {
    check_vanilla_of::<Tree>(request).map(drop)
}

/// Decodes, checks and vanilla-verifies the partition proofs.
fn check_vanilla_of<Tree: Shape>(request: &SnapRequest) -> Result<(Setup, Vec<PartitionProof<Tree>>), FilecoinError> {
    let setup = Setup::new::<Tree>(request)?;
    let proofs = request
        .vanilla
        .iter()
        .enumerate()
        .map(|(k, bytes)| decode::<Tree>(&format!("vanilla_proofs[{k}]"), &setup.pp, bytes))
        .collect::<Result<Vec<_>, _>>()?;
    let circuit = request.circuit_id();
    for (k, proof) in proofs.iter().enumerate() {
        let pub_in = EmptySectorUpdate::<Tree>::with_partition(setup.pub_in.clone(), Some(k));
        let invalid =
            |reason: String| FilecoinError::InvalidVanilla { circuit, reason: format!("partition {k}: {reason}") };
        match catch_unwind(AssertUnwindSafe(|| EmptySectorUpdate::<Tree>::verify(&setup.pp, &pub_in, proof))) {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => {
                let what = "its Merkle paths, encoding or apex leaves do not match the commitments";
                return Err(invalid(what.into()));
            }
            Ok(Err(e)) => return Err(invalid(format!("{e:#}"))),
            Err(panic) => return Err(invalid(format!("filecoin-proofs panicked: {}", panic_message(&*panic)))),
        }
    }
    Ok((setup, proofs))
}

fn prepare_of<Tree: Shape>(request: &SnapRequest) -> Result<Partitions, FilecoinError> {
    let (setup, proofs) = check_vanilla_of::<Tree>(request)?;
    let mut circuits = Vec::with_capacity(proofs.len());
    let mut public_inputs = Vec::with_capacity(proofs.len());
    for (k, proof) in proofs.iter().enumerate() {
        let during = || format!("building partition {k}'s circuit");
        let built = catch_unwind(AssertUnwindSafe(|| {
            EmptySectorUpdateCompound::<Tree>::circuit(&setup.pub_in, (), proof, &setup.pp, Some(k))
        }))
        .map_err(|panic| FilecoinError::Filecoin { during: during(), message: panic_message(&*panic) })?
        .map_err(|e| FilecoinError::filecoin(during(), &e))?;
        circuits.push(Tree::wrap(ShapeCircuit::SnapPartition(SnapPartition::new(built))));
        public_inputs.push(setup.public_inputs::<Tree>(k)?);
    }
    Ok(Partitions { circuit_id: request.circuit_id(), circuits, public_inputs })
}

/// One partition proof from its bincode bytes (bincode 1.x, fixed-width
/// integers, as filecoin-proofs-api writes it), with its structure checked.
fn decode<Tree: Shape>(field: &str, pp: &PublicParams, bytes: &[u8]) -> Result<PartitionProof<Tree>, FilecoinError> {
    if bytes.len() > MAX_PARTITION_PROOF_BYTES {
        return Err(FilecoinError::input(
            field,
            format!("{} bytes, more than the {MAX_PARTITION_PROOF_BYTES} any partition proof needs", bytes.len()),
        ));
    }
    let proof: PartitionProof<Tree> = bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_limit(MAX_PARTITION_PROOF_BYTES as u64)
        .reject_trailing_bytes()
        .deserialize(bytes)
        .map_err(|e| FilecoinError::input(field, format!("not a bincode PartitionProof: {e}")))?;
    check_structure(field, pp, &proof)?;
    Ok(proof)
}

/// What filecoin-proofs' update circuit asserts about its witness beyond the
/// vanilla checks: as many apex leaves and challenges as the sector size
/// has, every Merkle path the shape of the blank circuit's, and one
/// partition path (the top of the TreeD path) shared by all challenges.
fn check_structure<Tree: Shape>(
    field: &str,
    pp: &PublicParams,
    proof: &PartitionProof<Tree>,
) -> Result<(), FilecoinError> {
    let err = |reason: String| FilecoinError::input(field, reason);
    if proof.apex_leafs.len() != pp.apex_leaf_count {
        return Err(err(format!("{} apex leaves, expected {}", proof.apex_leafs.len(), pp.apex_leaf_count)));
    }
    if proof.challenge_proofs.len() != pp.challenge_count {
        return Err(err(format!("{} challenge proofs, expected {}", proof.challenge_proofs.len(), pp.challenge_count)));
    }
    let blank = BlankChallengeProof::<Tree>::empty(pp.sector_nodes);
    let widths = |path: &[Vec<Option<Scalar>>]| path.iter().map(Vec::len).collect::<Vec<_>>();
    let (want_r, want_d) = (widths(&blank.path_r_old), widths(&blank.path_d_new));
    let top = pp.challenge_bit_len - pp.partition_bit_len;
    let mut partition_path = None;
    for (i, c) in proof.challenge_proofs.iter().enumerate() {
        let d_path = c.proof_d_new.path();
        for (name, got, want) in [
            ("proof_r_old", path_widths(&c.proof_r_old.path()), &want_r),
            ("proof_d_new", path_widths(&d_path), &want_d),
            ("proof_r_new", path_widths(&c.proof_r_new.path()), &want_r),
        ] {
            if got != *want {
                return Err(err(format!("challenge {i}: {name}'s path has level widths {got:?}, expected {want:?}")));
            }
        }
        let this: Vec<_> = d_path[top..].iter().map(|(siblings, _)| siblings.clone()).collect();
        match &partition_path {
            None => partition_path = Some(this),
            Some(first) if *first != this => {
                return Err(err(format!("challenge {i}: its TreeD path above the partition is not challenge 0's")));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The number of siblings at each level of a Merkle path.
fn path_widths<D>(path: &[(Vec<D>, usize)]) -> Vec<usize> {
    path.iter().map(|(siblings, _)| siblings.len()).collect()
}

/// The message of a caught panic.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}
