//! 2 KiB Filecoin inputs for the daemon tests, made by filecoin-proofs
//! itself through `cuzk_filecoin::testdata`: sectors sealed once per test
//! binary, PoSt vanilla proofs, a C1 output in Curio's `c1.json` wrapper, a
//! SnapDeals update of a committed-capacity sector; the requests Curio's
//! client would send for them, random test parameters in the shared
//! directory, and filecoin-proofs' own verifiers (`cuzk_filecoin::reference`)
//! for the bytes the daemon returns.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, OnceLock};

use blstrs::Scalar;
use cuzk_daemon::proto;
use cuzk_filecoin::commitment::{to_cid_bytes, CommitmentKind};
use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::post::{abi_number, RegisteredPoStProof};
use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::testdata::{self, curio_c1_wrapper, SealedSector, SnapInputs};
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::{reference, CircuitId, ParamCache, ProofKind, SectorSize};
use ff::{Field, PrimeField};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// The miner of every fixture.
pub const MINER: u64 = 1000;
pub const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
pub const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
/// Go's `abi.RegisteredSealProof` of the sealed sectors (StackedDrg2KiBV1_1).
pub const SEAL_PROOF: u64 = 5;
/// Go's `abi.RegisteredUpdateProof` of the update (StackedDrg2KiBV1).
pub const UPDATE_PROOF: u64 = 0;
/// The sector number of the sector a PoRep is proved for.
pub const POREP_SECTOR: u64 = 7;

/// Points filecoin-proofs at the shared directory before its first use (it
/// reads its settings once).
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

/// Random test parameters for `kind` at 2 KiB in the shared directory
/// (made the first time any test binary asks: PoRep takes minutes).
pub fn params(kind: ProofKind) {
    static GENERATING: Mutex<()> = Mutex::new(());
    init_env();
    let id = CircuitId::new(kind, SectorSize::Kib2);
    let cache = ParamCache::new(super::param_dir());
    // A cache generated before cuzk marked its test parameters gets the mark.
    cache.mark_as_test_parameters().unwrap();
    let files = cache.files(id).unwrap();
    let present = || files.params.exists() && files.vk.exists() && files.meta.exists();
    // Looked at before the lock too, so a test whose parameters are there
    // does not wait for another kind's being generated.
    if present() {
        return;
    }
    let _guard = GENERATING.lock().unwrap_or_else(|p| p.into_inner());
    if !present() {
        let started = std::time::Instant::now();
        cache.write_test_params(id, &mut ChaCha20Rng::seed_from_u64(0xda3), None).unwrap();
        eprintln!("generated test parameters for {id} in {:.1} s", started.elapsed().as_secs_f64());
    }
}

/// A directory of this test binary's own for sealed sectors, emptied at its
/// first use in a run (so one copy at most stays on disk between runs).
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let name = exe.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-sectors"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Two sectors sealed once per binary (well under a second each), the PoSt fixtures.
pub fn sectors() -> &'static [SealedSector] {
    static SEALED: OnceLock<Vec<SealedSector>> = OnceLock::new();
    SEALED.get_or_init(|| {
        init_env();
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        (0..2).map(|i| SealedSector::seal(scratch(), SectorSize::Kib2, MINER, 200 + i, &mut rng).unwrap()).collect()
    })
}

/// Randomness that is a field element.
pub fn randomness(seed: u64) -> [u8; 32] {
    Scalar::random(ChaCha20Rng::seed_from_u64(seed)).to_repr()
}

fn vanilla(proof: RegisteredPoStProof, randomness: &[u8; 32], sectors: &[&SealedSector]) -> Vec<Vec<u8>> {
    SealedSector::post_vanilla(proof, randomness, sectors).unwrap()
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
    let all: Vec<&SealedSector> = sectors().iter().collect();
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

/// filecoin-proofs' verdict on a WinningPoSt proof of sector 0 under randomness `seed`.
pub fn winning_verifies(seed: u64, proof: &[u8]) -> bool {
    let r = randomness(seed);
    let vanilla = vanilla(WINNING, &r, &[&sectors()[0]]);
    let req = WinningPoStRequest { proof: WINNING, randomness: r, miner_id: MINER, vanilla };
    matches!(reference::winning_post(&req, proof), Ok(true))
}

/// filecoin-proofs' verdict on a WindowPoSt proof of both sectors under randomness `seed`.
pub fn window_verifies(seed: u64, proof: &[u8]) -> bool {
    let r = randomness(seed);
    let all: Vec<&SealedSector> = sectors().iter().collect();
    let vanilla = vanilla(WINDOW, &r, &all);
    let req = WindowPoStRequest { proof: WINDOW, randomness: r, miner_id: MINER, partition_index: 0, vanilla };
    matches!(reference::window_post(&req, proof), Ok(true))
}

/// A sector's C1 output, as filecoin-ffi returns it and as Curio wraps it.
pub struct C1 {
    /// filecoin-ffi's JSON of the C1 output.
    pub json: Vec<u8>,
    /// Curio's `c1.json` wrapper around it.
    pub wrapper: Vec<u8>,
}

/// Sector [`POREP_SECTOR`] sealed and committed (phase 1) once per binary,
/// with the PoRep parameters in place.
pub fn c1() -> &'static C1 {
    static C1: OnceLock<C1> = OnceLock::new();
    params(ProofKind::PoRepC2);
    C1.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(0xc1);
        let sector = SealedSector::seal(scratch(), SectorSize::Kib2, MINER, POREP_SECTOR, &mut rng).unwrap();
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let json = sector.c1_json(seed).unwrap();
        let wrapper = curio_c1_wrapper(&json, POREP_SECTOR, SectorSize::Kib2);
        C1 { json, wrapper }
    })
}

/// A PoRep request as Curio's `PoRepSnarkCuzk` fills it.
pub fn porep_request(id: &str) -> proto::SubmitProofRequest {
    proto::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: proto::ProofKind::PorepSealCommit as i32,
        sector_size: 2048,
        registered_proof: SEAL_PROOF,
        priority: proto::Priority::Normal as i32,
        vanilla_proof: c1().wrapper.clone(),
        sector_number: POREP_SECTOR,
        miner_id: MINER,
        ..Default::default()
    }
}

/// filecoin-proofs' `verify_seal` verdict on a PoRep proof of the fixture sector.
pub fn porep_verifies(proof: &[u8]) -> bool {
    let req = PoRepRequest::from_curio_wrapper(&c1().wrapper, MINER).unwrap();
    matches!(reference::porep(&req, proof), Ok(true))
}

/// A committed-capacity sector updated with new data once per binary, with
/// the SnapDeals parameters in place.
pub fn snap() -> &'static SnapInputs {
    static SNAP: OnceLock<SnapInputs> = OnceLock::new();
    params(ProofKind::SnapDeals);
    SNAP.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x5a9);
        let cc = SealedSector::seal_cc(scratch(), SectorSize::Kib2, MINER, 300, &mut rng).unwrap();
        testdata::update(&cc, scratch(), &mut rng).unwrap()
    })
}

/// A SnapDeals request as Curio's `ProveUpdateCuzk` fills it (commitments as CID bytes).
pub fn snap_request(id: &str) -> proto::SubmitProofRequest {
    let s = snap();
    proto::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: proto::ProofKind::SnapDealsUpdate as i32,
        sector_size: 2048,
        registered_proof: UPDATE_PROOF,
        priority: proto::Priority::Normal as i32,
        vanilla_proofs: s.vanilla.clone(),
        sector_number: 300,
        miner_id: MINER,
        comm_r_old: to_cid_bytes(CommitmentKind::Sealed, &s.comm_r_old),
        comm_r_new: to_cid_bytes(CommitmentKind::Sealed, &s.comm_r_new),
        comm_d_new: to_cid_bytes(CommitmentKind::Unsealed, &s.comm_d_new),
        ..Default::default()
    }
}

/// filecoin-proofs' `verify_empty_sector_update_proof` verdict on a SnapDeals proof of the fixture update.
pub fn snap_verifies(proof: &[u8]) -> bool {
    let s = snap();
    let req = SnapRequest::new(s.proof, s.vanilla.clone(), &s.comm_r_old, &s.comm_r_new, &s.comm_d_new).unwrap();
    matches!(reference::snap(&req, proof), Ok(true))
}
