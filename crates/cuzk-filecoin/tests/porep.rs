//! PoRep C2 at 2 KiB against filecoin-proofs itself: a sector sealed by
//! filecoin-proofs (add piece, PC1, PC2, C1), handed over as Curio does, proved
//! by cuzk on the CPU and checked by `verify_seal`; filecoin-proofs' own C2
//! checked by cuzk; cuzk's circuit shape and proof bytes against bellperson's;
//! and every malformed input refused with a typed error. Synthetic PoRep
//! the same way, from a sector of its own ([`synthetic_porep`]).

mod common;
#[path = "porep/synthetic_porep.rs"]
mod synthetic_porep;

use std::fs::File;
use std::sync::OnceLock;
use std::time::Instant;

use base64::Engine;
use blstrs::{Bls12, Scalar};
use common::shape::{bellpepper_shape, cuzk_blank_shape, Shape};
use cuzk_filecoin::porep::{self, PoRepRequest};
use cuzk_filecoin::testdata::{curio_c1_wrapper, SealedSector};
use cuzk_filecoin::{proofs, prover_id, CircuitId, FilecoinError, ProofKind, SectorSize};
use cuzk_groth16::{prepare_verifying_key, random_nonzero_scalar, Parameters, PointChecks};
use cuzk_synth::TestConstraintSystem;
use filecoin_hashers::poseidon::PoseidonDomain;
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::seal::{self, SealCommitPhase1Output, VanillaSealProof};
use filecoin_proofs_api::{RegisteredSealProof, SectorId};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound};

const MINER: u64 = 1000;
const SECTOR: u64 = 7;
const PROOF: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const POREP_2K: CircuitId = CircuitId { kind: ProofKind::PoRepC2, sector_size: SectorSize::Kib2 };

/// A 2 KiB sector sealed by filecoin-proofs, its C1 as filecoin-ffi returns
/// it and as Curio wraps it.
struct Sealed {
    c1: SealCommitPhase1Output,
    c1_json: Vec<u8>,
    wrapper: Vec<u8>,
}

fn sealed() -> &'static Sealed {
    static SEALED: OnceLock<Sealed> = OnceLock::new();
    SEALED.get_or_init(|| {
        common::init_filecoin_env();
        let started = Instant::now();
        let sealed = seal_2kib();
        eprintln!(
            "sealed 2 KiB (add piece, PC1, PC2, C1) in {:.2} s; C1 JSON {} B, Curio wrapper {} B",
            started.elapsed().as_secs_f64(),
            sealed.c1_json.len(),
            sealed.wrapper.len()
        );
        sealed
    })
}

/// Seals with filecoin-proofs-api through cuzk's test data (add piece, PC1,
/// PC2), then C1 for a random seed.
fn seal_2kib() -> Sealed {
    seal_2kib_with(PROOF, 0x5ea1)
}

/// As [`seal_2kib`] with seal proof `proof`, the sector's data and seed
/// drawn from `rng_seed`.
fn seal_2kib_with(proof: RegisteredSealProof, rng_seed: u64) -> Sealed {
    let mut rng = ChaCha20Rng::seed_from_u64(rng_seed);
    let dir = tempfile::tempdir().expect("temp dir");
    let sector = SealedSector::seal_with(dir.path(), proof, MINER, SECTOR, &mut rng).expect("seal 2 KiB");
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let c1 = sector.commit_phase1(seed).expect("commit phase 1");
    let c1_json = serde_json::to_vec(&c1).expect("C1 as JSON");
    let wrapper = curio_c1_wrapper(&c1_json, SECTOR, SectorSize::Kib2);
    Sealed { c1, c1_json, wrapper }
}

/// Curio's `c1OutputWrapper` as Go's `json.Marshal` writes it, with any
/// sector number and size (including ones Curio never sends).
fn curio_wrapper(sector: i64, c1_json: &[u8], sector_size: u64) -> Vec<u8> {
    let phase1_out = base64::engine::general_purpose::STANDARD.encode(c1_json);
    let json = serde_json::json!({ "SectorNum": sector, "Phase1Out": phase1_out, "SectorSize": sector_size });
    serde_json::to_vec(&json).unwrap()
}

/// filecoin-proofs' own circuit of partition `k`, built by `StackedCompound::circuit`.
fn their_circuit(c1: &SealCommitPhase1Output, k: usize) -> StackedCircuit<SectorShape2KiB, Sha256Hasher> {
    let pp = filecoin_proofs::parameters::public_params::<SectorShape2KiB>(&PROOF.as_v1_config()).unwrap();
    let VanillaSealProof::StackedDrg2KiBV1(proofs) = &c1.vanilla_proofs else { panic!("a 2 KiB C1") };
    StackedCompound::<SectorShape2KiB, Sha256Hasher>::circuit(&their_inputs(c1), (), &proofs[k], &pp, Some(k)).unwrap()
}

fn secs(started: Instant) -> f64 {
    started.elapsed().as_secs_f64()
}

#[test]
fn porep_2kib_end_to_end() {
    let started = Instant::now();
    let cache = common::test_params(POREP_2K);
    eprintln!("test parameters ready in {:.1} s", secs(started));
    let sealed = sealed();
    let c1 = &sealed.c1;

    let req = PoRepRequest::from_curio_wrapper(&sealed.wrapper, MINER).unwrap();
    assert_eq!((req.sector_number(), req.miner_id(), req.partitions()), (SECTOR, MINER, 1));
    assert_eq!(req.circuit_id(), POREP_2K);
    let started = Instant::now();
    req.check_vanilla().unwrap();
    eprintln!("check_vanilla in {:.3} s", secs(started));

    // The verifier's public inputs are exactly filecoin-proofs' own.
    let prepared = req.prepare().unwrap();
    let (prover, sector) = (prover_id(MINER), SectorId::from(SECTOR));
    let expected = seal::get_seal_inputs(PROOF, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed).unwrap();
    assert_eq!(prepared.public_inputs, expected);
    assert_eq!(prepared.circuits.len(), 1);

    // A wrong miner id or sector number is refused before anything is proved.
    let wrong_miner = PoRepRequest::from_curio_wrapper(&sealed.wrapper, MINER + 1).unwrap_err();
    assert!(matches!(wrong_miner, FilecoinError::ReplicaIdMismatch { miner_id: 1001, sector_number: SECTOR }));
    let wrong_sector = PoRepRequest::from_c1_json(&sealed.c1_json, SECTOR + 1, MINER).unwrap_err();
    assert!(matches!(wrong_sector, FilecoinError::ReplicaIdMismatch { sector_number: 8, .. }), "{wrong_sector}");

    let started = Instant::now();
    let files = cache.files(POREP_2K).unwrap();
    let params = Parameters::read(&files.params, PointChecks::None).unwrap();
    eprintln!("cuzk read the .params in {:.1} s", secs(started));

    // cuzk proves once. create_random_proofs draws r, then s, for each
    // circuit from the rng: the same draws from a copy of it give bellperson
    // the same r and s below.
    let seeded = ChaCha20Rng::seed_from_u64(0xc2);
    let started = Instant::now();
    let ours = cuzk_groth16::create_random_proofs(prepared.circuits, &params, &mut seeded.clone()).unwrap();
    eprintln!("cuzk C2 on the CPU (synthesis and proof) in {:.1} s", secs(started));
    drop(params);
    let bytes = proofs::join(&ours);
    assert_eq!(bytes.len(), 192);

    assert!(seal::verify_seal(PROOF, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed, &bytes).unwrap());
    assert!(!seal::verify_seal(PROOF, c1.comm_r, c1.comm_d, prover_id(MINER + 1), sector, c1.ticket, c1.seed, &bytes)
        .unwrap());
    req.verify(&cache, &bytes).unwrap();

    // bellperson, filecoin-proofs' own circuit (`StackedCompound::circuit`),
    // same parameters, same r and s: same bytes.
    let started = Instant::now();
    let bp_params = bellperson::groth16::Parameters::<Bls12>::read(
        std::io::BufReader::new(File::open(&files.params).unwrap()),
        false,
    )
    .unwrap();
    let circuits: Vec<_> = (0..req.partitions()).map(|k| their_circuit(c1, k)).collect();
    let mut replay = seeded;
    let (r, s) = (random_nonzero_scalar(&mut replay), random_nonzero_scalar(&mut replay));
    let theirs = bellperson::groth16::create_proof_batch(circuits, &bp_params, vec![r], vec![s]).unwrap();
    eprintln!("bellperson read + create_proof_batch in {:.1} s", secs(started));
    drop(bp_params);
    let mut their_bytes = Vec::new();
    theirs[0].write(&mut their_bytes).unwrap();
    assert!(
        their_bytes == bytes,
        "bellperson's proof is not cuzk's for the same r, s (or create_random_proofs no longer draws r, then s)"
    );

    // filecoin-proofs' own C2 over the same parameters verifies under cuzk.
    let started = Instant::now();
    let fp = seal::seal_commit_phase2(c1.clone(), prover, sector).unwrap();
    eprintln!("filecoin-proofs seal_commit_phase2 in {:.1} s", secs(started));
    assert_eq!(fp.proof.len(), 192);
    req.verify(&cache, &fp.proof).unwrap();

    // The proof of partition 0 under another seed or as partition 1 fails.
    let vk = cache.verifying_key(POREP_2K).unwrap();
    let pvk = prepare_verifying_key(&vk).unwrap();
    let mut other_seed = c1.clone();
    other_seed.seed[0] ^= 1;
    let other = PoRepRequest::new(other_seed, SECTOR, MINER).unwrap();
    let err = other.verify(&cache, &bytes).unwrap_err();
    assert!(matches!(err, FilecoinError::ProofInvalid { partition: 0, .. }), "{err}");
    let as_k1 = partition_inputs(c1, 1);
    assert_ne!(as_k1, expected[0]);
    let err = proofs::verify(POREP_2K, &pvk, &[as_k1], &bytes).unwrap_err();
    assert!(matches!(err, FilecoinError::ProofInvalid { partition: 0, .. }), "{err}");
    assert_eq!(partition_inputs(c1, 0), expected[0]);

    // A flipped byte fails, whether or not the points still decode.
    for at in [5, 100, 191] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x04;
        assert!(req.verify(&cache, &flipped).is_err(), "byte {at} flipped still verifies");
        let fp_says = seal::verify_seal(PROOF, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed, &flipped);
        assert!(!fp_says.unwrap_or(false), "verify_seal accepts byte {at} flipped");
    }
    let err = req.verify(&cache, &bytes[..191]).unwrap_err();
    assert!(matches!(err, FilecoinError::ProofBytes { .. }), "{err}");
}

/// filecoin-proofs' public inputs of the sector's proof as partition `k`.
fn partition_inputs(c1: &SealCommitPhase1Output, k: usize) -> Vec<Scalar> {
    let pp = filecoin_proofs::parameters::public_params::<SectorShape2KiB>(&PROOF.as_v1_config()).unwrap();
    StackedCompound::<SectorShape2KiB, Sha256Hasher>::generate_public_inputs(&their_inputs(c1), &pp, Some(k)).unwrap()
}

/// filecoin-proofs' public inputs of the sector's C1 as the prover builds them.
fn their_inputs(c1: &SealCommitPhase1Output) -> stacked::PublicInputs<PoseidonDomain, Sha256Domain> {
    stacked::PublicInputs {
        replica_id: c1.replica_id,
        seed: Some(c1.seed),
        tau: Some(stacked::Tau {
            comm_d: filecoin_proofs::as_safe_commitment(&c1.comm_d, "comm_d").unwrap(),
            comm_r: filecoin_proofs::as_safe_commitment(&c1.comm_r, "comm_r").unwrap(),
        }),
        k: None,
    }
}

/// The circuit's shape through cuzk's adapter equals bellperson's. Both test
/// constraint systems ask every variable for its value, which a blank circuit
/// has not, so they synthesize the witnessed partition circuit; the blank
/// circuit parameters are made from goes through cuzk's adapter into a
/// value-free system and must hash the same (bellperson's own blank equals
/// its witnessed circuit, or filecoin-proofs' parameters could not work).
#[test]
fn circuit_shape_matches_bellperson_2kib() {
    let req = PoRepRequest::from_c1_json(&sealed().c1_json, SECTOR, MINER).unwrap();
    let prepared = req.prepare().unwrap();
    let inputs = prepared.public_inputs[0].clone();

    let started = Instant::now();
    let circuit = prepared.circuits.into_iter().next().unwrap();
    let ours = TestConstraintSystem::<Scalar>::synthesize(circuit).unwrap();
    assert!(ours.is_satisfied(), "unsatisfied: {:?}", ours.which_is_unsatisfied());
    assert!(ours.verify(&inputs), "the circuit's inputs are not the verifier's");
    assert!(ours.naming_errors().is_empty(), "{:?}", &ours.naming_errors()[..1]);
    let shape = Shape::of_test_cs(&ours);
    drop(ours);
    let counts = (shape.inputs, shape.aux, shape.constraints);
    eprintln!("2 KiB PoRep partition: {counts:?} (inputs, aux, constraints), cuzk TestCS in {:.1} s", secs(started));

    let started = Instant::now();
    let mut theirs = bellperson::util_cs::test_cs::TestConstraintSystem::<Scalar>::new();
    bellperson::Circuit::synthesize(their_circuit(&sealed().c1, 0), &mut theirs).unwrap();
    assert!(theirs.is_satisfied());
    let their_constraints = bellpepper_core::Comparable::constraints(&theirs);
    assert_eq!(bellpepper_shape(theirs.num_inputs(), theirs.scalar_aux().len(), their_constraints), shape);
    drop(theirs);
    eprintln!("bellperson TestCS and hash in {:.1} s", secs(started));

    let started = Instant::now();
    let blank = cuzk_blank_shape(|| porep::blank_circuit(SectorSize::Kib2).unwrap()).unwrap();
    assert_eq!(blank, shape);
    eprintln!("blank circuit through cuzk's adapter in {:.1} s", secs(started));
}

/// A 2 KiB partition's two challenges are two parts, and the witness
/// computed in parts is the whole one.
#[test]
fn porep_witness_in_parts_is_the_whole_witness() {
    let req = PoRepRequest::from_c1_json(&sealed().c1_json, SECTOR, MINER).unwrap();
    common::check_witness_in_parts(|| req.prepare().unwrap().circuits.remove(0), 2, cuzk_synth::WitnessPass::Replay);
}

#[test]
fn cache_identifiers_are_filecoin_proofs_own() {
    for size in SectorSize::ALL {
        let ours = porep::cache_identifier(size).unwrap();
        let v1 = match size {
            SectorSize::Kib2 => RegisteredSealProof::StackedDrg2KiBV1,
            SectorSize::Mib8 => RegisteredSealProof::StackedDrg8MiBV1,
            SectorSize::Mib512 => RegisteredSealProof::StackedDrg512MiBV1,
            SectorSize::Gib32 => RegisteredSealProof::StackedDrg32GiBV1,
            SectorSize::Gib64 => RegisteredSealProof::StackedDrg64GiBV1,
        };
        assert_eq!(ours, v1.circuit_identifier().unwrap(), "{size}");
        assert!(ours.starts_with("stacked-proof-of-replication-merkletree-poseidon_hasher-8-"), "{ours}");
    }
    let kib2 = porep::cache_identifier(SectorSize::Kib2).unwrap();
    assert!(kib2.starts_with("stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138"));
    assert!(porep::cache_identifier(SectorSize::Gib32).unwrap().ends_with("ef7820"));
}

/// The C1 with `edit` applied, as raw JSON.
fn edited(edit: impl FnOnce(&mut SealCommitPhase1Output)) -> Vec<u8> {
    let mut c1 = sealed().c1.clone();
    edit(&mut c1);
    serde_json::to_vec(&c1).unwrap()
}

fn input_field(err: FilecoinError) -> String {
    match err {
        FilecoinError::Input { field, reason } => {
            assert!(reason.len() < 400, "{} bytes of reason for {field}", reason.len());
            field
        }
        other => panic!("expected an input error, got {other}"),
    }
}

fn partitions_2k(
    c1: &mut SealCommitPhase1Output,
) -> &mut Vec<Vec<filecoin_proofs::types::VanillaSealProof<SectorShape2KiB>>> {
    match &mut c1.vanilla_proofs {
        VanillaSealProof::StackedDrg2KiBV1(p) => p,
        _ => panic!("a 2 KiB C1 holds 2 KiB proofs"),
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let sealed = sealed();
    let json = &sealed.c1_json;
    let from_json = |bytes: &[u8]| PoRepRequest::from_c1_json(bytes, SECTOR, MINER).unwrap_err();
    let from_wrapper = |bytes: &[u8]| PoRepRequest::from_curio_wrapper(bytes, MINER).unwrap_err();

    assert_eq!(input_field(from_json(&json[..json.len() / 2])), "c1");
    assert_eq!(input_field(from_json(b"hello")), "c1");
    assert_eq!(input_field(from_json(&edited(|c| c.comm_r = [0xff; 32]))), "comm_r");
    assert_eq!(input_field(from_json(&edited(|c| c.seed = [0; 32]))), "seed");
    let huge = String::from_utf8(json.clone()).unwrap().replace("StackedDrg2KiBV1_1", &"X".repeat(1 << 20));
    assert_eq!(input_field(from_json(huge.as_bytes())), "c1");

    assert_eq!(input_field(from_wrapper(&json[..])), "c1.json");
    let bad_b64 =
        String::from_utf8(sealed.wrapper.clone()).unwrap().replacen("\"Phase1Out\":\"", "\"Phase1Out\":\"*", 1);
    assert_eq!(input_field(from_wrapper(bad_b64.as_bytes())), "Phase1Out");
    assert_eq!(input_field(from_wrapper(&curio_wrapper(SECTOR as i64, b"not json", 2048))), "Phase1Out");
    assert_eq!(input_field(from_wrapper(&curio_wrapper(SECTOR as i64, &json[..1000], 2048))), "Phase1Out");
    assert_eq!(input_field(from_wrapper(&curio_wrapper(-1, json, 2048))), "SectorNum");
    for size in [SectorSize::Mib8.bytes(), 4096] {
        let err = from_wrapper(&curio_wrapper(SECTOR as i64, json, size));
        assert!(err.to_string().contains(&size.to_string()), "{err}");
        assert_eq!(input_field(err), "SectorSize");
    }

    let proof = RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep;
    let json = edited(|c| c.registered_proof = proof);
    for err in [from_json(&json), from_wrapper(&curio_wrapper(SECTOR as i64, &json, 2048))] {
        assert!(
            matches!(&err, FilecoinError::UnsupportedProof { proof: p, .. } if *p == format!("{proof:?}")),
            "{err}"
        );
    }
    // An interactive C1 relabelled Synthetic: its replica id hashes V1_1's porep id.
    let err = from_json(&edited(|c| c.registered_proof = synthetic_porep::PROOF));
    assert!(matches!(err, FilecoinError::ReplicaIdMismatch { miner_id: MINER, sector_number: SECTOR }), "{err}");
    let err = from_json(&edited(|c| c.registered_proof = RegisteredSealProof::StackedDrg8MiBV1_1));
    assert!(err.to_string().contains("2 KiB"), "{err}");
    assert_eq!(input_field(err), "vanilla_proofs");

    let two = edited(|c| {
        let p = partitions_2k(c);
        p.push(p[0].clone());
    });
    let err = from_json(&two);
    assert!(err.to_string().contains("2 partitions"), "{err}");
    assert_eq!(input_field(err), "vanilla_proofs");
    assert_eq!(input_field(from_json(&edited(|c| partitions_2k(c).clear()))), "vanilla_proofs");
    let one_challenge = edited(|c| {
        partitions_2k(c)[0].pop();
    });
    assert_eq!(input_field(from_json(&one_challenge)), "vanilla_proofs[0]");

    // A C1 the replica id still fits but whose vanilla proofs do not: another
    // seed (other challenges), or a proof missing its labels (which makes
    // filecoin-proofs' circuit builder panic).
    let other_seed = PoRepRequest::from_c1_json(&edited(|c| c.seed[3] ^= 1), SECTOR, MINER).unwrap();
    assert!(matches!(other_seed.check_vanilla(), Err(FilecoinError::InvalidVanilla { .. })));
    let no_labels = edited(|c| partitions_2k(c)[0][1].labeling_proofs.clear());
    let no_labels = PoRepRequest::from_c1_json(&no_labels, SECTOR, MINER).unwrap();
    assert!(matches!(no_labels.check_vanilla(), Err(FilecoinError::InvalidVanilla { .. })));
    let err = no_labels.prepare().err().expect("a proof without labels is refused");
    assert!(matches!(&err, FilecoinError::InvalidVanilla { reason, .. } if reason.contains("partition 0")), "{err}");
}
