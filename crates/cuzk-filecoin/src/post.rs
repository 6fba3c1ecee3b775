//! What WindowPoSt and WinningPoSt share: the registered proof (as
//! filecoin-proofs-api names it or as Go's `abi.RegisteredPoStProof` numbers
//! it), the PoSt config and public parameters of a proof type, Curio's vanilla
//! proofs decoded and checked for shape, and verification.
//!
//! Both kinds are filecoin-proofs' `FallbackPoStCompound`; they differ only in
//! setup parameters (WindowPoSt: 10 challenges per sector, `sector_count`
//! sectors per partition; WinningPoSt: one sector challenged 66 times, laid
//! out as 66 one-challenge sectors) and in how the vanilla proofs are padded.

use std::panic::{catch_unwind, AssertUnwindSafe};

use bincode::Options;
use blstrs::Scalar;
use cuzk_groth16::prepare_verifying_key;
use ff::PrimeField;
use filecoin_hashers::poseidon::PoseidonDomain;
use filecoin_proofs::parameters::{window_post_public_params, winning_post_public_params};
use filecoin_proofs::{as_safe_commitment, FallbackPoStSectorProof, PoStConfig, PoStType};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::MerkleProofTrait;
use storage_proofs_post::fallback::{self, FallbackPoStCompound, PublicSector};

pub use filecoin_proofs_api::RegisteredPoStProof;

use crate::{CircuitId, FilecoinCircuit, FilecoinError, ParamCache, ProofKind, SectorSize, Shape, ShapeCircuit};
use crate::post_values::PoStPartition;

/// filecoin-proofs-api's PoSt proof types in the order of their numbers.
/// Go's `abi.RegisteredPoStProof` (go-state-types) and the FFI use the same
/// numbers: Winning 2 KiB … 64 GiB = 0–4, Window V1 = 5–9, Window V1_1 = 10–14.
/// Go's "V1_1" WindowPoSt is filecoin-proofs-api's `…V1_2` (api version
/// 1.2.0, the grindability fix), as filecoin-ffi and Curio's cuzk map it.
const BY_ABI_NUMBER: [RegisteredPoStProof; 15] = {
    use RegisteredPoStProof::*;
    [
        StackedDrgWinning2KiBV1,
        StackedDrgWinning8MiBV1,
        StackedDrgWinning512MiBV1,
        StackedDrgWinning32GiBV1,
        StackedDrgWinning64GiBV1,
        StackedDrgWindow2KiBV1,
        StackedDrgWindow8MiBV1,
        StackedDrgWindow512MiBV1,
        StackedDrgWindow32GiBV1,
        StackedDrgWindow64GiBV1,
        StackedDrgWindow2KiBV1_2,
        StackedDrgWindow8MiBV1_2,
        StackedDrgWindow512MiBV1_2,
        StackedDrgWindow32GiBV1_2,
        StackedDrgWindow64GiBV1_2,
    ]
};

/// The PoSt proof type that Go's `abi.RegisteredPoStProof` number `n` stands for.
pub fn proof_from_abi(n: i64) -> Result<RegisteredPoStProof, FilecoinError> {
    usize::try_from(n).ok().and_then(|i| BY_ABI_NUMBER.get(i).copied()).ok_or_else(|| {
        FilecoinError::UnsupportedProof {
            proof: format!("abi.RegisteredPoStProof({n})"),
            why: "not a PoSt proof number (0-4 WinningPoSt, 5-9 WindowPoSt V1, 10-14 WindowPoSt V1_1)",
        }
    })
}

/// Go's `abi.RegisteredPoStProof` number of `proof`.
pub fn abi_number(proof: RegisteredPoStProof) -> i64 {
    // The table holds every variant (a test walks them), so -1 never shows.
    BY_ABI_NUMBER.iter().position(|&p| p == proof).map_or(-1, |i| i as i64)
}

/// The WindowPoSt proof type Curio sends for `size` (api V1_2).
pub(crate) fn window_proof(size: SectorSize) -> RegisteredPoStProof {
    BY_ABI_NUMBER[10 + size_index(size)]
}

/// The WinningPoSt proof type of `size`.
pub(crate) fn winning_proof(size: SectorSize) -> RegisteredPoStProof {
    BY_ABI_NUMBER[size_index(size)]
}

fn size_index(size: SectorSize) -> usize {
    match size {
        SectorSize::Kib2 => 0,
        SectorSize::Mib8 => 1,
        SectorSize::Mib512 => 2,
        SectorSize::Gib32 => 3,
        SectorSize::Gib64 => 4,
    }
}

/// The sector size of `proof`.
pub(crate) fn sector_size(proof: RegisteredPoStProof) -> Result<SectorSize, FilecoinError> {
    Ok(SectorSize::from_bytes(u64::from(proof.sector_size()))?)
}

/// filecoin-proofs' config of `proof`, refusing a proof type of the other PoSt kind.
pub(crate) fn config(proof: RegisteredPoStProof, typ: PoStType) -> Result<PoStConfig, FilecoinError> {
    if proof.typ() != typ {
        let why = match typ {
            PoStType::Window => "a WinningPoSt proof type in a WindowPoSt request",
            PoStType::Winning => "a WindowPoSt proof type in a WinningPoSt request",
        };
        return Err(FilecoinError::UnsupportedProof { proof: format!("{proof:?}"), why });
    }
    Ok(proof.as_v1_config())
}

/// The circuit shape of a `typ` request for `proof`, refusing a proof type of the other PoSt kind.
pub(crate) fn circuit_id(proof: RegisteredPoStProof, typ: PoStType) -> Result<CircuitId, FilecoinError> {
    let kind = match typ {
        PoStType::Window => ProofKind::WindowPoSt,
        PoStType::Winning => ProofKind::WinningPoSt,
    };
    config(proof, typ)?;
    Ok(CircuitId::new(kind, sector_size(proof)?))
}

/// The vanilla public parameters of `cfg`, as filecoin-proofs' PoSt functions
/// set them up (`window_post_setup_params` / `winning_post_setup_params`).
pub(crate) fn vanilla_params<Tree: Shape>(cfg: &PoStConfig) -> Result<fallback::PublicParams, FilecoinError> {
    let pp = match cfg.typ {
        PoStType::Window => window_post_public_params::<Tree>(cfg),
        PoStType::Winning => winning_post_public_params::<Tree>(cfg),
    };
    pp.map_err(|e| FilecoinError::filecoin("setting up the PoSt parameters", &e))
}

/// filecoin-proofs' parameter-set identifier of `cfg`.
pub(crate) fn identifier_of<Tree: Shape>(cfg: &PoStConfig) -> Result<String, FilecoinError> {
    cfg.get_cache_identifier::<Tree>().map_err(|e| FilecoinError::filecoin("naming the PoSt parameters", &e))
}

/// filecoin-proofs' blank circuit of `cfg`.
pub(crate) fn blank_of<Tree: Shape>(cfg: &PoStConfig) -> Result<FilecoinCircuit, FilecoinError> {
    let pp = vanilla_params::<Tree>(cfg)?;
    Ok(Tree::wrap(ShapeCircuit::PoSt(<FallbackPoStCompound<Tree> as CompoundProof<_, _>>::blank_circuit(&pp))))
}

/// `bytes` as a field element (randomness, prover id), refusing non-canonical encodings.
pub(crate) fn domain(bytes: &[u8; 32], field: &str) -> Result<PoseidonDomain, FilecoinError> {
    as_safe_commitment(bytes, field).map_err(|e| FilecoinError::input(field, format!("{e:#}")))
}

/// Curio's vanilla proofs decoded: bincode 1.x as filecoin-proofs-api writes
/// them (fixed-width integers), bounded by each input's length so a hostile
/// length prefix cannot allocate more than that. Bytes after the proof are
/// refused: filecoin-proofs' own decoding ignores them, so junk appended to
/// a valid proof went unnoticed.
/// Each must hold one sector proof with `challenges` inclusion proofs whose
/// every commitment, leaf and path hash is a canonical field element
/// (filecoin-proofs panics on any other).
pub(crate) fn decode_vanilla<Tree: Shape>(
    vanilla: &[Vec<u8>],
    challenges: usize,
) -> Result<Vec<FallbackPoStSectorProof<Tree>>, FilecoinError> {
    if vanilla.is_empty() {
        return Err(FilecoinError::input("vanilla_proofs", "no sector proofs"));
    }
    vanilla
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let field = format!("vanilla_proofs[{i}]");
            let proof: FallbackPoStSectorProof<Tree> = bincode::DefaultOptions::new()
                .with_fixint_encoding()
                .reject_trailing_bytes()
                .with_limit(bytes.len() as u64)
                .deserialize(bytes)
                .map_err(|e| FilecoinError::input(&field, format!("not a bincode FallbackPoStSectorProof: {e}")))?;
            check_shape(&proof, challenges).map_err(|reason| FilecoinError::input(&field, reason))?;
            Ok(proof)
        })
        .collect()
}

fn check_shape<Tree: Shape>(proof: &FallbackPoStSectorProof<Tree>, challenges: usize) -> Result<(), String> {
    let [sector] = proof.vanilla_proof.sectors.as_slice() else {
        return Err(format!("{} sector proofs, expected 1", proof.vanilla_proof.sectors.len()));
    };
    if sector.inclusion_proofs.len() != challenges {
        return Err(format!("{} inclusion proofs, expected {challenges}", sector.inclusion_proofs.len()));
    }
    canonical(&proof.comm_r, "comm_r")?;
    canonical(&sector.comm_c, "comm_c")?;
    canonical(&sector.comm_r_last, "comm_r_last")?;
    for (n, p) in sector.inclusion_proofs.iter().enumerate() {
        let what = format!("inclusion proof {n}");
        canonical(&p.leaf(), &what)?;
        canonical(&p.root(), &what)?;
        p.path().iter().flat_map(|(hashes, _)| hashes).try_for_each(|h| canonical(h, &what))?;
    }
    Ok(())
}

fn canonical(d: &PoseidonDomain, what: &str) -> Result<(), String> {
    let mut repr = [0u8; 32];
    repr.copy_from_slice(d.as_ref());
    match Option::<Scalar>::from(Scalar::from_repr(repr)) {
        Some(_) => Ok(()),
        None => Err(format!("{what} holds a value that is not a field element")),
    }
}

/// The prover's public inputs of a request's decoded vanilla proofs: the
/// randomness and the miner's prover id as field elements, the sectors the
/// proofs are for, in order, and partition `k`.
pub(crate) fn prover_inputs<Tree: Shape>(
    randomness: &[u8; 32],
    miner_id: u64,
    vanilla: &[FallbackPoStSectorProof<Tree>],
    k: Option<usize>,
) -> Result<fallback::PublicInputs<PoseidonDomain>, FilecoinError> {
    Ok(fallback::PublicInputs {
        randomness: domain(randomness, "randomness")?,
        prover_id: domain(&crate::prover_id(miner_id), "prover_id")?,
        sectors: vanilla.iter().map(|p| PublicSector { id: p.sector_id, comm_r: p.comm_r }).collect(),
        k,
    })
}

/// filecoin-proofs' circuit of `circuit_id` over the checked vanilla proof
/// `proof`, built as partition 0 of `pub_in`'s sectors (both kinds prove
/// exactly one partition per request).
pub(crate) fn circuit<Tree: Shape>(
    circuit_id: CircuitId,
    pub_in: &fallback::PublicInputs<PoseidonDomain>,
    pp: &fallback::PublicParams,
    proof: &fallback::Proof<Tree::Proof>,
) -> Result<FilecoinCircuit, FilecoinError> {
    let circuit = guarded(|| FallbackPoStCompound::<Tree>::circuit(pub_in, Default::default(), proof, pp, Some(0)))
        .map_err(|message| FilecoinError::Filecoin { during: format!("building the {:?} circuit", circuit_id.kind), message })?;
    Ok(Tree::wrap(ShapeCircuit::PoStPartition(PoStPartition::new(circuit, proof))))
}

/// Runs a filecoin-proofs call on request data, turning both its error and
/// any panic (its functions `expect` on data they assume well formed) into a message.
pub(crate) fn guarded<T>(f: impl FnOnce() -> anyhow::Result<T>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(|e| format!("{e:#}")),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            Err(format!("filecoin-proofs panicked: {message}"))
        }
    }
}

/// Checks `proof` (192 bytes per partition) against the verifier's public
/// inputs with the verifying key of `circuit` from `cache`.
pub(crate) fn verify(
    cache: &ParamCache,
    circuit: CircuitId,
    public_inputs: &[Vec<Scalar>],
    proof: &[u8],
) -> Result<(), FilecoinError> {
    let vk = cache.verifying_key(circuit)?;
    let pvk = prepare_verifying_key(&vk).map_err(|source| FilecoinError::Params {
        path: cache.files(circuit).map(|f| f.vk).unwrap_or_else(|_| cache.dir().to_path_buf()),
        source,
    })?;
    crate::proofs::verify(circuit, &pvk, public_inputs, proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_numbers_round_trip_and_match_the_api() {
        for (n, &proof) in BY_ABI_NUMBER.iter().enumerate() {
            assert_eq!(proof_from_abi(n as i64).unwrap(), proof);
            assert_eq!(abi_number(proof), n as i64);
        }
        use RegisteredPoStProof::*;
        assert_eq!(proof_from_abi(0).unwrap(), StackedDrgWinning2KiBV1);
        assert_eq!(proof_from_abi(8).unwrap(), StackedDrgWindow32GiBV1);
        assert_eq!(proof_from_abi(13).unwrap(), StackedDrgWindow32GiBV1_2);
        for bad in [-1, 15, 19, i64::MAX] {
            let err = proof_from_abi(bad).unwrap_err();
            assert!(matches!(err, FilecoinError::UnsupportedProof { .. }), "{err}");
        }
        for size in SectorSize::ALL {
            assert_eq!(sector_size(window_proof(size)).unwrap(), size);
            assert_eq!(sector_size(winning_proof(size)).unwrap(), size);
            assert_eq!(window_proof(size).typ(), PoStType::Window);
            assert_eq!(winning_proof(size).typ(), PoStType::Winning);
        }
    }
}
