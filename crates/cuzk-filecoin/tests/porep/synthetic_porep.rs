//! Synthetic PoRep (FIP-0059) C2 at 2 KiB against filecoin-proofs itself: a
//! sector sealed by filecoin-proofs-api with `StackedDrg2KiBV1_1_Feat_SyntheticPoRep`
//! (add piece, PC1, PC2, its synthetic proofs, the layers cleared, C1),
//! proved by cuzk on the CPU and checked by `verify_seal` with the synthetic
//! proof; filecoin-proofs' own C2 of the same C1 checked by cuzk; its
//! witness in parts; and the C1 under another proof type refused.

use std::sync::OnceLock;
use std::time::Instant;

use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::{proofs, prover_id, reference, FilecoinError};
use cuzk_groth16::{Parameters, PointChecks};
use filecoin_proofs_api::seal;
use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::sha256::Sha256Domain;
use filecoin_proofs_api::{RegisteredSealProof, SectorId};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_porep::stacked::generate_replica_id;

use super::{
    common, curio_wrapper, input_field, seal_2kib_with, secs, Sealed, MINER, POREP_2K, PROOF as INTERACTIVE, SECTOR,
};

/// The seal proof of the sector here.
pub const PROOF: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep;

/// The Synthetic PoRep sector, sealed once.
fn sealed() -> &'static Sealed {
    static SEALED: OnceLock<Sealed> = OnceLock::new();
    SEALED.get_or_init(|| {
        common::init_filecoin_env();
        let started = Instant::now();
        let sealed = seal_2kib_with(PROOF, 0x5717);
        eprintln!(
            "sealed 2 KiB Synthetic PoRep (add piece, PC1, PC2, synthetic proofs, C1) in {:.2} s",
            secs(started)
        );
        sealed
    })
}

#[test]
fn synthetic_porep_2kib_end_to_end() {
    let cache = common::test_params(POREP_2K);
    let sealed = sealed();
    let c1 = &sealed.c1;
    assert_eq!(c1.registered_proof, PROOF);

    let req = PoRepRequest::from_curio_wrapper(&sealed.wrapper, MINER).unwrap();
    assert_eq!((req.registered_proof(), req.sector_number(), req.partitions()), (PROOF, SECTOR, 1));
    assert_eq!(req.circuit_id(), POREP_2K, "V1_1's circuit and parameters");
    let raw = PoRepRequest::from_c1_json(&sealed.c1_json, SECTOR, MINER).unwrap();
    req.check_vanilla().unwrap();

    // The verifier's public inputs are filecoin-proofs' own for the synthetic
    // proof, and not the interactive ones: the seed picks among the
    // synthetic challenges.
    let prepared = req.prepare().unwrap();
    let (prover, sector) = (prover_id(MINER), SectorId::from(SECTOR));
    let inputs = |proof| seal::get_seal_inputs(proof, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed);
    let expected = inputs(PROOF).unwrap();
    assert_eq!(prepared.public_inputs, expected);
    assert_eq!(raw.public_inputs().unwrap(), expected);
    assert_ne!(inputs(INTERACTIVE).unwrap(), expected);

    let params = Parameters::read(&cache.files(POREP_2K).unwrap().params, PointChecks::None).unwrap();
    let started = Instant::now();
    let mut rng = ChaCha20Rng::seed_from_u64(0x5c2);
    let bytes = proofs::join(&cuzk_groth16::create_random_proofs(prepared.circuits, &params, &mut rng).unwrap());
    eprintln!("cuzk Synthetic PoRep C2 on the CPU (synthesis and proof) in {:.1} s", secs(started));
    drop(params);
    assert_eq!(bytes.len(), 192);

    let verify_seal = |proof, bytes: &[u8]| {
        seal::verify_seal(proof, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed, bytes).unwrap()
    };
    assert!(verify_seal(PROOF, &bytes), "filecoin-proofs refuses cuzk's Synthetic PoRep proof");
    assert!(!verify_seal(INTERACTIVE, &bytes), "the interactive verifier accepts a Synthetic PoRep proof");
    assert!(reference::porep(&req, &bytes).unwrap());
    req.verify(&cache, &bytes).unwrap();
    raw.verify(&cache, &bytes).unwrap();

    // filecoin-proofs' own C2 of the same C1 verifies under cuzk.
    let started = Instant::now();
    let theirs = seal::seal_commit_phase2(c1.clone(), prover, sector).unwrap();
    eprintln!("filecoin-proofs Synthetic PoRep seal_commit_phase2 in {:.1} s", secs(started));
    assert!(verify_seal(PROOF, &theirs.proof));
    req.verify(&cache, &theirs.proof).unwrap();
}

/// The partition circuit, cut into parts by challenge, gives the whole
/// witness: the cut takes nothing of interactive challenges.
#[test]
fn synthetic_porep_witness_in_parts_is_the_whole_witness() {
    let req = PoRepRequest::from_c1_json(&sealed().c1_json, SECTOR, MINER).unwrap();
    common::check_witness_in_parts(|| req.prepare().unwrap().circuits.remove(0), 2, cuzk_synth::WitnessPass::Replay);
}

#[test]
fn synthetic_porep_under_another_proof_type_is_refused() {
    let sealed = sealed();
    let relabelled = |proof, replica_id: Option<PoseidonDomain>| {
        let mut c1 = sealed.c1.clone();
        c1.registered_proof = proof;
        c1.replica_id = replica_id.unwrap_or(c1.replica_id);
        serde_json::to_vec(&c1).unwrap()
    };

    // As V1_1: the replica id hashes the porep id, which names the proof type.
    let err = PoRepRequest::from_c1_json(&relabelled(INTERACTIVE, None), SECTOR, MINER).unwrap_err();
    assert!(matches!(err, FilecoinError::ReplicaIdMismatch { miner_id: MINER, sector_number: SECTOR }), "{err}");
    // With V1_1's replica id as well, the vanilla proofs are not of V1_1's
    // challenges (nor of its replica id).
    let c1 = &sealed.c1;
    let comm_d: Sha256Domain = filecoin_proofs::as_safe_commitment(&c1.comm_d, "comm_d").unwrap();
    let porep_id = INTERACTIVE.as_v1_config().porep_id;
    let v1_1_id = generate_replica_id::<PoseidonHasher, _>(&prover_id(MINER), SECTOR, &c1.ticket, comm_d, &porep_id);
    assert_ne!(v1_1_id, c1.replica_id);
    let req = PoRepRequest::from_c1_json(&relabelled(INTERACTIVE, Some(v1_1_id)), SECTOR, MINER).unwrap();
    let err = req.check_vanilla().unwrap_err();
    assert!(matches!(err, FilecoinError::InvalidVanilla { .. }), "{err}");

    // A synthetic proof of another sector size, raw or in Curio's wrapper.
    let resized = relabelled(RegisteredSealProof::StackedDrg8MiBV1_1_Feat_SyntheticPoRep, None);
    let err = PoRepRequest::from_c1_json(&resized, SECTOR, MINER).unwrap_err();
    assert!(err.to_string().contains("8 MiB"), "{err}");
    assert_eq!(input_field(err), "vanilla_proofs");
    let err = PoRepRequest::from_curio_wrapper(&curio_wrapper(SECTOR as i64, &sealed.c1_json, 8 << 20), MINER);
    assert_eq!(input_field(err.unwrap_err()), "SectorSize");

    // Non-interactive PoRep stays refused.
    let ni = relabelled(RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, None);
    let err = PoRepRequest::from_c1_json(&ni, SECTOR, MINER).unwrap_err();
    assert!(matches!(&err, FilecoinError::UnsupportedProof { why, .. } if why.contains("SnarkPack")), "{err}");
}
