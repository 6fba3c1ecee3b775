//! The largest verified GPU proofs: mul-chain of 2^22 and 2^23 constraints
//! (2^23 and 2^24 domains) with real random parameters, one circuit each,
//! proved on the device with a resident SRS and checked by our verifier:
//! once while the h query's MSM table may still be building, once with it.
//! Random bases tiled on the device (`GpuSrs::tiled_for_timing`) would be
//! faster to make but cannot verify, so the CPU setup runs here: ~1 and ~2
//! minutes on the H200 host's 16 cores (scaled from mul-chain 2^20's 15.9 s,
//! PERF.md); each case prints its setup, synthesis, proof and verification
//! times.
//!
//! The same custom harness as tests/gpu.rs: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU). The seed is printed
//! first and can be fixed with CUZK_SEED.

mod harness;

use std::time::Instant;

use blstrs::Scalar;
use cuzk_gpu::{prove, Device, GpuSrs, SrsPlacement};
use cuzk_groth16::{generate_random_parameters, prepare_verifying_key, random_nonzero_scalar, verify_proof};
use cuzk_synth::workloads::Workload;
use cuzk_synth::synthesize_batch;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("mul_chain_2_22_verifies_in_a_2_23_domain", mul_chain_2_22_verifies_in_a_2_23_domain),
    ("mul_chain_2_23_verifies_in_a_2_24_domain", mul_chain_2_23_verifies_in_a_2_24_domain),
];

fn main() {
    harness::run("GPU scale", TESTS)
}

fn seconds_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// Sets up mul-chain `1 << log_size`, proves one circuit twice on the
/// device (before and after the h table is ready) and verifies both.
fn verified_case(device: &Device, rng: &mut ChaCha20Rng, log_size: u32, log_domain: u32) {
    let size = 1usize << log_size;
    let what = format!("mul-chain 2^{log_size}");
    let start = Instant::now();
    let params = generate_random_parameters(Workload::MulChain.circuit::<Scalar>(size, rng.next_u64()).unwrap(), rng, None)
        .unwrap_or_else(|e| panic!("{what}: setup: {e}"));
    let setup_s = seconds_since(start);
    assert_eq!(params.h.len() + 1, 1 << log_domain, "{what}: the domain is not 2^{log_domain}");

    let start = Instant::now();
    let srs = GpuSrs::upload(device, &params, SrsPlacement::Auto).unwrap_or_else(|e| panic!("{what}: upload: {e}"));
    assert!(srs.is_resident(), "{what}: the SRS should be resident on a data-centre GPU");
    let upload_s = seconds_since(start);
    let pvk = prepare_verifying_key(&params.vk).unwrap();

    for round in ["first", "with the h table"] {
        if round != "first" {
            assert!(srs.wait_for_tables(), "{what}: 2^{log_domain} - 1 h bases should get an MSM table on a data-centre GPU");
        }
        let seed = rng.next_u64();
        let start = Instant::now();
        let assignments = synthesize_batch(vec![Workload::MulChain.circuit::<Scalar>(size, seed).unwrap()]).unwrap();
        let synth_s = seconds_since(start);
        let randomness = [(random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))];
        let start = Instant::now();
        let (proofs, _) = prove(device, &srs, &assignments, &randomness, false)
            .unwrap_or_else(|e| panic!("{what}, {round} proof: {e}"));
        let prove_s = seconds_since(start);
        let inputs = Workload::MulChain.public_inputs::<Scalar>(size, seed).unwrap();
        let start = Instant::now();
        assert!(verify_proof(&pvk, &proofs[0], &inputs).unwrap(), "{what}: the {round} proof does not verify");
        // The same proof with another public input must not verify.
        let mut wrong = inputs.clone();
        wrong[0] += Scalar::from(1u64);
        assert!(!verify_proof(&pvk, &proofs[0], &wrong).unwrap(), "{what}: the {round} proof verifies a wrong input");
        let verify_s = seconds_since(start);
        println!(
            "{{\"workload\":\"mul-chain\",\"size\":{size},\"log_domain\":{log_domain},\"round\":\"{round}\",\
             \"setup_s\":{setup_s:.1},\"upload_s\":{upload_s:.2},\"synth_s\":{synth_s:.2},\"prove_s\":{prove_s:.3},\
             \"verify_s\":{verify_s:.3},\"verified\":true}}"
        );
    }
}

fn mul_chain_2_22_verifies_in_a_2_23_domain(device: &Device, rng: &mut ChaCha20Rng) {
    verified_case(device, rng, 22, 23);
}

fn mul_chain_2_23_verifies_in_a_2_24_domain(device: &Device, rng: &mut ChaCha20Rng) {
    verified_case(device, rng, 23, 24);
}
