//! WindowPoSt, one partition at a time, as Curio asks for it: the vanilla
//! proofs of one partition's sectors, the randomness, the miner, the
//! partition's index in the deadline and the registered proof. The circuit is
//! the one filecoin-proofs' `generate_single_window_post_with_vanilla` proves;
//! proof bytes of separately proved partitions concatenate (in partition
//! order) into what `verify_window_post` accepts for the whole deadline.

use blstrs::Scalar;
use filecoin_hashers::poseidon::PoseidonDomain;
use filecoin_proofs::{single_partition_vanilla_proofs, FallbackPoStSectorProof, PoStConfig, PoStType};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::gadgets::por::PoRCompound;
use storage_proofs_core::por;
use storage_proofs_core::util::NODE_SIZE;
use storage_proofs_post::fallback::{self, generate_leaf_challenge, get_challenge_index, FallbackPoStCompound};

use crate::post::{self, blank_of, guarded, identifier_of, RegisteredPoStProof};
use crate::{with_tree, CircuitId, FilecoinCircuit, FilecoinError, ParamCache, Partitions, SectorSize, Shape};

/// The most partitions a deadline holds (the miner actor's
/// `MaxPartitionsPerDeadline`); a partition index must be below it.
pub const MAX_PARTITIONS_PER_DEADLINE: usize = 3000;

/// filecoin-proofs' cache identifier of WindowPoSt at `size`.
pub fn cache_identifier(size: SectorSize) -> Result<String, FilecoinError> {
    let cfg = post::window_proof(size).as_v1_config();
    with_tree!(size, identifier_of, &cfg)
}

/// The WindowPoSt partition circuit at `size` with no values.
pub fn blank_circuit(size: SectorSize) -> Result<FilecoinCircuit, FilecoinError> {
    let cfg = post::window_proof(size).as_v1_config();
    with_tree!(size, blank_of, &cfg)
}

/// One WindowPoSt partition to prove.
#[derive(Clone, Debug)]
pub struct WindowPoStRequest {
    /// The registered proof (Curio sends Go's number; see [`post::proof_from_abi`]).
    pub proof: RegisteredPoStProof,
    /// The challenge randomness (a canonical field element).
    pub randomness: [u8; 32],
    /// The miner's actor id (it is not a public input of the PoSt SNARK).
    pub miner_id: u64,
    /// The partition's index in the deadline.
    pub partition_index: usize,
    /// One bincode `FallbackPoStSectorProof` per sector of the partition, in order.
    pub vanilla: Vec<Vec<u8>>,
}

/// A request's inputs decoded and checked for shape, with filecoin-proofs' public inputs.
struct Decoded<Tree: Shape> {
    circuit: CircuitId,
    cfg: PoStConfig,
    pp: fallback::PublicParams,
    pub_in: fallback::PublicInputs<PoseidonDomain>,
    vanilla: Vec<FallbackPoStSectorProof<Tree>>,
}

impl WindowPoStRequest {
    /// The circuit shape, refusing a WinningPoSt proof type.
    pub fn circuit_id(&self) -> Result<CircuitId, FilecoinError> {
        post::circuit_id(self.proof, PoStType::Window)
    }

    /// The partition's circuit and the public inputs the verifier computes
    /// for it, after filecoin-proofs' vanilla checks (exactly one partition).
    pub fn prepare(&self) -> Result<Partitions, FilecoinError> {
        with_tree!(self.circuit_id()?.sector_size, prepare, self)
    }

    /// filecoin-proofs' checks of the vanilla proofs (inclusion paths,
    /// challenges, comm_r = H(comm_c, comm_r_last)) without building the circuit.
    pub fn check_vanilla(&self) -> Result<(), FilecoinError> {
        with_tree!(self.circuit_id()?.sector_size, check_vanilla, self)
    }

    /// The public inputs filecoin-proofs' verifier computes for this partition.
    pub fn public_inputs(&self) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
        with_tree!(self.circuit_id()?.sector_size, public_inputs, self)
    }

    /// Checks `proof` (this partition's 192 bytes) with the verifying key in `cache`.
    pub fn verify(&self, cache: &ParamCache, proof: &[u8]) -> Result<(), FilecoinError> {
        post::verify(cache, self.circuit_id()?, &self.public_inputs()?, proof)
    }
}

fn decode<Tree: Shape>(req: &WindowPoStRequest) -> Result<Decoded<Tree>, FilecoinError> {
    let circuit = req.circuit_id()?;
    let cfg = post::config(req.proof, PoStType::Window)?;
    if req.partition_index >= MAX_PARTITIONS_PER_DEADLINE {
        let reason = format!("{} is not below {MAX_PARTITIONS_PER_DEADLINE} partitions per deadline", req.partition_index);
        return Err(FilecoinError::input("partition_index", reason));
    }
    if req.vanilla.len() > cfg.sector_count {
        let reason = format!("{} sectors, but a {circuit} partition holds at most {}", req.vanilla.len(), cfg.sector_count);
        return Err(FilecoinError::input("vanilla_proofs", reason));
    }
    let vanilla = post::decode_vanilla::<Tree>(&req.vanilla, cfg.challenge_count)?;
    let pub_in = post::prover_inputs(&req.randomness, req.miner_id, &vanilla, Some(req.partition_index))?;
    Ok(Decoded { circuit, pp: post::vanilla_params::<Tree>(&cfg)?, cfg, pub_in, vanilla })
}

/// The partition's vanilla proof padded to `sector_count` sectors, by
/// filecoin-proofs' `single_partition_vanilla_proofs`, which also verifies it.
fn checked<Tree: Shape>(
    req: &WindowPoStRequest,
) -> Result<(Decoded<Tree>, fallback::Proof<Tree::Proof>), FilecoinError> {
    let d = decode::<Tree>(req)?;
    let padded = guarded(|| single_partition_vanilla_proofs(&d.cfg, &d.pp, &d.pub_in, &d.vanilla))
        .map_err(|reason| FilecoinError::InvalidVanilla { circuit: d.circuit, reason })?;
    Ok((d, padded))
}

fn check_vanilla<Tree: Shape>(req: &WindowPoStRequest) -> Result<(), FilecoinError> {
    checked::<Tree>(req).map(drop)
}

fn prepare<Tree: Shape>(req: &WindowPoStRequest) -> Result<Partitions, FilecoinError> {
    let (d, padded) = checked::<Tree>(req)?;
    // Built as `generate_single_window_post_with_vanilla` builds it: the
    // partition's own sectors, as partition 0 of that list.
    let circuit = post::circuit::<Tree>(d.circuit, &d.pub_in, &d.pp, &padded)?;
    Ok(Partitions { circuit_id: d.circuit, circuits: vec![circuit], public_inputs: inputs(&d)? })
}

fn public_inputs<Tree: Shape>(req: &WindowPoStRequest) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
    inputs(&decode::<Tree>(req)?)
}

/// What `verify_window_post` computes for this partition: filecoin-proofs'
/// `generate_public_inputs` over the whole deadline's sector list at
/// partition k. From api 1.2 on a sector's challenges do not depend on its
/// place in that list, so the partition's own list at partition 0 gives the
/// same inputs. Before (api 1.0, Go's WindowPoSt "V1"), sector i of partition
/// k is challenged as sector k·sector_count + i, which needs the sectors
/// before it only for their count: each sector's inputs (comm_r, then each
/// challenged leaf's index) come from filecoin-proofs' own challenge
/// derivation at that global index, short partitions padded with the last
/// sector's inputs as `generate_public_inputs` pads them.
fn inputs<Tree: Shape>(d: &Decoded<Tree>) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
    let k = d.pub_in.k.unwrap_or(0);
    let computed = if d.cfg.api_version == ApiVersion::V1_2_0 || k == 0 {
        guarded(|| FallbackPoStCompound::<Tree>::generate_public_inputs(&d.pub_in, &d.pp, Some(0)))
    } else {
        guarded(|| inputs_at_global_index::<Tree>(d, k))
    };
    let inputs = computed
        .map_err(|message| FilecoinError::Filecoin { during: "computing the WindowPoSt public inputs".into(), message })?;
    Ok(vec![inputs])
}

fn inputs_at_global_index<Tree: Shape>(d: &Decoded<Tree>, k: usize) -> anyhow::Result<Vec<Scalar>> {
    let por_pp = por::PublicParams { leaves: d.pp.sector_size as usize / NODE_SIZE, private: true };
    let mut per_sector = Vec::with_capacity(d.pp.sector_count);
    for (i, sector) in d.pub_in.sectors.iter().enumerate() {
        let mut inputs = vec![Scalar::from(sector.comm_r)];
        for n in 0..d.pp.challenge_count {
            let global = k * d.pp.sector_count + i;
            let index = get_challenge_index(d.pp.api_version, global, d.pp.challenge_count, n);
            let leaf = generate_leaf_challenge(&d.pp, d.pub_in.randomness, u64::from(sector.id), index);
            let por_in = por::PublicInputs { commitment: None, challenge: leaf as usize };
            inputs.extend(PoRCompound::<Tree>::generate_public_inputs(&por_in, &por_pp, None)?);
        }
        per_sector.push(inputs);
    }
    while per_sector.len() < d.pp.sector_count {
        per_sector.push(per_sector.last().cloned().unwrap_or_default());
    }
    Ok(per_sector.concat())
}
