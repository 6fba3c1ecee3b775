//! WinningPoSt as Curio asks for it: the vanilla proof of the one challenged
//! sector (66 inclusion proofs), the randomness, the miner and the registered
//! proof. The circuit is the one filecoin-proofs'
//! `generate_winning_post_with_vanilla` proves: 66 one-challenge "sectors",
//! all the same sector.

use blstrs::Scalar;
use filecoin_hashers::poseidon::PoseidonDomain;
use filecoin_proofs::{partition_vanilla_proofs, FallbackPoStSectorProof, PoStConfig, PoStType};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCompound};

use crate::post::{self, blank_of, guarded, identifier_of, RegisteredPoStProof};
use crate::{with_tree, CircuitId, FilecoinCircuit, FilecoinError, ParamCache, Partitions, SectorSize, Shape};

/// filecoin-proofs' cache identifier of WinningPoSt at `size`.
pub fn cache_identifier(size: SectorSize) -> Result<String, FilecoinError> {
    let cfg = post::winning_proof(size).as_v1_config();
    with_tree!(size, identifier_of, &cfg)
}

/// The WinningPoSt circuit at `size` with no values.
pub fn blank_circuit(size: SectorSize) -> Result<FilecoinCircuit, FilecoinError> {
    let cfg = post::winning_proof(size).as_v1_config();
    with_tree!(size, blank_of, &cfg)
}

/// One WinningPoSt to prove.
#[derive(Clone, Debug)]
pub struct WinningPoStRequest {
    /// The registered proof (Curio sends Go's number; see [`post::proof_from_abi`]).
    pub proof: RegisteredPoStProof,
    /// The challenge randomness (a canonical field element).
    pub randomness: [u8; 32],
    /// The miner's actor id (it is not a public input of the PoSt SNARK).
    pub miner_id: u64,
    /// The bincode `FallbackPoStSectorProof` of the challenged sector (exactly one).
    pub vanilla: Vec<Vec<u8>>,
}

/// A request's inputs decoded and checked for shape.
struct Decoded<Tree: Shape> {
    circuit: CircuitId,
    cfg: PoStConfig,
    pp: fallback::PublicParams,
    /// The prover's public inputs: the one sector.
    pub_in: fallback::PublicInputs<PoseidonDomain>,
    /// The verifier's: the sector repeated once per challenge, partition 0.
    verifier_in: fallback::PublicInputs<PoseidonDomain>,
    vanilla: Vec<FallbackPoStSectorProof<Tree>>,
}

impl WinningPoStRequest {
    /// The circuit shape, refusing a WindowPoSt proof type.
    pub fn circuit_id(&self) -> Result<CircuitId, FilecoinError> {
        post::circuit_id(self.proof, PoStType::Winning)
    }

    /// The circuit and the public inputs the verifier computes, after the
    /// vanilla checks (one partition).
    pub fn prepare(&self) -> Result<Partitions, FilecoinError> {
        with_tree!(self.circuit_id()?.sector_size, prepare, self)
    }

    /// filecoin-proofs' vanilla checks, then every one of the 66 inclusion
    /// proofs against its challenge, without building the circuit.
    pub fn check_vanilla(&self) -> Result<(), FilecoinError> {
        with_tree!(self.circuit_id()?.sector_size, check_vanilla, self)
    }

    /// The public inputs filecoin-proofs' verifier computes.
    pub fn public_inputs(&self) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
        with_tree!(self.circuit_id()?.sector_size, public_inputs, self)
    }

    /// Checks `proof` (192 bytes) with the verifying key in `cache`.
    pub fn verify(&self, cache: &ParamCache, proof: &[u8]) -> Result<(), FilecoinError> {
        post::verify(cache, self.circuit_id()?, &self.public_inputs()?, proof)
    }
}

fn decode<Tree: Shape>(req: &WinningPoStRequest) -> Result<Decoded<Tree>, FilecoinError> {
    let circuit = req.circuit_id()?;
    let cfg = post::config(req.proof, PoStType::Winning)?;
    if req.vanilla.len() > cfg.sector_count {
        let reason = format!("{} sector proofs, but WinningPoSt proves exactly {}", req.vanilla.len(), cfg.sector_count);
        return Err(FilecoinError::input("vanilla_proofs", reason));
    }
    let vanilla = post::decode_vanilla::<Tree>(&req.vanilla, cfg.challenge_count)?;
    let pub_in = post::prover_inputs(&req.randomness, req.miner_id, &vanilla, None)?;
    let pp = post::vanilla_params::<Tree>(&cfg)?;
    // As `verify_winning_post` lists them: the sector once per one-challenge slot.
    let sectors = pub_in.sectors.iter().cycle().take(pp.sector_count).cloned().collect();
    let verifier_in = fallback::PublicInputs { sectors, k: Some(0), ..pub_in.clone() };
    Ok(Decoded { circuit, cfg, pp, pub_in, verifier_in, vanilla })
}

/// The vanilla proof unrolled into 66 one-challenge sector proofs by
/// filecoin-proofs' `partition_vanilla_proofs`, which checks it as
/// `generate_winning_post_with_vanilla` does. That check zips the prover's
/// one-sector list with the 66 entries and so looks at the first challenge
/// only; all 66 are then checked against the verifier's list, as the SNARK's
/// public inputs will hold them.
fn checked<Tree: Shape>(
    req: &WinningPoStRequest,
) -> Result<(Decoded<Tree>, fallback::Proof<Tree::Proof>), FilecoinError> {
    let d = decode::<Tree>(req)?;
    let invalid = |reason| FilecoinError::InvalidVanilla { circuit: d.circuit, reason };
    let unrolled = guarded(|| {
        let mut parts = partition_vanilla_proofs(&d.cfg, &d.pp, &d.pub_in, 1, &d.vanilla)?;
        anyhow::ensure!(parts.len() == 1, "{} partitions, expected 1", parts.len());
        Ok(parts.remove(0))
    })
    .map_err(invalid)?;
    let all_valid = guarded(|| FallbackPoSt::<Tree>::verify(&d.pp, &d.verifier_in, &unrolled)).map_err(invalid)?;
    if !all_valid {
        return Err(invalid("an inclusion proof does not prove its challenge in comm_r".into()));
    }
    Ok((d, unrolled))
}

fn check_vanilla<Tree: Shape>(req: &WinningPoStRequest) -> Result<(), FilecoinError> {
    checked::<Tree>(req).map(drop)
}

fn prepare<Tree: Shape>(req: &WinningPoStRequest) -> Result<Partitions, FilecoinError> {
    let (d, unrolled) = checked::<Tree>(req)?;
    let circuit = post::circuit::<Tree>(d.circuit, &d.pub_in, &d.pp, &unrolled)?;
    Ok(Partitions { circuit_id: d.circuit, circuits: vec![circuit], public_inputs: inputs(&d)? })
}

fn public_inputs<Tree: Shape>(req: &WinningPoStRequest) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
    inputs(&decode::<Tree>(req)?)
}

/// `generate_public_inputs` over the verifier's 66-entry list (over the
/// prover's one-entry list it would repeat challenge 0's inputs 66 times).
fn inputs<Tree: Shape>(d: &Decoded<Tree>) -> Result<Vec<Vec<Scalar>>, FilecoinError> {
    let inputs = guarded(|| FallbackPoStCompound::<Tree>::generate_public_inputs(&d.verifier_in, &d.pp, Some(0)))
        .map_err(|message| FilecoinError::Filecoin { during: "computing the WinningPoSt public inputs".into(), message })?;
    Ok(vec![inputs])
}
