//! GPU tests of the Groth16 host function: proofs made on the device verify
//! and equal the CPU backend's byte for byte for the same r and s, for both
//! workloads, batches of 1, 2 and 10, a resident and a streamed SRS; size
//! mismatches and device failures are typed errors after which the next
//! proof succeeds.
//!
//! The same custom harness as tests/gpu.rs: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU). The seed is printed
//! first and can be fixed with CUZK_SEED.

mod harness;

use blstrs::{G1Affine, G2Affine, Scalar};
use cuzk_gpu::curve::G1;
use cuzk_gpu::{prove, Device, DeviceBases, GpuError, GpuSrs, SrsPlacement};
use cuzk_groth16::{generate_random_parameters, prepare_verifying_key, random_nonzero_scalar, verify_proof, Parameters};
use cuzk_synth::workloads::Workload;
use cuzk_synth::{synthesize_batch, ProvingAssignment};
use group::prime::PrimeCurveAffine;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use std::time::Instant;

const TESTS: &[(&str, harness::Test)] = &[
    ("mul_chain_batches_match_cpu", mul_chain_batches_match_cpu),
    ("sha256_batches_match_cpu", sha256_batches_match_cpu),
    ("host_streaming_matches_cpu", host_streaming_matches_cpu),
    ("mismatched_srs_is_a_typed_error", mismatched_srs_is_a_typed_error),
    ("failure_then_success", failure_then_success),
    ("mul_chain_2_20_matches_cpu", mul_chain_2_20_matches_cpu),
];

fn main() {
    harness::run("GPU Groth16", TESTS)
}

/// A circuit family at one size: its parameters and `count` witnesses.
struct Case {
    workload: Workload,
    size: usize,
    params: Parameters,
    seeds: Vec<u64>,
    assignments: Vec<ProvingAssignment<Scalar>>,
}

fn case(rng: &mut ChaCha20Rng, workload: Workload, size: usize, count: usize) -> Case {
    let setup_seed = rng.next_u64();
    let circuit = workload.circuit::<Scalar>(size, setup_seed).unwrap();
    let params = generate_random_parameters(circuit, rng, None).unwrap();
    let mut c = Case { workload, size, params, seeds: Vec::new(), assignments: Vec::new() };
    c.resize(rng, count);
    c
}

impl Case {
    /// Fresh witnesses for `count` circuits of the same shape.
    fn resize(&mut self, rng: &mut ChaCha20Rng, count: usize) {
        self.seeds = (0..count).map(|_| rng.next_u64()).collect();
        let circuits = self.seeds.iter().map(|&s| self.workload.circuit::<Scalar>(self.size, s).unwrap()).collect();
        self.assignments = synthesize_batch(circuits).unwrap();
    }

    fn randomness(&self, rng: &mut ChaCha20Rng) -> Vec<(Scalar, Scalar)> {
        self.assignments.iter().map(|_| (random_nonzero_scalar(rng), random_nonzero_scalar(rng))).collect()
    }

    /// Proves on the device, then checks every proof against our verifier
    /// and against the CPU backend's bytes for the same r and s.
    fn check(&self, device: &Device, srs: &GpuSrs, rng: &mut ChaCha20Rng, timing: bool) {
        let randomness = self.randomness(rng);
        let what = format!("{} {} x{}", self.workload, self.size, self.assignments.len());
        let (proofs, _) = prove(device, srs, &self.assignments, &randomness, timing)
            .unwrap_or_else(|e| panic!("{what}: GPU prove failed: {e}"));
        let cpu = cuzk_groth16::prove(&self.params, &self.assignments, &randomness).unwrap();
        assert_eq!(proofs.len(), cpu.len());
        let pvk = prepare_verifying_key(&self.params.vk).unwrap();
        for (i, (gpu, cpu)) in proofs.iter().zip(&cpu).enumerate() {
            let inputs = self.workload.public_inputs::<Scalar>(self.size, self.seeds[i]).unwrap();
            assert!(verify_proof(&pvk, gpu, &inputs).unwrap(), "{what}: GPU proof {i} does not verify");
            assert_eq!(gpu.to_bytes(), cpu.to_bytes(), "{what}: proof {i} differs from the CPU backend's");
        }
    }
}

fn resident(device: &Device, params: &Parameters) -> GpuSrs {
    let srs = GpuSrs::upload(device, params, SrsPlacement::Auto).unwrap();
    assert!(srs.is_resident(), "a small SRS should be resident on a data-centre GPU");
    srs
}

fn batches(device: &Device, rng: &mut ChaCha20Rng, workload: Workload, size: usize) {
    let mut c = case(rng, workload, size, 1);
    let srs = resident(device, &c.params);
    for count in [1, 2, 10] {
        c.resize(rng, count);
        c.check(device, &srs, rng, false);
    }
}

/// Dense scalars: every query takes the full-MSM path.
fn mul_chain_batches_match_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    batches(device, rng, Workload::MulChain, 1000);
}

/// Bits: batch additions of the ones and a small tail.
fn sha256_batches_match_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    batches(device, rng, Workload::Sha256, 1);
}

fn host_streaming_matches_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    for (workload, size) in [(Workload::Sha256, 1), (Workload::MulChain, 1000)] {
        let c = case(rng, workload, size, 2);
        // Chunks of 320 bases: several per query, the last one partial.
        let srs = GpuSrs::upload_streaming(device, &c.params, 320).unwrap();
        assert!(!srs.is_resident());
        c.check(device, &srs, rng, false);
        let srs = GpuSrs::upload(device, &c.params, SrsPlacement::HostStreaming).unwrap();
        assert!(!srs.is_resident());
        c.check(device, &srs, rng, false);
    }
}

fn mismatched_srs_is_a_typed_error(device: &Device, rng: &mut ChaCha20Rng) {
    let small = case(rng, Workload::MulChain, 100, 1);
    let large = case(rng, Workload::MulChain, 200, 1);
    let srs = resident(device, &small.params);
    let randomness = large.randomness(rng);
    match prove(device, &srs, &large.assignments, &randomness, false) {
        Err(GpuError::SrsMismatch { what, have, need }) => {
            assert!(what.starts_with("h bases"), "{what}");
            assert_eq!((have, need), (127, 255));
        }
        other => panic!("expected an SRS mismatch, got {:?}", other.map(|(p, _)| p.len())),
    }
    let err = prove(device, &srs, &small.assignments, &[], false).unwrap_err();
    assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
    small.check(device, &srs, rng, false);
    // A degenerate key (δ at infinity) is refused at the upload, as the CPU
    // prover refuses it: a device proves only with what was uploaded.
    let mut degenerate = small.params.clone();
    degenerate.vk.delta_g2 = G2Affine::identity();
    match GpuSrs::upload(device, &degenerate, SrsPlacement::Auto) {
        Err(GpuError::InvalidInput(m)) => assert!(m.contains("degenerate") && m.contains("vk.delta_g2"), "{m}"),
        other => panic!("expected the degenerate key refused, got {:?}", other.map(|s| s.is_resident())),
    }
}

/// Fills the device so the host function runs out of memory mid-proof, then
/// frees it: the failure is a typed error and the next proof succeeds.
fn failure_then_success(device: &Device, rng: &mut ChaCha20Rng) {
    let c = case(rng, Workload::Sha256, 1, 2);
    let srs = resident(device, &c.params);
    let free = Device::open(device.id()).unwrap().info().free_mem;
    let keep = 512u64 << 20;
    let hog = DeviceBases::<G1>::tiled(device, &[G1Affine::generator()], ((free - keep) / 96) as usize).unwrap();
    let randomness = c.randomness(rng);
    match prove(device, &srs, &c.assignments, &randomness, false) {
        Err(GpuError::OutOfMemory { requested, .. }) => assert!(requested > 0),
        other => panic!("expected OutOfMemory with {keep} bytes free, got {:?}", other.map(|(p, _)| p.len())),
    }
    drop(hog);
    c.check(device, &srs, rng, false);
}

/// One larger circuit (2^20 dense constraints, a 2^21 domain), timed by the
/// host function on a later run (the first loads the kernels). The first
/// proof starts while the SRS's MSM table for h is being built (it runs
/// with or without it); the later ones have it.
fn mul_chain_2_20_matches_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    let c = case(rng, Workload::MulChain, 1 << 20, 1);
    let srs = resident(device, &c.params);
    c.check(device, &srs, rng, false);
    assert!(srs.wait_for_tables(), "2^21 - 1 h bases should get an MSM table on a data-centre GPU");
    c.check(device, &srs, rng, false);
    let randomness = c.randomness(rng);
    let start = Instant::now();
    let (_, timings) = prove(device, &srs, &c.assignments, &randomness, true).unwrap();
    println!(
        "{{\"workload\":\"mul-chain\",\"size\":{},\"batch\":1,\"call_ms\":{:.1},\"pre_destructor_ms\":{:.1}}}",
        c.size,
        start.elapsed().as_secs_f64() * 1e3,
        timings.pre_destructor_ms
    );
}
