//! WindowPoSt and WinningPoSt at 2 KiB, end to end: sectors sealed by
//! filecoin-proofs, vanilla proofs as Curio sends them, cuzk's CPU prover over
//! `prepare()`'s circuits, and filecoin-proofs' own verifiers accepting cuzk's
//! bytes (and cuzk accepting filecoin-proofs' own proofs); then inputs that
//! must be refused before proving, and the circuits' shape against bellperson.

mod common;
mod post_support;

use bellperson::groth16::{create_proof, Parameters as BpParameters};
use blstrs::{Bls12, Scalar};
use cuzk_filecoin::post::{proof_from_abi, RegisteredPoStProof};
use cuzk_filecoin::window_post::{self, WindowPoStRequest};
use cuzk_filecoin::winning_post::{self, WinningPoStRequest};
use cuzk_filecoin::{proofs, CircuitId, FilecoinCircuit, FilecoinError, ParamCache, ProofKind, SectorSize, ShapeCircuit};
use cuzk_groth16::params::PointChecks;
use cuzk_groth16::Parameters;
use common::shape::{bellpepper_hash, bellpepper_shape, cuzk_blank_shape, Format, Shape};
use cuzk_filecoin::testdata::SealedSector;
use cuzk_synth::{TestConstraintSystem, WitnessPass};
use filecoin_proofs::{
    generate_single_window_post_with_vanilla, generate_winning_post_with_vanilla, merge_window_post_partition_proofs,
    verify_window_post, verify_winning_post, FallbackPoStSectorProof, PartitionSnarkProof, PoStConfig,
};
use post_support::{id, public_replicas, randomness, sealed, timed, vanilla, Tree, MINER};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_post::fallback::{FallbackPoStCircuit, FallbackPoStCompound};

const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
const WINDOW_V1: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1;

fn params(kind: ProofKind) -> (ParamCache, Parameters, std::path::PathBuf) {
    let id = CircuitId::new(kind, SectorSize::Kib2);
    let cache = common::test_params(id);
    let path = cache.files(id).unwrap().params;
    let params = Parameters::read(&path, PointChecks::None).unwrap();
    (cache, params, path)
}

/// cuzk's CPU proof bytes for a request's partitions.
fn cuzk_prove(partitions: cuzk_filecoin::Partitions, params: &Parameters, seed: u64) -> Vec<u8> {
    let proofs =
        cuzk_groth16::create_random_proofs(partitions.circuits, params, &mut ChaCha20Rng::seed_from_u64(seed)).unwrap();
    proofs::join(&proofs)
}

fn winning_request(randomness: [u8; 32], vanilla: Vec<Vec<u8>>) -> WinningPoStRequest {
    WinningPoStRequest { proof: WINNING, randomness, miner_id: MINER, vanilla }
}

fn window_request(proof: RegisteredPoStProof, r: [u8; 32], k: usize, vanilla: Vec<Vec<u8>>) -> WindowPoStRequest {
    WindowPoStRequest { proof, randomness: r, miner_id: MINER, partition_index: k, vanilla }
}

fn winning_verifies(cfg: &PoStConfig, r: &[u8; 32], sector: &SealedSector, comm_r: [u8; 32], proof: &[u8]) -> bool {
    let replicas = [(id(sector), filecoin_proofs::PublicReplicaInfo::new(comm_r).unwrap())];
    let prover_id = cuzk_filecoin::prover_id(MINER);
    matches!(verify_winning_post::<Tree>(cfg, r, &replicas, prover_id, proof), Ok(true))
}

fn window_verifies(proof_type: RegisteredPoStProof, r: &[u8; 32], sectors: &[&SealedSector], proof: &[u8]) -> bool {
    let cfg = proof_type.as_v1_config();
    let prover_id = cuzk_filecoin::prover_id(MINER);
    matches!(verify_window_post::<Tree>(&cfg, r, &public_replicas(sectors), prover_id, proof), Ok(true))
}

fn decode(bytes: &[Vec<u8>]) -> Vec<FallbackPoStSectorProof<Tree>> {
    bytes.iter().map(|b| bincode::deserialize(b).unwrap()).collect()
}

/// cuzk proves with fixed blinding (r, s), so its bytes must equal
/// bellperson's `create_proof` over the same circuit and parameters.
#[test]
fn winning_post_end_to_end() {
    let (cache, params, path) = params(ProofKind::WinningPoSt);
    let cfg = WINNING.as_v1_config();
    let sector = &sealed().sectors[0];
    let r = randomness(1);
    let vanilla = vanilla(WINNING, &r, &[sector]);
    let req = winning_request(r, vanilla.clone());
    req.check_vanilla().unwrap();
    let partitions = timed("winning: prepare", || req.prepare().unwrap());
    assert_eq!((partitions.circuits.len(), partitions.public_inputs[0].len()), (1, 132));
    assert_eq!(partitions.public_inputs, req.public_inputs().unwrap());
    let circuit = post_circuit(partitions);
    let (blind_r, blind_s) = (Scalar::from(0x1234_5678u64), Scalar::from(0x9abc_def0u64));
    let ours = <Tree as cuzk_filecoin::Shape>::wrap(ShapeCircuit::PoSt(circuit.clone()));
    let bytes = timed("winning: cuzk CPU proof", || {
        let assignments = cuzk_synth::synthesize_batch(vec![ours]).unwrap();
        proofs::join(&cuzk_groth16::prove(&params, &assignments, &[(blind_r, blind_s)]).unwrap())
    });
    assert_eq!(bytes.len(), 192);
    assert!(winning_verifies(&cfg, &r, sector, sector.comm_r(), &bytes), "filecoin-proofs refuses cuzk's proof");
    req.verify(&cache, &bytes).unwrap();

    let bp_params = BpParameters::<Bls12>::build_mapped_parameters(path, false).unwrap();
    let bellperson = timed("winning: bellperson proof, same r and s", || {
        create_proof::<Bls12, _, _>(circuit, &bp_params, blind_r, blind_s).unwrap()
    });
    let mut bellperson_bytes = Vec::new();
    bellperson.write(&mut bellperson_bytes).unwrap();
    assert_eq!(bytes, bellperson_bytes);

    let theirs = timed("winning: filecoin-proofs proof", || {
        generate_winning_post_with_vanilla::<Tree>(&cfg, &r, cuzk_filecoin::prover_id(MINER), decode(&vanilla)).unwrap()
    });
    req.verify(&cache, &theirs).unwrap();

    // What must not verify: the prover id is not an input of the PoSt SNARK
    // (filecoin-notes §9), so only randomness, sector data and bytes count.
    let other_r = randomness(2);
    assert!(!winning_verifies(&cfg, &other_r, sector, sector.comm_r(), &bytes));
    assert!(winning_request(other_r, vanilla.clone()).verify(&cache, &bytes).is_err());
    let other = &sealed().sectors[1];
    assert!(!winning_verifies(&cfg, &r, sector, other.comm_r(), &bytes));
    assert!(!winning_verifies(&cfg, &r, other, other.comm_r(), &bytes));
    let mut flipped = bytes.clone();
    flipped[100] ^= 1;
    assert!(!winning_verifies(&cfg, &r, sector, sector.comm_r(), &flipped));
    assert!(req.verify(&cache, &flipped).is_err());
}

/// WinningPoSt's one sector cuts by its 66 challenges, a WindowPoSt
/// partition by its sectors; either way the witness in parts, and the one
/// replayed from the rows by those blocks, is the whole one.
#[test]
fn post_witness_in_parts_is_the_whole_witness() {
    let r = randomness(7);
    let sectors: Vec<&SealedSector> = sealed().sectors.iter().collect();
    let winning = winning_request(r, vanilla(WINNING, &r, &sectors[..1]));
    common::check_witness_in_parts(|| winning.prepare().unwrap().circuits.remove(0), 3, WitnessPass::Replay);
    let window = window_request(WINDOW, r, 0, vanilla(WINDOW, &r, &sectors[..2]));
    common::check_witness_in_parts(|| window.prepare().unwrap().circuits.remove(0), 2, WitnessPass::Replay);
}

/// The filecoin-proofs circuit inside a prepared 2 KiB request.
fn post_circuit(mut partitions: cuzk_filecoin::Partitions) -> FallbackPoStCircuit<Tree> {
    match partitions.circuits.remove(0) {
        FilecoinCircuit::Base(ShapeCircuit::PoStPartition(p)) => p.circuit,
        _ => panic!("a 2 KiB PoSt request gave another circuit"),
    }
}

#[test]
fn window_post_partitions_merge_and_verify() {
    let (cache, params, _) = params(ProofKind::WindowPoSt);
    let sectors: Vec<&SealedSector> = sealed().sectors.iter().collect();
    let r = randomness(4);
    for (proof_type, abi) in [(WINDOW, 10), (WINDOW_V1, 5)] {
        assert_eq!(proof_from_abi(abi).unwrap(), proof_type);
        let cfg = proof_type.as_v1_config();
        let vanilla = vanilla(proof_type, &r, &sectors);
        // Three sectors: partition 0 holds two, partition 1 one (padded).
        let parts = [(0, vanilla[..2].to_vec()), (1, vanilla[2..].to_vec())];
        let mut merged = Vec::new();
        for (k, v) in &parts {
            let req = window_request(proof_type, r, *k, v.clone());
            let partitions = timed("window: prepare", || req.prepare().unwrap());
            assert_eq!(partitions.public_inputs[0].len(), 22);
            let bytes = timed("window: cuzk CPU proof", || cuzk_prove(partitions, &params, 10 + *k as u64));
            req.verify(&cache, &bytes).unwrap();
            if proof_type == WINDOW && *k == 1 {
                // filecoin-proofs' own proof of the padded partition, Curio's proof type.
                let theirs = timed("window: filecoin-proofs partition proof", || {
                    let prover_id = cuzk_filecoin::prover_id(MINER);
                    generate_single_window_post_with_vanilla::<Tree>(&cfg, &r, prover_id, decode(v), *k).unwrap()
                });
                req.verify(&cache, &theirs.0).unwrap();
            }
            merged.push(PartitionSnarkProof(bytes));
        }
        let merged = merge_window_post_partition_proofs(merged).unwrap();
        assert!(window_verifies(proof_type, &r, &sectors, &merged), "{proof_type:?}: merged proof refused");

        // Partitions out of order, another randomness, a missing or changed
        // sector, a flipped byte: refused.
        let swapped = [&merged[192..], &merged[..192]].concat();
        assert!(!window_verifies(proof_type, &r, &sectors, &swapped));
        assert!(!window_verifies(proof_type, &randomness(5), &sectors, &merged));
        assert!(!window_verifies(proof_type, &r, &sectors[..2], &merged));
        let mut flipped = merged.clone();
        flipped[200] ^= 1;
        assert!(!window_verifies(proof_type, &r, &sectors, &flipped));
    }

    // A deadline of two sectors is one partition, proved alone.
    let vanilla = vanilla(WINDOW, &r, &sectors[..2]);
    let req = window_request(WINDOW, r, 0, vanilla.clone());
    let bytes = cuzk_prove(req.prepare().unwrap(), &params, 20);
    assert!(window_verifies(WINDOW, &r, &sectors[..2], &bytes));
    let mut changed = sealed().sectors.iter().take(2).collect::<Vec<_>>();
    changed[1] = &sealed().sectors[2];
    assert!(!window_verifies(WINDOW, &r, &changed, &bytes));
    assert!(matches!(
        window_request(WINDOW, randomness(6), 0, vanilla).verify(&cache, &bytes),
        Err(FilecoinError::InvalidVanilla { .. } | FilecoinError::ProofInvalid { .. })
    ));
}

#[test]
fn bad_requests_are_refused_before_proving() {
    let sectors: Vec<&SealedSector> = sealed().sectors.iter().collect();
    let r = randomness(7);
    let good = vanilla(WINDOW, &r, &sectors[..2]);
    let input_field = |e: FilecoinError| match e {
        FilecoinError::Input { field, .. } => field,
        other => panic!("expected an input error, got {other}"),
    };

    let req = |k, v: Vec<Vec<u8>>| window_request(WINDOW, r, k, v);
    req(0, good.clone()).check_vanilla().unwrap();
    let far = req(window_post::MAX_PARTITIONS_PER_DEADLINE, good.clone());
    assert_eq!(input_field(far.prepare().err().unwrap()), "partition_index");
    let mut garbled = good.clone();
    garbled[1].truncate(100);
    assert_eq!(input_field(req(0, garbled).prepare().err().unwrap()), "vanilla_proofs[1]");
    // Junk after a valid proof, which filecoin-proofs' decoding ignores.
    let mut junk = good.clone();
    junk[0].extend_from_slice(b"junk");
    assert_eq!(input_field(req(0, junk).prepare().err().unwrap()), "vanilla_proofs[0]");
    // A length prefix claiming 2^61 sector proofs must fail without allocating them.
    let mut hostile = good.clone();
    hostile[0] = [&hostile[0][..40], &(1u64 << 61).to_le_bytes()[..], &hostile[0][48..]].concat();
    assert_eq!(input_field(req(0, hostile).prepare().err().unwrap()), "vanilla_proofs[0]");
    let three = vanilla(WINDOW, &r, &sectors);
    assert_eq!(input_field(req(0, three).prepare().err().unwrap()), "vanilla_proofs");
    assert_eq!(input_field(req(0, Vec::new()).prepare().err().unwrap()), "vanilla_proofs");
    let bad_r = WindowPoStRequest { randomness: [0xff; 32], ..req(0, good.clone()) };
    assert_eq!(input_field(bad_r.prepare().err().unwrap()), "randomness");
    // comm_r (bytes 8..40) that is not a field element.
    let mut non_canonical = good.clone();
    non_canonical[0][8..40].fill(0xff);
    assert_eq!(input_field(req(0, non_canonical).prepare().err().unwrap()), "vanilla_proofs[0]");
    // Another sector's comm_r: well formed, but the vanilla proof fails.
    let mut swapped = good.clone();
    swapped[0][8..40].copy_from_slice(&sectors[1].comm_r());
    assert!(matches!(req(0, swapped).check_vanilla(), Err(FilecoinError::InvalidVanilla { .. })));
    // Api 1.0 challenges depend on the partition index: the wrong one fails the vanilla check.
    let v1 = vanilla(WINDOW_V1, &r, &sectors);
    assert!(matches!(
        window_request(WINDOW_V1, r, 1, v1[..2].to_vec()).prepare(),
        Err(FilecoinError::InvalidVanilla { .. })
    ));

    // Proof types of the other kind, and WinningPoSt's own limits.
    let winning_as_window = window_request(WINNING, r, 0, good.clone());
    assert!(matches!(winning_as_window.prepare(), Err(FilecoinError::UnsupportedProof { .. })));
    let window_as_winning = WinningPoStRequest { proof: WINDOW, ..winning_request(r, good.clone()) };
    assert!(matches!(window_as_winning.prepare(), Err(FilecoinError::UnsupportedProof { .. })));
    let winning_cfg = WINNING.as_v1_config();
    let win = vanilla(WINNING, &r, &sectors[..1]);
    winning_request(r, win.clone()).check_vanilla().unwrap();
    let two = [win.clone(), win.clone()].concat();
    assert_eq!(input_field(winning_request(r, two).prepare().err().unwrap()), "vanilla_proofs");
    // A WindowPoSt vanilla proof (10 challenges) is not a WinningPoSt one (66).
    assert_eq!(input_field(winning_request(r, good[..1].to_vec()).prepare().err().unwrap()), "vanilla_proofs[0]");
    let other_r = randomness(8);
    assert!(matches!(winning_request(other_r, win.clone()).prepare(), Err(FilecoinError::InvalidVanilla { .. })));
    // Two challenges' inclusion proofs swapped: filecoin-proofs' own check
    // (the first challenge only) passes, the SNARK would not verify.
    let mut proof = decode(&win).remove(0);
    proof.vanilla_proof.sectors[0].inclusion_proofs.swap(5, 6);
    let theirs = filecoin_proofs::partition_vanilla_proofs(
        &winning_cfg,
        &filecoin_proofs::parameters::winning_post_public_params::<Tree>(&winning_cfg).unwrap(),
        &storage_proofs_post::fallback::PublicInputs {
            randomness: filecoin_proofs::as_safe_commitment(&r, "randomness").unwrap(),
            prover_id: filecoin_proofs::as_safe_commitment(&cuzk_filecoin::prover_id(MINER), "prover_id").unwrap(),
            sectors: vec![storage_proofs_post::fallback::PublicSector { id: proof.sector_id, comm_r: proof.comm_r }],
            k: None,
        },
        1,
        std::slice::from_ref(&proof),
    );
    assert!(theirs.is_ok());
    let swapped = vec![bincode::serialize(&proof).unwrap()];
    assert!(matches!(winning_request(r, swapped).check_vanilla(), Err(FilecoinError::InvalidVanilla { .. })));
}

#[test]
fn blank_circuits_match_filecoin_proofs_shape() {
    for (kind, proof_type) in [(ProofKind::WindowPoSt, WINDOW), (ProofKind::WinningPoSt, WINNING)] {
        let cfg = proof_type.as_v1_config();
        let pp = match kind {
            ProofKind::WindowPoSt => filecoin_proofs::parameters::window_post_public_params::<Tree>(&cfg),
            _ => filecoin_proofs::parameters::winning_post_public_params::<Tree>(&cfg),
        }
        .unwrap();
        let mut blank_cs = bellperson::util_cs::metric_cs::MetricCS::<Scalar>::new();
        let blank = <FallbackPoStCompound<Tree> as CompoundProof<_, _>>::blank_circuit(&pp);
        bellperson::Circuit::synthesize(blank, &mut blank_cs).unwrap();
        let (inputs, aux) = (blank_cs.num_inputs(), bellperson::util_cs::Comparable::aux(&blank_cs).len());
        let constraints = bellperson::util_cs::Comparable::constraints(&blank_cs);
        let theirs = bellpepper_shape(inputs, aux, constraints);
        let their_bellpepper_hash = bellpepper_hash(Format::Bellpepper, inputs, aux, constraints);
        drop(blank_cs);
        let ours = cuzk_blank_shape(|| match kind {
            ProofKind::WindowPoSt => window_post::blank_circuit(SectorSize::Kib2).unwrap(),
            _ => winning_post::blank_circuit(SectorSize::Kib2).unwrap(),
        });
        assert_eq!(ours.unwrap(), theirs, "{kind:?}");
        eprintln!("{kind:?} 2 KiB: {theirs:?}");

        // A real circuit through both test systems: same shape as the blank
        // one in either hash format, satisfied, inputs as the verifier's.
        let sectors = &sealed().sectors;
        let r = randomness(9);
        let prepared = || match kind {
            ProofKind::WindowPoSt => window_request(proof_type, r, 0, vanilla(proof_type, &r, &[&sectors[0]])).prepare(),
            _ => winning_request(r, vanilla(proof_type, &r, &[&sectors[0]])).prepare(),
        };
        let mut partitions = prepared().unwrap();
        let expected_inputs = partitions.public_inputs.remove(0);
        let cuzk_cs = TestConstraintSystem::synthesize(partitions.circuits.remove(0)).unwrap();
        assert!(cuzk_cs.is_satisfied(), "{:?}", cuzk_cs.which_is_unsatisfied());
        assert!(cuzk_cs.verify(&expected_inputs));
        assert!(cuzk_cs.naming_errors().is_empty());
        assert_eq!(Shape::of_test_cs(&cuzk_cs), theirs);
        let mut bp_cs = bellperson::util_cs::test_cs::TestConstraintSystem::<Scalar>::new();
        bellperson::Circuit::synthesize(post_circuit(prepared().unwrap()), &mut bp_cs).unwrap();
        assert!(bp_cs.is_satisfied());
        assert!(bp_cs.verify(&expected_inputs));
        assert_eq!((bp_cs.num_inputs(), bp_cs.num_constraints()), (theirs.inputs, theirs.constraints));
        assert_eq!(bp_cs.hash(), their_bellpepper_hash);
    }
}

#[test]
fn cache_identifiers_are_filecoin_proofs_own() {
    for (i, size) in SectorSize::ALL.into_iter().enumerate() {
        let window = window_post::cache_identifier(size).unwrap();
        let winning = winning_post::cache_identifier(size).unwrap();
        let api_window = proof_from_abi(10 + i as i64).unwrap().circuit_identifier().unwrap();
        let api_winning = proof_from_abi(i as i64).unwrap().circuit_identifier().unwrap();
        assert_eq!((&window, &winning), (&api_window, &api_winning), "{size}");
        assert!(window.starts_with("proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-"), "{window}");
    }
    // Hash prefixes that parameters.json lists (filecoin-notes §4).
    assert!(winning_post::cache_identifier(SectorSize::Kib2).unwrap().contains("-3ea05428"));
    assert!(window_post::cache_identifier(SectorSize::Kib2).unwrap().contains("-0170db1f"));
    assert!(window_post::cache_identifier(SectorSize::Gib32).unwrap().contains("-0377ded6"));
}
