//! The Filecoin kinds on the GPU (in the GPU bundle): every kind at 2 KiB,
//! inputs made by filecoin-proofs (sealed sectors, C1, PoSt vanilla proofs,
//! a SnapDeals update), proved by an engine on cuda:0 with recorded
//! synthesis, twice (the first proof records the shape; the second computes
//! its witness in parts where the circuit cuts, and the device computes
//! a, b, c from it), and every proof accepted by filecoin-proofs' own
//! verifier; a proof with a flipped byte is refused by it.
//!
//! The custom harness of cuzk-gpu's device tests: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU).

#[path = "../../cuzk-gpu/tests/harness/mod.rs"]
mod harness;
mod filecoin_support;

use cuzk::filecoin::porep::PoRepRequest;
use cuzk::filecoin::snap::SnapRequest;
use cuzk::filecoin::testdata::{self, SealedSector};
use cuzk::filecoin::window_post::WindowPoStRequest;
use cuzk::filecoin::winning_post::WinningPoStRequest;
use cuzk::filecoin::{default_priority, reference, FilecoinError, ParamCache, Request, SectorSize};
use cuzk::{BackendChoice, Config, Engine, SynthesisMode};
use cuzk_gpu::Device;
use filecoin_support::{randomness, sectors, timed, vanilla, winning_sector, MINER, WINDOW, WINNING};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] =
    &[("every_kind_proves_on_the_gpu_and_filecoin_proofs_accepts_it", every_kind_proves_on_the_gpu_and_filecoin_proofs_accepts_it)];

fn main() {
    harness::run("GPU Filecoin", TESTS)
}

/// filecoin-proofs' verdict on `proof` for `request`: `Ok(false)` for a
/// proof that does not verify, an error for bytes that are not a proof
/// (a point off its curve).
fn filecoin_proofs_verdict(request: &Request, proof: &[u8]) -> Result<bool, FilecoinError> {
    match request {
        Request::PoRepC2(r) => reference::porep(r, proof),
        Request::WinningPoSt(r) => reference::winning_post(r, proof),
        Request::WindowPoSt(r) => reference::window_post(r, proof),
        Request::SnapDeals(r) => reference::snap(r, proof),
    }
}

/// One request of each kind at 2 KiB, from sectors filecoin-proofs sealed.
fn requests(rng: &mut ChaCha20Rng) -> Vec<Request> {
    let r = randomness(rng.next_u64());
    let winning = WinningPoStRequest {
        proof: WINNING,
        randomness: r,
        miner_id: MINER,
        vanilla: vanilla(WINNING, &r, &[winning_sector(&r, sectors())]),
    };
    let pair: Vec<&SealedSector> = sectors().iter().take(2).collect();
    let window =
        WindowPoStRequest { proof: WINDOW, randomness: r, miner_id: MINER, partition_index: 0, vanilla: vanilla(WINDOW, &r, &pair) };
    let dir = filecoin_support::scratch().join("gpu-sectors");
    std::fs::create_dir_all(&dir).unwrap();
    let mut seal_rng = rand::rngs::StdRng::seed_from_u64(rng.next_u64());
    let sector = SealedSector::seal(&dir, SectorSize::Kib2, MINER, 300, &mut seal_rng).unwrap();
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let porep = PoRepRequest::from_c1_json(&sector.c1_json(seed).unwrap(), 300, MINER).unwrap();
    let cc = SealedSector::seal_cc(&dir, SectorSize::Kib2, MINER, 301, &mut seal_rng).unwrap();
    let update = testdata::update(&cc, &dir, &mut seal_rng).unwrap();
    let snap = SnapRequest::new(update.proof, update.vanilla, &update.comm_r_old, &update.comm_r_new, &update.comm_d_new)
        .unwrap();
    vec![winning.into(), window.into(), porep.into(), snap.into()]
}

fn every_kind_proves_on_the_gpu_and_filecoin_proofs_accepts_it(_: &Device, rng: &mut ChaCha20Rng) {
    filecoin_support::init_filecoin_env();
    let cache = ParamCache::new(filecoin_support::params_dir());
    let requests = requests(rng);
    let config = Config { backend: BackendChoice::Cuda(Some(0)), synthesis: SynthesisMode::Recorded, ..Config::default() };
    let engine = Engine::new(config).unwrap();
    for request in &requests {
        let id = request.circuit_id().unwrap();
        let mut params_rng = rand::rngs::StdRng::seed_from_u64(rng.next_u64());
        timed(&format!("{id} test parameters"), || cache.write_test_params(id, &mut params_rng, None)).unwrap();
        for run in ["recording", "recorded"] {
            let proved = timed(&format!("{id} on the GPU ({run})"), || {
                cuzk::filecoin::prove(&engine, &cache, request, default_priority(request.kind())).unwrap()
            });
            assert_eq!(proved.backend, "cuda:0", "{id}");
            let verdict = filecoin_proofs_verdict(request, &proved.bytes);
            assert!(matches!(verdict, Ok(true)), "{id} ({run}): filecoin-proofs refuses cuzk's proof: {verdict:?}");
            let mut flipped = proved.bytes.clone();
            flipped[17] ^= 1;
            let verdict = filecoin_proofs_verdict(request, &flipped);
            assert!(!matches!(verdict, Ok(true)), "{id}: a proof with a flipped byte verifies");
        }
    }
}
