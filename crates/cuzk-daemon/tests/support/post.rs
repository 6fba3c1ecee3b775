//! 2 KiB PoSt inputs made by filecoin-proofs itself: sectors sealed once per
//! test binary (add piece, pre-commit phases 1 and 2), vanilla proofs as
//! Curio sends them, random test parameters in the shared directory, and
//! filecoin-proofs' verifiers for the bytes the daemon returns.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::{Mutex, Once, OnceLock};

use blstrs::Scalar;
use cuzk_daemon::proto;
use cuzk_filecoin::post::{abi_number, RegisteredPoStProof};
use cuzk_filecoin::{CircuitId, ParamCache, ProofKind, SectorSize};
use ff::{Field, PrimeField};
use filecoin_proofs::{
    add_piece, generate_fallback_sector_challenges, generate_piece_commitment, generate_single_vanilla_proof,
    seal_pre_commit_phase1, seal_pre_commit_phase2, PaddedBytesAmount, PoRepConfig, PrivateReplicaInfo,
    PublicReplicaInfo, SectorShapeBase, UnpaddedBytesAmount,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::sector::SectorId;

type Tree = SectorShapeBase;

/// The miner of every fixture.
pub const MINER: u64 = 1000;
pub const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
pub const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;

/// Points filecoin-proofs at the shared directory before its first use.
fn init_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let root = super::param_dir();
        for sub in ["parents", "cache"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &root);
        std::env::set_var("FIL_PROOFS_PARENT_CACHE", root.join("parents"));
        std::env::set_var("FIL_PROOFS_CACHE_DIR", root.join("cache"));
        std::env::set_var("FIL_PROOFS_VERIFY_PRODUCTION_PARAMS", "0");
    });
}

/// Random test parameters for `kind` at 2 KiB in the shared directory.
pub fn params(kind: ProofKind) {
    static GENERATING: Mutex<()> = Mutex::new(());
    init_env();
    let _guard = GENERATING.lock().unwrap_or_else(|p| p.into_inner());
    let id = CircuitId::new(kind, SectorSize::Kib2);
    let cache = ParamCache::new(super::param_dir());
    let files = cache.files(id).unwrap();
    if !(files.params.exists() && files.vk.exists() && files.meta.exists()) {
        let started = std::time::Instant::now();
        cache.write_test_params(id, &mut ChaCha20Rng::seed_from_u64(0xda3), None).unwrap();
        eprintln!("generated test parameters for {id} in {:.1} s", started.elapsed().as_secs_f64());
    }
}

/// One sealed 2 KiB sector.
pub struct Sector {
    pub id: SectorId,
    pub comm_r: [u8; 32],
    replica: PathBuf,
    cache: PathBuf,
}

struct Sealed {
    _dir: tempfile::TempDir,
    sectors: Vec<Sector>,
}

/// Two sectors sealed once per binary (well under a second each).
pub fn sectors() -> &'static [Sector] {
    static SEALED: OnceLock<Sealed> = OnceLock::new();
    &SEALED
        .get_or_init(|| {
            init_env();
            let dir = tempfile::tempdir().unwrap();
            let mut rng = ChaCha20Rng::seed_from_u64(11);
            let sectors = (0..2).map(|i| seal(&dir, &mut rng, 200 + i)).collect();
            Sealed { _dir: dir, sectors }
        })
        .sectors
}

fn seal(dir: &tempfile::TempDir, rng: &mut ChaCha20Rng, number: u64) -> Sector {
    let mut porep_id = [0u8; 32];
    porep_id[..8].copy_from_slice(&5u64.to_le_bytes()); // StackedDrg2KiBV1_1
    let cfg = PoRepConfig::new_groth16(2048, porep_id, ApiVersion::V1_1_0);
    let size = UnpaddedBytesAmount::from(PaddedBytesAmount(2048));
    let mut piece = vec![0u8; size.0 as usize];
    rng.fill_bytes(&mut piece);
    let info = generate_piece_commitment(piece.as_slice(), size).unwrap();
    let base = dir.path().join(format!("s{number}"));
    let (staged, replica, cache) = (base.with_extension("staged"), base.with_extension("sealed"), base.join("cache"));
    std::fs::create_dir_all(&cache).unwrap();
    add_piece(piece.as_slice(), File::create(&staged).unwrap(), size, &[]).unwrap();
    File::create(&replica).unwrap();
    let mut ticket = [0u8; 32];
    rng.fill_bytes(&mut ticket);
    let id = SectorId::from(number);
    let p1 = seal_pre_commit_phase1::<_, _, _, Tree>(
        &cfg,
        &cache,
        &staged,
        &replica,
        cuzk_filecoin::prover_id(MINER),
        id,
        ticket,
        &[info],
    )
    .unwrap();
    let out = seal_pre_commit_phase2(&cfg, p1, &cache, &replica).unwrap();
    Sector { id, comm_r: out.comm_r, replica, cache }
}

/// Randomness that is a field element.
pub fn randomness(seed: u64) -> [u8; 32] {
    Scalar::random(ChaCha20Rng::seed_from_u64(seed)).to_repr()
}

/// Vanilla proofs of `sectors` under `proof`, bincode as filecoin-proofs-api writes them.
pub fn vanilla(proof: RegisteredPoStProof, randomness: &[u8; 32], sectors: &[&Sector]) -> Vec<Vec<u8>> {
    let cfg = proof.as_v1_config();
    let ids: Vec<SectorId> = sectors.iter().map(|s| s.id).collect();
    let challenges =
        generate_fallback_sector_challenges::<Tree>(&cfg, randomness, &ids, cuzk_filecoin::prover_id(MINER)).unwrap();
    sectors
        .iter()
        .map(|s| {
            let replica = PrivateReplicaInfo::<Tree>::new(s.replica.clone(), s.comm_r, s.cache.clone()).unwrap();
            let p = generate_single_vanilla_proof::<Tree>(&cfg, s.id, &replica, &challenges[&s.id]).unwrap();
            bincode::serialize(&p).unwrap()
        })
        .collect()
}

/// A WinningPoSt request for sector 0 (priority left to the daemon).
pub fn winning_request(id: &str, seed: u64) -> proto::SubmitProofRequest {
    params(ProofKind::WinningPoSt);
    let r = randomness(seed);
    proto::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: proto::ProofKind::WinningPost as i32,
        sector_size: 2048,
        registered_proof: abi_number(WINNING) as u64,
        randomness: r.to_vec(),
        miner_id: MINER,
        vanilla_proofs: vanilla(WINNING, &r, &[&sectors()[0]]),
        ..Default::default()
    }
}

/// A WindowPoSt request for both sectors, partition 0.
pub fn window_request(id: &str, seed: u64) -> proto::SubmitProofRequest {
    params(ProofKind::WindowPoSt);
    let r = randomness(seed);
    let all: Vec<&Sector> = sectors().iter().collect();
    proto::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: proto::ProofKind::WindowPostPartition as i32,
        sector_size: 2048,
        registered_proof: abi_number(WINDOW) as u64,
        randomness: r.to_vec(),
        miner_id: MINER,
        vanilla_proofs: vanilla(WINDOW, &r, &all),
        ..Default::default()
    }
}

/// filecoin-proofs' verdict on a WinningPoSt proof of sector 0.
pub fn winning_verifies(seed: u64, proof: &[u8]) -> bool {
    let s = &sectors()[0];
    let replicas = [(s.id, PublicReplicaInfo::new(s.comm_r).unwrap())];
    let prover_id = cuzk_filecoin::prover_id(MINER);
    let cfg = WINNING.as_v1_config();
    let verdict = filecoin_proofs::verify_winning_post::<Tree>(&cfg, &randomness(seed), &replicas, prover_id, proof);
    matches!(verdict, Ok(true))
}

/// filecoin-proofs' verdict on a WindowPoSt proof of both sectors.
pub fn window_verifies(seed: u64, proof: &[u8]) -> bool {
    let replicas: BTreeMap<SectorId, PublicReplicaInfo> =
        sectors().iter().map(|s| (s.id, PublicReplicaInfo::new(s.comm_r).unwrap())).collect();
    let prover_id = cuzk_filecoin::prover_id(MINER);
    let cfg = WINDOW.as_v1_config();
    let verdict = filecoin_proofs::verify_window_post::<Tree>(&cfg, &randomness(seed), &replicas, prover_id, proof);
    matches!(verdict, Ok(true))
}
