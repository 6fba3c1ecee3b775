//! The test-data module makes inputs filecoin-proofs and cuzk both accept:
//! a C1 whose JSON is the api's type and whose Curio wrapper carries exactly
//! those bytes, and PoSt vanilla proofs that pass the vanilla checks.

mod common;

use base64::Engine as _;
use cuzk_filecoin::testdata::{curio_c1_wrapper, ensure_test_size, window_proof, winning_proof, SealedSector};
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::{proofs, reference, CircuitId, ProofKind, SectorSize};
use cuzk_groth16::{Parameters, PointChecks};
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use rand::SeedableRng;

#[test]
fn sealed_sectors_give_c1_and_post_inputs_that_check() {
    common::init_filecoin_env();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
    let a = SealedSector::seal(dir.path(), SectorSize::Kib2, 1000, 7, &mut rng).unwrap();
    let b = SealedSector::seal(dir.path(), SectorSize::Kib2, 1000, 8, &mut rng).unwrap();
    assert_ne!(a.comm_r(), b.comm_r(), "two random sectors, one commitment");

    let c1 = a.c1_json([5; 32]).unwrap();
    let parsed: SealCommitPhase1Output = serde_json::from_slice(&c1).unwrap();
    assert_eq!(parsed.comm_r, a.comm_r());
    assert_eq!(parsed.ticket, a.ticket);
    let wrapper: serde_json::Value = serde_json::from_slice(&curio_c1_wrapper(&c1, 7, SectorSize::Kib2)).unwrap();
    assert_eq!(wrapper["SectorNum"], 7);
    assert_eq!(wrapper["SectorSize"], 2048);
    let inner = base64::engine::general_purpose::STANDARD.decode(wrapper["Phase1Out"].as_str().unwrap()).unwrap();
    assert_eq!(inner, c1, "the wrapper carries the C1 bytes unchanged");

    let randomness = [3; 32];
    let winning = SealedSector::post_vanilla(winning_proof(SectorSize::Kib2), &randomness, &[&a]).unwrap();
    let req = WinningPoStRequest { proof: winning_proof(SectorSize::Kib2), randomness, miner_id: 1000, vanilla: winning };
    req.check_vanilla().unwrap();
    reference_verifier_agrees(&req);
    let window = SealedSector::post_vanilla(window_proof(SectorSize::Kib2), &randomness, &[&a, &b]).unwrap();
    assert_eq!(window.len(), 2);
    let req = WindowPoStRequest {
        proof: window_proof(SectorSize::Kib2),
        randomness,
        miner_id: 1000,
        partition_index: 0,
        vanilla: window,
    };
    req.check_vanilla().unwrap();
    let other = SealedSector::post_vanilla(window_proof(SectorSize::Kib2), &[4; 32], &[&a, &b]).unwrap();
    let stale = WindowPoStRequest { vanilla: other, ..req };
    assert!(stale.check_vanilla().is_err(), "proofs for other randomness must not check");

    let cc = SealedSector::seal_cc(dir.path(), SectorSize::Kib2, 1000, 9, &mut rng).unwrap();
    let snap = cuzk_filecoin::testdata::update(&cc, dir.path(), &mut rng).unwrap();
    let req = SnapRequest::new(snap.proof, snap.vanilla.clone(), &snap.comm_r_old, &snap.comm_r_new, &snap.comm_d_new).unwrap();
    req.check_vanilla().unwrap();
    assert_eq!(snap.comm_r_old, cc.comm_r());
    let wrong_key = SnapRequest::new(req.proof(), snap.vanilla, &a.comm_r(), &snap.comm_r_new, &snap.comm_d_new);
    assert!(wrong_key.and_then(|r| r.check_vanilla()).is_err(), "an update of another sector must not check");

    assert!(ensure_test_size(SectorSize::Gib32).is_err());
    assert!(SealedSector::seal(dir.path(), SectorSize::Gib32, 1000, 9, &mut rng).is_err());
}

/// filecoin-proofs' verifier, through `reference`, accepts cuzk's proof of a
/// test-data request and refuses it altered.
fn reference_verifier_agrees(req: &WinningPoStRequest) {
    let id = CircuitId::new(ProofKind::WinningPoSt, SectorSize::Kib2);
    let cache = common::test_params(id);
    let params = Parameters::read(&cache.files(id).unwrap().params, PointChecks::None).unwrap();
    let partitions = req.prepare().unwrap();
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(12);
    let bytes = proofs::join(&cuzk_groth16::create_random_proofs(partitions.circuits, &params, &mut rng).unwrap());
    assert!(reference::winning_post(req, &bytes).unwrap(), "filecoin-proofs refuses cuzk's WinningPoSt");
    req.verify(&cache, &bytes).unwrap();
    let mut altered = bytes.clone();
    altered[100] ^= 1;
    assert!(!matches!(reference::winning_post(req, &altered), Ok(true)), "an altered proof verifies");
}
