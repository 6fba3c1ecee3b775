//! What the Filecoin tests of the facade and the CLI share: 2 KiB sectors
//! sealed by filecoin-proofs itself (add piece, pre-commit phases 1 and 2),
//! the PoSt vanilla proofs Curio would send for them, and filecoin-proofs'
//! own verifiers, all through filecoin-proofs-api as Lotus and Curio call it.
#![allow(dead_code)] // each test binary uses its own subset

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use ff::{Field, PrimeField};
use cuzk::filecoin::SectorSize;
use filecoin_proofs_api::post::{generate_winning_post_sector_challenge, verify_window_post, verify_winning_post};
use filecoin_proofs_api::{PublicReplicaInfo, RegisteredPoStProof, SectorId};
use rand::SeedableRng;

/// The miner every fixture uses.
pub const MINER: u64 = 1000;

/// WinningPoSt at 2 KiB (Go's abi number 0).
pub const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;

/// WindowPoSt at 2 KiB as Curio sends it (Go's "V1_1", abi number 10).
pub const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;

/// This test binary's parameter cache directory (empty until a test writes into it).
pub fn params_dir() -> PathBuf {
    scratch().join("params")
}

/// Points filecoin-proofs at [`params_dir`] and at caches of this test run,
/// once per process and before its first use (it reads its settings once).
pub fn init_filecoin_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let scratch = scratch();
        for sub in ["params", "parents", "cache"] {
            std::fs::create_dir_all(scratch.join(sub)).expect("filecoin-proofs caches");
        }
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", params_dir());
        std::env::set_var("FIL_PROOFS_PARENT_CACHE", scratch.join("parents"));
        std::env::set_var("FIL_PROOFS_CACHE_DIR", scratch.join("cache"));
        std::env::set_var("FIL_PROOFS_VERIFY_PRODUCTION_PARAMS", "0");
    });
}

/// The workspace's shared cache of test parameters, the one cuzk-filecoin's
/// and the daemon's tests use (`target/tmp/filecoin-params`): 2 KiB PoRep and
/// SnapDeals parameters cost minutes of CPU each, so a CI run makes them once
/// for every test binary (cargo runs the binaries one after another; files
/// land atomically, so a binary never reads half of one).
pub fn shared_params_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-params")
}

/// Puts `id`'s test parameters into `dir` as links to (or copies of) the
/// shared cache's files, generating them there first when absent.
pub fn link_shared_params(dir: &Path, id: &str) {
    let shared = cuzk::filecoin::ParamCache::new(shared_params_dir());
    let circuit: cuzk::filecoin::CircuitId = id.parse().unwrap();
    let files = shared.files(circuit).unwrap();
    // The .params file is written last: when it is there, all three are.
    if !files.params.exists() {
        std::fs::create_dir_all(shared_params_dir()).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(0xf11ec0);
        timed(&format!("{id} test parameters (shared cache)"), || shared.write_test_params(circuit, &mut rng, None))
            .unwrap();
    }
    shared.mark_as_test_parameters().unwrap();
    cuzk::filecoin::ParamCache::new(dir).mark_as_test_parameters().unwrap();
    for file in [&files.meta, &files.vk, &files.params] {
        let to = dir.join(file.file_name().unwrap());
        let _ = std::fs::remove_file(&to);
        if std::fs::hard_link(file, &to).is_err() {
            std::fs::copy(file, &to).unwrap();
        }
    }
}

/// A directory of this test binary's own, emptied at its first use in a run
/// (so one copy at most stays on disk between runs).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test binary path");
        let name = exe.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-scratch"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    })
}

/// A sealed sector (cuzk-filecoin's test data, made by filecoin-proofs-api).
pub use cuzk::filecoin::testdata::SealedSector as Sector;

/// Three sectors sealed once per test binary (each well under a second):
/// one more than a 2 KiB WindowPoSt partition holds.
pub fn sectors() -> &'static [Sector] {
    static SEALED: OnceLock<Vec<Sector>> = OnceLock::new();
    SEALED.get_or_init(|| {
        init_filecoin_env();
        let dir = scratch().join("sectors");
        std::fs::create_dir_all(&dir).expect("sector directory");
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        (0..3).map(|i| Sector::seal(&dir, SectorSize::Kib2, MINER, 200 + i, &mut rng).expect("seal")).collect()
    })
}

/// Randomness that is a field element, as the chain's is after hashing.
pub fn randomness(seed: u64) -> [u8; 32] {
    blstrs::Scalar::random(rand::rngs::StdRng::seed_from_u64(seed)).to_repr()
}

/// The vanilla proofs (bincode, as filecoin-proofs-api writes them) of
/// `sectors`, challenged by `proof` under `randomness`.
pub fn vanilla(proof: RegisteredPoStProof, randomness: &[u8; 32], sectors: &[&Sector]) -> Vec<Vec<u8>> {
    Sector::post_vanilla(proof, randomness, sectors).expect("vanilla proofs")
}

/// The WinningPoSt sector filecoin-proofs challenges among `sectors` under `randomness`.
pub fn winning_sector<'a>(randomness: &[u8; 32], sectors: &'a [Sector]) -> &'a Sector {
    let prover_id = cuzk::filecoin::prover_id(MINER);
    let picked = generate_winning_post_sector_challenge(WINNING, randomness, sectors.len() as u64, prover_id)
        .expect("winning sector challenge");
    &sectors[picked[0] as usize]
}

fn replicas(proof: RegisteredPoStProof, sectors: &[&Sector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (SectorId::from(s.number), PublicReplicaInfo::new(proof, s.comm_r()))).collect()
}

/// filecoin-proofs' own WinningPoSt verifier on `proof` for `sector`.
pub fn winning_verifies(randomness: &[u8; 32], sector: &Sector, proof: &[u8]) -> bool {
    let prover_id = cuzk::filecoin::prover_id(MINER);
    verify_winning_post(randomness, proof, &replicas(WINNING, &[sector]), prover_id).expect("verify_winning_post")
}

/// filecoin-proofs' own WindowPoSt verifier on `proof` (every partition's
/// proof, concatenated) for all of `sectors`.
pub fn window_verifies(randomness: &[u8; 32], sectors: &[&Sector], proof: &[u8]) -> bool {
    let prover_id = cuzk::filecoin::prover_id(MINER);
    verify_window_post(randomness, &[(WINDOW, proof)], &replicas(WINDOW, sectors), prover_id)
        .expect("verify_window_post")
}

/// A test's wall time, printed so a run shows where the time goes.
pub fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let out = f();
    eprintln!("{what}: {:.2} s", started.elapsed().as_secs_f64());
    out
}
