//! SnapDeals against filecoin-proofs 19.1 itself, at 2 KiB: parameter names,
//! Curio's inputs (commitments as digests and as CID bytes), the circuit's
//! constraint system against bellperson's, and proofs both ways (cuzk's
//! proof verified by filecoin-proofs, filecoin-proofs' verified by cuzk).

mod common;

use std::sync::Mutex;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_filecoin::commitment::{to_cid_bytes, CommitmentKind};
use common::shape::{self, Shape};
use cuzk_filecoin::snap::{self, SnapRequest, MAX_PARTITION_PROOF_BYTES};
use cuzk_filecoin::testdata::{self, SealedSector, SnapInputs};
use cuzk_filecoin::{proofs, CircuitId, FilecoinError, ProofKind, SectorSize};
use filecoin_proofs::SectorShapeBase;
use filecoin_proofs_api::update::{generate_empty_sector_update_proof_with_vanilla, verify_empty_sector_update_proof};
use filecoin_proofs_api::{PartitionProofBytes, RegisteredUpdateProof};
use rand::SeedableRng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_update::constants::{h_default, TreeDDomain, TreeRDomain};
use storage_proofs_update::{EmptySectorUpdateCompound, PartitionProof, PublicInputs, PublicParams};

/// The update proof every 2 KiB test uses.
const UPDATE_2K: RegisteredUpdateProof = RegisteredUpdateProof::StackedDrg2KiBV1;
const SNAP_2K: CircuitId = CircuitId { kind: ProofKind::SnapDeals, sector_size: SectorSize::Kib2 };

/// The tests that hold gigabytes (parameters, proving, recorded systems) run one at a time.
static HEAVY: Mutex<()> = Mutex::new(());

fn heavy() -> std::sync::MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A committed-capacity 2 KiB sector sealed with filecoin-proofs-api, updated
/// with pseudo-random data from `seed`: the SnapDeals inputs Curio sends (no
/// parameters are needed for any of it; it takes about a second).
fn updated_2k(seed: u64) -> SnapInputs {
    common::init_filecoin_env();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let cc = SealedSector::seal_cc(dir.path(), SectorSize::Kib2, 1000, 1, &mut rng).expect("seal a CC sector");
    let updated = testdata::update(&cc, dir.path(), &mut rng).expect("update the CC sector");
    assert_eq!(updated.proof, UPDATE_2K);
    updated
}

fn request(s: &SnapInputs, comm_r_old: &[u8], comm_r_new: &[u8], comm_d_new: &[u8]) -> Result<SnapRequest, FilecoinError> {
    SnapRequest::new(UPDATE_2K, s.vanilla.clone(), comm_r_old, comm_r_new, comm_d_new)
}

fn digests(s: &SnapInputs) -> SnapRequest {
    request(s, &s.comm_r_old, &s.comm_r_new, &s.comm_d_new).expect("digest request")
}

fn cids(s: &SnapInputs) -> SnapRequest {
    let (sealed, unsealed) = (CommitmentKind::Sealed, CommitmentKind::Unsealed);
    let comm_r_old = to_cid_bytes(sealed, &s.comm_r_old);
    let comm_r_new = to_cid_bytes(sealed, &s.comm_r_new);
    request(s, &comm_r_old, &comm_r_new, &to_cid_bytes(unsealed, &s.comm_d_new)).expect("CID request")
}

fn input_field(err: FilecoinError) -> String {
    match err {
        FilecoinError::Input { field, .. } => field,
        other => panic!("expected an input error, got {other:?}"),
    }
}

fn seconds(since: Instant) -> String {
    format!("{:.1} s", since.elapsed().as_secs_f64())
}

/// filecoin-proofs 19.1's parameters.json (the published parameter names),
/// found through `cargo metadata` rather than copied.
fn parameters_json() -> serde_json::Map<String, serde_json::Value> {
    // Only this platform's dependencies: offline, cargo has the manifests of
    // no others (a dependency of another target is never downloaded).
    let rustc = std::process::Command::new("rustc").arg("-vV").output().expect("run rustc -vV");
    let version = String::from_utf8_lossy(&rustc.stdout).into_owned();
    let host = version.lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc -vV names the host");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", host])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata JSON");
    let manifest = meta["packages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "filecoin-proofs" && p["version"] == "19.1.0"))
        .and_then(|p| p["manifest_path"].as_str())
        .expect("filecoin-proofs 19.1.0 in the dependency graph");
    let path = std::path::Path::new(manifest).with_file_name("parameters.json");
    serde_json::from_slice(&std::fs::read(&path).expect("read parameters.json")).expect("parameters.json")
}

#[test]
fn parameter_names_are_the_published_update_names() {
    let published = parameters_json();
    let proofs = [
        RegisteredUpdateProof::StackedDrg2KiBV1,
        RegisteredUpdateProof::StackedDrg8MiBV1,
        RegisteredUpdateProof::StackedDrg512MiBV1,
        RegisteredUpdateProof::StackedDrg32GiBV1,
        RegisteredUpdateProof::StackedDrg64GiBV1,
    ];
    for (number, proof) in proofs.into_iter().enumerate() {
        assert_eq!(snap::registered_update_proof(number as u64).unwrap(), proof);
        let size = snap::sector_size(proof);
        let id = snap::cache_identifier(size).unwrap();
        assert!(id.starts_with("empty-sector-update-merkletree-poseidon_hasher-8-"), "{id}");
        for ext in ["params", "vk"] {
            let name = format!("v28-{id}.{ext}");
            let entry = published.get(&name).unwrap_or_else(|| panic!("{name} is not in parameters.json"));
            assert_eq!(entry["sector_size"].as_u64(), Some(size.bytes()), "{name}");
        }
        // The trap: filecoin-proofs-api names the PoRep parameters for update proofs.
        assert_ne!(proof.circuit_identifier().unwrap(), id);
    }
    assert!(snap::cache_identifier(SectorSize::Kib2).unwrap().contains("-fb9e095bebdd7751"));
    assert!(snap::cache_identifier(SectorSize::Gib32).unwrap().contains("-8-8-0-3b7f44a9"));
    assert!(matches!(snap::registered_update_proof(5), Err(FilecoinError::UnsupportedProof { .. })));
}

#[test]
fn malformed_requests_are_typed_errors() {
    let s = updated_2k(1);
    let (sealed, unsealed) = (CommitmentKind::Sealed, CommitmentKind::Unsealed);
    let comm_d_cid = to_cid_bytes(unsealed, &s.comm_d_new);
    let err = request(&s, &comm_d_cid, &s.comm_r_new, &s.comm_d_new).unwrap_err();
    assert!(err.to_string().contains("fil-commitment-unsealed"), "{err}");
    assert_eq!(input_field(err), "comm_r_old");
    let mut bad_prefix = to_cid_bytes(sealed, &s.comm_r_new);
    bad_prefix[0] = 0x02;
    assert_eq!(input_field(request(&s, &s.comm_r_old, &bad_prefix, &s.comm_d_new).unwrap_err()), "comm_r_new");
    let comm_r_cid = to_cid_bytes(sealed, &s.comm_d_new);
    assert_eq!(input_field(request(&s, &s.comm_r_old, &s.comm_r_new, &comm_r_cid).unwrap_err()), "comm_d_new");
    assert_eq!(input_field(request(&s, &s.comm_r_old[..31], &s.comm_r_new, &s.comm_d_new).unwrap_err()), "comm_r_old");

    let with_vanilla = |vanilla: Vec<Vec<u8>>| {
        SnapRequest::new(UPDATE_2K, vanilla, &s.comm_r_old, &s.comm_r_new, &s.comm_d_new)
    };
    for count in [0, 2] {
        let err = with_vanilla(vec![s.vanilla[0].clone(); count]).unwrap_err();
        assert_eq!(input_field(err), "vanilla_proofs");
    }
    assert!(matches!(
        SnapRequest::from_curio(9, s.vanilla.clone(), &s.comm_r_old, &s.comm_r_new, &s.comm_d_new),
        Err(FilecoinError::UnsupportedProof { .. })
    ));

    // Bytes that are no PartitionProof: garbage, truncated, trailing, too long,
    // and a hostile length prefix (apex_leafs, after the 32-byte comm_c).
    let good = &s.vanilla[0];
    let mut hostile = good.clone();
    hostile[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut trailing = good.clone();
    trailing.push(0);
    let (truncated, too_long) = (good[..good.len() - 1].to_vec(), vec![0; MAX_PARTITION_PROOF_BYTES + 1]);
    for bytes in [vec![1, 2, 3], truncated, trailing, too_long, hostile] {
        let request = with_vanilla(vec![bytes]).expect("the count is right");
        assert_eq!(input_field(request.check_vanilla().unwrap_err()), "vanilla_proofs[0]");
        assert_eq!(input_field(request.prepare().err().expect("refused")), "vanilla_proofs[0]");
    }

    // A proof that decodes but lacks a challenge: refused before any circuit asserts on it.
    let mut proof: PartitionProof<SectorShapeBase> = bincode::deserialize(good).unwrap();
    proof.challenge_proofs.pop();
    let request = with_vanilla(vec![bincode::serialize(&proof).unwrap()]).unwrap();
    let err = request.prepare().err().expect("refused");
    assert!(err.to_string().contains("9 challenge proofs, expected 10"), "{err}");

    // A comm_c that is no field element: filecoin-proofs panics on it, caught and typed.
    let mut bad_scalar = good.clone();
    bad_scalar[..32].copy_from_slice(&[0xff; 32]);
    let request = with_vanilla(vec![bad_scalar]).unwrap();
    let err = request.prepare().err().expect("refused");
    assert!(matches!(&err, FilecoinError::InvalidVanilla { reason, .. } if reason.contains("panicked")), "{err}");
    assert!(format!("{request:?}").len() < 400, "Debug shows sizes, not the proofs' bytes");

    // Vanilla proofs of another update (their challenges and encoding belong to
    // other commitments): filecoin-proofs' vanilla check refuses them, and
    // prepare does too instead of letting the circuit's assertions panic.
    let other = updated_2k(2);
    let mismatched = SnapRequest::new(UPDATE_2K, other.vanilla, &s.comm_r_old, &s.comm_r_new, &s.comm_d_new).unwrap();
    assert!(matches!(mismatched.check_vanilla(), Err(FilecoinError::InvalidVanilla { .. })));
    assert!(matches!(mismatched.prepare(), Err(FilecoinError::InvalidVanilla { .. })));
    digests(&s).check_vanilla().expect("the real vanilla proofs verify");
}

#[test]
fn circuit_matches_bellperson_constraint_for_constraint() {
    let _heavy = heavy();
    let s = updated_2k(3);

    let started = Instant::now();
    let circuit = digests(&s).prepare().expect("prepare").circuits.remove(0);
    let cs = cuzk_synth::TestConstraintSystem::<Scalar>::synthesize(circuit).expect("cuzk synthesis");
    assert!(cs.is_satisfied(), "unsatisfied: {:?}", cs.which_is_unsatisfied());
    assert!(cs.naming_errors().is_empty(), "{:?}", &cs.naming_errors()[..1]);
    let ours = Shape::of_test_cs(&cs);
    drop(cs);
    eprintln!("cuzk TestConstraintSystem over the 2 KiB update circuit: {}", seconds(started));
    assert_eq!(ours.constraints, 1_705_039, "storage-proofs-update tests/circuit.rs pins 2 KiB at 1,705,039");
    assert_eq!(ours.inputs, 5);

    let started = Instant::now();
    let theirs = {
        use bellperson::Circuit as _;
        use bellpepper_core::Comparable as _;
        let pp = PublicParams::from_sector_size(2048);
        let pub_in = PublicInputs {
            k: 1,
            comm_r_old: <TreeRDomain as filecoin_hashers::Domain>::try_from_bytes(&s.comm_r_old).unwrap(),
            comm_d_new: <TreeDDomain as filecoin_hashers::Domain>::try_from_bytes(&s.comm_d_new).unwrap(),
            comm_r_new: <TreeRDomain as filecoin_hashers::Domain>::try_from_bytes(&s.comm_r_new).unwrap(),
            h: h_default(pp.sector_nodes),
        };
        let vanilla: PartitionProof<SectorShapeBase> = bincode::deserialize(&s.vanilla[0]).unwrap();
        let circuit = EmptySectorUpdateCompound::circuit(&pub_in, (), &vanilla, &pp, Some(0)).unwrap();
        let mut cs = bellperson::util_cs::test_cs::TestConstraintSystem::<Scalar>::new();
        circuit.synthesize(&mut cs).expect("bellperson synthesis");
        assert!(cs.is_satisfied(), "unsatisfied: {:?}", cs.which_is_unsatisfied());
        shape::bellpepper_shape(cs.num_inputs(), cs.scalar_aux().len(), cs.constraints())
    };
    eprintln!("bellpepper TestConstraintSystem over the same circuit: {}", seconds(started));
    assert_eq!(ours, theirs);

    // The blank circuits (what parameters are generated from) have the same shape.
    let started = Instant::now();
    let blank_theirs = {
        use bellperson::util_cs::Comparable as _;
        use bellperson::Circuit as _;
        let pp = PublicParams::from_sector_size(2048);
        let mut cs = bellperson::util_cs::metric_cs::MetricCS::<Scalar>::new();
        EmptySectorUpdateCompound::<SectorShapeBase>::blank_circuit(&pp).synthesize(&mut cs).expect("blank synthesis");
        shape::bellpepper_shape(cs.num_inputs(), cs.aux().len(), cs.constraints())
    };
    assert_eq!(blank_theirs, theirs);
    let blank_ours = shape::cuzk_blank_shape(|| snap::blank_circuit(SectorSize::Kib2).unwrap()).unwrap();
    assert_eq!(blank_ours, ours);
    eprintln!("blank circuits (bellperson MetricCS, cuzk value-free): {}", seconds(started));
}

/// Recorded once, a partition's witness replayed from the values the
/// circuit gives (one block: the update circuit does not cut) is the
/// classic witness, as is the gadgets' witness of the same recording.
#[test]
fn the_witness_replays_from_the_rows_at_2k() {
    use cuzk_synth::{Circuit as _, RecordedShape, WitnessPass};
    let _heavy = heavy();
    let req = digests(&updated_2k(5));
    let make = || req.prepare().expect("prepare").circuits.remove(0);
    let started = Instant::now();
    let (shape, classic) = RecordedShape::record(make()).expect("record the partition");
    eprintln!("recorded the 2 KiB update partition: {}", seconds(started));
    let mut gadgets = make();
    drop(gadgets.take_block_values());
    for (circuit, want) in [(gadgets, WitnessPass::Gadgets), (make(), WitnessPass::Replay)] {
        let started = Instant::now();
        let (witness, how) = shape.witness_pass(circuit).expect("the witness");
        eprintln!("witness by {how:?}: {}", seconds(started));
        assert_eq!(how, want);
        assert!(witness.inputs == classic.input_assignment, "inputs differ from the classic witness ({how:?})");
        assert!(witness.aux == classic.aux_assignment, "aux variables differ from the classic witness ({how:?})");
    }
}

#[test]
fn proofs_verify_both_ways_at_2k() {
    let _heavy = heavy();
    let started = Instant::now();
    let cache = common::test_params(SNAP_2K);
    eprintln!("test parameters ready: {}", seconds(started));
    let s = updated_2k(4);
    let (by_digest, by_cid) = (digests(&s), cids(&s));
    assert_eq!(
        (by_cid.comm_r_old(), by_cid.comm_r_new(), by_cid.comm_d_new()),
        (s.comm_r_old, s.comm_r_new, s.comm_d_new)
    );
    assert_eq!(by_cid.public_inputs().unwrap(), by_digest.public_inputs().unwrap());

    // cuzk proves on the CPU from the CID-form request.
    let started = Instant::now();
    let partitions = by_cid.prepare().expect("prepare");
    assert_eq!(partitions.circuit_id, SNAP_2K);
    assert_eq!(partitions.public_inputs, by_digest.public_inputs().unwrap());
    let files = cache.files(SNAP_2K).unwrap();
    let params = cuzk_groth16::Parameters::read(&files.params, cuzk_groth16::PointChecks::None).expect("read params");
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let ours = cuzk_groth16::create_random_proofs(partitions.circuits, &params, &mut rng).expect("prove");
    let ours = proofs::join(&ours);
    drop(params);
    eprintln!("cuzk CPU proof (prepare, read params, synthesize, prove): {}", seconds(started));
    assert_eq!(ours.len(), 192);

    let (old, new, d) = (s.comm_r_old, s.comm_r_new, s.comm_d_new);
    let fp_verify = |proof: &[u8], comm_r_new| verify_empty_sector_update_proof(UPDATE_2K, proof, old, comm_r_new, d);
    assert!(fp_verify(&ours, s.comm_r_new).expect("filecoin-proofs verifies"), "filecoin-proofs refused cuzk's proof");
    by_digest.verify(&cache, &ours).expect("cuzk verifies its own proof (digests)");
    by_cid.verify(&cache, &ours).expect("cuzk verifies its own proof (CIDs)");

    // filecoin-proofs' own proof over the same parameters verifies under cuzk.
    let started = Instant::now();
    let vanilla = s.vanilla.iter().cloned().map(PartitionProofBytes).collect();
    let theirs = generate_empty_sector_update_proof_with_vanilla(UPDATE_2K, vanilla, old, new, d);
    let theirs = theirs.expect("filecoin-proofs proves").0;
    eprintln!("filecoin-proofs CPU proof: {}", seconds(started));
    by_cid.verify(&cache, &theirs).expect("cuzk verifies filecoin-proofs' proof");

    // Another comm_r_new (the old one, swapped in): both verifiers refuse.
    let swapped = request(&s, &s.comm_r_old, &s.comm_r_old, &s.comm_d_new).unwrap();
    assert!(matches!(swapped.verify(&cache, &ours), Err(FilecoinError::ProofInvalid { partition: 0, .. })));
    assert!(!fp_verify(&ours, s.comm_r_old).unwrap());

    // A flipped byte, and a proof mixed from two valid ones (valid points, wrong proof).
    let mut flipped = ours.clone();
    flipped[100] ^= 0x01;
    assert!(by_digest.verify(&cache, &flipped).is_err());
    assert!(!matches!(fp_verify(&flipped, s.comm_r_new), Ok(true)));
    let mixed: Vec<u8> = ours[..144].iter().chain(&theirs[144..]).copied().collect();
    assert!(matches!(by_digest.verify(&cache, &mixed), Err(FilecoinError::ProofInvalid { partition: 0, .. })));
    assert!(!fp_verify(&mixed, s.comm_r_new).unwrap());
    assert!(matches!(by_digest.verify(&cache, &ours[..191]), Err(FilecoinError::ProofBytes { .. })));
}
