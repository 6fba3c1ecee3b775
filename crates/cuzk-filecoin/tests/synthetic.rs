//! Synthetic PoRep inputs (no sector sealed) against filecoin-proofs' own
//! checks: storage-proofs' `verify_all_partitions` accepts their vanilla
//! proofs at every tree shape (base, sub-tree and top-tree, as 32 and 64 GiB
//! use), refuses them once tampered with, a request accepts the C1 output as
//! Curio would send it, and `verify_seal` accepts cuzk's proof of one; and
//! synthetic PoSt vanilla proofs and SnapDeals updates pass the requests'
//! checks (filecoin-proofs' own vanilla verification) at every size.

mod common;

use std::time::Instant;

use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::synthetic::{porep_c1, post_vanilla, snap_update, vanilla_proofs, SectorIds};
use cuzk_filecoin::testdata::{window_proof, winning_proof};
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::{proofs, prover_id, CircuitId, ProofKind, SectorSize};
use cuzk_groth16::{Parameters, PointChecks};
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_proofs::constants::{SECTOR_SIZE_16_KIB, SECTOR_SIZE_32_KIB, SECTOR_SIZE_4_KIB};
use filecoin_proofs::{PoRepConfig, SectorShape16KiB, SectorShape32KiB, SectorShape4KiB};
use filecoin_proofs_api::seal;
use filecoin_proofs_api::SectorId;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{EncodingProof, LabelingProof, PublicInputs, StackedDrg, Tau};

const MINER: u64 = 1000;
const SECTOR: u64 = 42;
const TICKET: [u8; 32] = [7; 32];
const SEED: [u8; 32] = [9; 32];

fn ids() -> SectorIds {
    SectorIds { prover_id: prover_id(MINER), sector_number: SECTOR, ticket: TICKET, seed: SEED }
}

/// Vanilla proofs at a test size with sub or top trees, checked again here by
/// storage-proofs, then tampered with three ways and refused each time.
fn check_shape<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>>(sector_size: u64) {
    let mut porep_id = [0u8; 32];
    porep_id[..8].copy_from_slice(&5u64.to_le_bytes());
    let config = PoRepConfig::new_groth16(sector_size, porep_id, ApiVersion::V1_1_0);
    let started = Instant::now();
    let mut sector = vanilla_proofs::<Tree>(&config, &ids()).unwrap();
    eprintln!("{sector_size}-byte synthetic sector in {:.3} s", started.elapsed().as_secs_f64());
    let pp = filecoin_proofs::parameters::public_params::<Tree>(&config).unwrap();
    let pub_in = PublicInputs {
        replica_id: sector.replica_id,
        seed: Some(SEED),
        tau: Some(Tau { comm_d: sector.comm_d, comm_r: sector.comm_r }),
        k: None,
    };
    let verify = |proofs: &[Vec<_>]| StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(&pp, &pub_in, proofs).unwrap();
    assert!(verify(&sector.proofs), "{sector_size}: storage-proofs rejects the synthetic proofs");
    assert!(sector.proofs.iter().all(|p| !p.is_empty()));

    let layers = sector.proofs[0][0].labeling_proofs.len();
    let node = sector.proofs[0][0].replica_column_proofs.c_x.get_node_at_layer(1).copied().unwrap();
    let challenge = sector.proofs[0][0].comm_r_last_proof.path_index() as u64;

    let original = sector.proofs[0][0].labeling_proofs[0].clone();
    sector.proofs[0][0].labeling_proofs[0] = LabelingProof::new(1, challenge, vec![node; 37]);
    assert!(!verify(&sector.proofs), "{sector_size}: a wrong layer-1 labeling proof is accepted");
    sector.proofs[0][0].labeling_proofs[0] = original;

    let original = sector.proofs[0][0].encoding_proof.clone();
    sector.proofs[0][0].encoding_proof = EncodingProof::new(layers as u32, challenge + 1, vec![node; 37]);
    assert!(!verify(&sector.proofs), "{sector_size}: a wrong encoding proof is accepted");
    sector.proofs[0][0].encoding_proof = original;

    let last = sector.proofs[0].len() - 1;
    sector.proofs[0].swap(0, last);
    if last > 0 {
        assert!(!verify(&sector.proofs), "{sector_size}: proofs of swapped challenges are accepted");
    }
    sector.proofs[0].swap(0, last);
    assert!(verify(&sector.proofs));
}

#[test]
fn vanilla_proofs_at_sub_and_top_tree_shapes() {
    check_shape::<SectorShape4KiB>(SECTOR_SIZE_4_KIB);
    check_shape::<SectorShape16KiB>(SECTOR_SIZE_16_KIB);
    check_shape::<SectorShape32KiB>(SECTOR_SIZE_32_KIB);
}

/// The C1 output at every size, 32 and 64 GiB included: a committed-capacity
/// comm_d (compared with filecoin-proofs' up to 8 MiB), and a request that accepts it (replica id, partition and challenge
/// counts) and whose vanilla check passes, after a JSON round trip.
#[test]
fn c1_outputs_at_every_size_are_accepted() {
    for size in SectorSize::ALL {
        let started = Instant::now();
        let c1 = porep_c1(size, MINER, SECTOR, TICKET, SEED).unwrap();
        let json = serde_json::to_vec(&c1).unwrap();
        eprintln!("{size}: C1 in {:.2} s, {} bytes of JSON", started.elapsed().as_secs_f64(), json.len());
        // filecoin-proofs streams the sector's zeros through a tree kept whole: the small sizes only.
        if size.bytes() <= 8 << 20 {
            let cc = filecoin_proofs::compute_comm_d(filecoin_proofs::SectorSize(size.bytes()), &[]).unwrap();
            assert_eq!(c1.comm_d, cc, "{size}: comm_d is not the committed-capacity comm_d");
        }
        let req = PoRepRequest::from_c1_json(&json, SECTOR, MINER).unwrap();
        req.check_vanilla().unwrap();
        assert!(PoRepRequest::from_c1_json(&json, SECTOR + 1, MINER).is_err());
    }
}

/// cuzk proves a synthetic 2 KiB C1 on the CPU and filecoin-proofs'
/// `verify_seal` accepts the proof.
#[test]
fn verify_seal_accepts_a_proof_of_a_synthetic_c1() {
    let id = CircuitId { kind: ProofKind::PoRepC2, sector_size: SectorSize::Kib2 };
    let cache = common::test_params(id);
    let c1 = porep_c1(SectorSize::Kib2, MINER, SECTOR, TICKET, SEED).unwrap();
    let req = PoRepRequest::new(c1.clone(), SECTOR, MINER).unwrap();
    let params = Parameters::read(&cache.files(id).unwrap().params, PointChecks::None).unwrap();
    let ours = cuzk_groth16::create_random_proofs(req.prepare().unwrap().circuits, &params, &mut ChaCha20Rng::seed_from_u64(1))
        .unwrap();
    let bytes = proofs::join(&ours);
    let (prover, sector) = (prover_id(MINER), SectorId::from(SECTOR));
    let proof = c1.registered_proof;
    assert!(seal::verify_seal(proof, c1.comm_r, c1.comm_d, prover, sector, c1.ticket, c1.seed, &bytes).unwrap());
    req.verify(&cache, &bytes).unwrap();
}

/// WindowPoSt (several sectors) and WinningPoSt (one) vanilla proofs at every
/// size pass filecoin-proofs' vanilla verification through the requests, and
/// one with a flipped byte is refused.
#[test]
fn post_vanilla_proofs_at_every_size_are_accepted() {
    let randomness = [5u8; 32];
    for size in SectorSize::ALL {
        let started = Instant::now();
        // A test-size partition holds 2 sectors; a production one thousands (12 here).
        let sectors: Vec<u64> = (100..if size.is_test_size() { 102 } else { 112 }).collect();
        let vanilla = post_vanilla(window_proof(size), MINER, randomness, &sectors).unwrap();
        let window = WindowPoStRequest { proof: window_proof(size), randomness, miner_id: MINER, partition_index: 0, vanilla };
        window.check_vanilla().unwrap();
        let vanilla = post_vanilla(winning_proof(size), MINER, randomness, &[7]).unwrap();
        let winning = WinningPoStRequest { proof: winning_proof(size), randomness, miner_id: MINER, vanilla };
        winning.check_vanilla().unwrap();
        eprintln!("{size}: {} WindowPoSt sectors and a WinningPoSt sector in {:.2} s", sectors.len(), started.elapsed().as_secs_f64());

        let mut flipped = window.clone();
        let at = flipped.vanilla[1].len() / 2;
        flipped.vanilla[1][at] ^= 1;
        assert!(flipped.check_vanilla().is_err(), "{size}: a sector proof with a flipped byte is accepted");
    }
}

/// A SnapDeals update with zero new data at every size passes filecoin-proofs'
/// vanilla verification through the request (every partition), and one
/// with a flipped byte, or with comm_d_new of other data, is refused.
#[test]
fn snap_updates_at_every_size_are_accepted() {
    for size in SectorSize::ALL {
        let started = Instant::now();
        let u = snap_update(size).unwrap();
        let request = |vanilla: Vec<Vec<u8>>, comm_d_new: &[u8; 32]| {
            SnapRequest::new(u.proof, vanilla, &u.comm_r_old, &u.comm_r_new, comm_d_new).unwrap()
        };
        request(u.vanilla.clone(), &u.comm_d_new).check_vanilla().unwrap();
        eprintln!("{size}: {} SnapDeals partitions in {:.2} s", u.vanilla.len(), started.elapsed().as_secs_f64());
        let mut flipped = u.vanilla.clone();
        let last = flipped.len() - 1;
        let at = flipped[last].len() / 2;
        flipped[last][at] ^= 1;
        assert!(request(flipped, &u.comm_d_new).check_vanilla().is_err(), "{size}: a flipped byte is accepted");
        let mut other_d = u.comm_d_new;
        other_d[0] ^= 1;
        assert!(request(u.vanilla.clone(), &other_d).check_vanilla().is_err(), "{size}: another comm_d_new is accepted");
    }
}
