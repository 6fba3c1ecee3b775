//! GPU tests of allocation failures: every device, pool and pinned
//! allocation of a call fails once in turn, through the fault hook
//! (`hooks::faults`, cuda/util/alloc_fault.hpp), for a proof from host a, b,
//! c (resident and streamed SRS), a proof of a recorded shape, and the
//! uploads of an SRS and a shape. Each failing call must return the typed
//! `GpuError::OutOfMemory`, give back every byte it took (the hook nets the
//! bytes allocated and released, pinned host memory included; the device's
//! free memory must be back to its level before), and leave the device
//! usable: the next proof equals the CPU backend's byte for byte. The
//! allocations of one call are counted first, after a warm-up call, so the
//! quotient's buffers kept between calls are already there.
//!
//! The same custom harness as tests/gpu.rs: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU). The seed is printed
//! first and can be fixed with CUZK_SEED.

mod harness;

use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk_gpu::hooks::faults::{count_allocations, fail_allocation, AllocCount};
use cuzk_gpu::{prove, prove_recorded, Device, DeviceShape, GpuError, GpuSrs, SrsPlacement};
use cuzk_groth16::{generate_random_parameters, random_nonzero_scalar, Parameters, Proof};
use cuzk_synth::workloads::Workload;
use cuzk_synth::{synthesize_batch, ProvingAssignment, RecordedShape, Witness};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("every_allocation_of_a_proof_fails_cleanly", every_allocation_of_a_proof_fails_cleanly),
    ("every_allocation_of_a_streamed_proof_fails_cleanly", every_allocation_of_a_streamed_proof_fails_cleanly),
    ("every_allocation_of_a_recorded_proof_fails_cleanly", every_allocation_of_a_recorded_proof_fails_cleanly),
    ("every_allocation_of_an_srs_upload_fails_cleanly", every_allocation_of_an_srs_upload_fails_cleanly),
    ("every_allocation_of_a_shape_upload_fails_cleanly", every_allocation_of_a_shape_upload_fails_cleanly),
];

fn main() {
    harness::run("GPU faults", TESTS)
}

/// Circuits per proof call: a batch, so per-circuit allocations repeat.
const BATCH: usize = 2;
const SIZE: usize = 1000;
/// How far the device's free memory may stay below its level before a
/// failed call. The hook's byte count is the exact check; the driver maps
/// memory in 2 MiB pages, so this only catches what the hook cannot see.
const FREE_SLACK: u64 = 8 << 20;

/// mul-chain 1000: its parameters, a batch of assignments and witnesses of
/// one recorded shape, the randomness, and the CPU backend's proofs.
struct Fixture {
    params: Parameters,
    shape: RecordedShape<Scalar>,
    assignments: Vec<ProvingAssignment<Scalar>>,
    witnesses: Vec<Witness<Scalar>>,
    randomness: Vec<(Scalar, Scalar)>,
    cpu: Vec<[u8; 192]>,
}

fn fixture(rng: &mut ChaCha20Rng) -> Fixture {
    let params = generate_random_parameters(Workload::MulChain.circuit::<Scalar>(SIZE, rng.next_u64()).unwrap(), rng, None)
        .unwrap();
    let (shape, _) = RecordedShape::record(Workload::MulChain.circuit::<Scalar>(SIZE, rng.next_u64()).unwrap()).unwrap();
    let seeds: Vec<u64> = (0..BATCH).map(|_| rng.next_u64()).collect();
    let circuits = seeds.iter().map(|&s| Workload::MulChain.circuit::<Scalar>(SIZE, s).unwrap()).collect();
    let assignments = synthesize_batch(circuits).unwrap();
    let witnesses =
        seeds.iter().map(|&s| shape.witness(Workload::MulChain.circuit::<Scalar>(SIZE, s).unwrap()).unwrap()).collect();
    let randomness: Vec<_> = (0..BATCH).map(|_| (random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))).collect();
    let cpu = cuzk_groth16::prove(&params, &assignments, &randomness).unwrap().iter().map(Proof::to_bytes).collect();
    Fixture { params, shape, assignments, witnesses, randomness, cpu }
}

impl Fixture {
    /// A proof call's result checked against the CPU backend's bytes.
    fn check(&self, what: &str, proofs: Result<Vec<Proof>, GpuError>) {
        let proofs = proofs.unwrap_or_else(|e| panic!("{what}: the proof call failed: {e}"));
        let got: Vec<[u8; 192]> = proofs.iter().map(Proof::to_bytes).collect();
        assert!(got == self.cpu, "{what}: the proofs differ from the CPU backend's");
    }
}

/// The device's free memory now (pool memory held unused counts as free).
fn free_memory(device: &Device) -> u64 {
    Device::open(device.id()).expect("reopening device").info().free_mem
}

/// Waits up to a second for frees queued on streams to land, until the
/// free memory is back within FREE_SLACK of `before`; the last reading.
fn settled_free(device: &Device, before: u64) -> u64 {
    let start = Instant::now();
    loop {
        let free = free_memory(device);
        if free + FREE_SLACK >= before || start.elapsed() > Duration::from_secs(1) {
            return free;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What a call with its k-th allocation failed must do: return
/// OutOfMemory, keep no byte, and leave free memory where it was.
fn expect_clean_oom<T>(device: &Device, what: &str, k: u64, n: u64, before: u64, r: Result<T, GpuError>, c: AllocCount) {
    assert!(c.allocations >= k, "{what}: allocation {k} of {n} was never reached ({c:?})");
    match r {
        Err(GpuError::OutOfMemory { requested, .. }) => assert!(requested > 0, "{what}: allocation {k}: {requested} bytes"),
        Err(e) => panic!("{what}: allocation {k} of {n} failed, expected OutOfMemory, got {e:?}"),
        Ok(_) => panic!("{what}: allocation {k} of {n} failed, yet the call succeeded"),
    }
    assert!(c.net_bytes <= 0, "{what}: allocation {k} of {n} failed and the call kept {} bytes", c.net_bytes);
    let after = settled_free(device, before);
    assert!(
        after + FREE_SLACK >= before,
        "{what}: allocation {k} of {n} failed and free device memory fell from {before} to {after}"
    );
}

/// Counts the allocations of `call` after a warm-up call, then fails each
/// in turn; after every failure the next call must match the CPU.
fn fail_each(device: &Device, f: &Fixture, what: &str, call: &dyn Fn() -> Result<Vec<Proof>, GpuError>) {
    f.check(&format!("{what} (warm-up)"), call());
    let before = free_memory(device);
    let (r, counted) = count_allocations(call);
    f.check(&format!("{what} (counted)"), r);
    let n = counted.allocations;
    assert!(n > 0, "{what}: the hook counted no allocation: is every allocation routed through cuda::allocate?");
    assert_eq!(counted.net_bytes, 0, "{what}: a successful call after a warm-up kept bytes ({counted:?})");
    for k in 1..=n {
        let (r, c) = fail_allocation(k, call);
        expect_clean_oom(device, what, k, n, before, r, c);
        f.check(&format!("{what}: the call after allocation {k} of {n} failed"), call());
    }
    println!("{{\"call\":\"{what}\",\"allocations\":{n},\"each_failed\":true}}");
}

fn every_allocation_of_a_proof_fails_cleanly(device: &Device, rng: &mut ChaCha20Rng) {
    let f = fixture(rng);
    let srs = GpuSrs::upload(device, &f.params, SrsPlacement::Auto).unwrap();
    assert!(srs.is_resident(), "a small SRS should be resident on a data-centre GPU");
    let call = || prove(device, &srs, &f.assignments, &f.randomness, false).map(|(p, _)| p);
    fail_each(device, &f, "prove, resident SRS", &call);
}

fn every_allocation_of_a_streamed_proof_fails_cleanly(device: &Device, rng: &mut ChaCha20Rng) {
    let f = fixture(rng);
    // Chunks of 320 bases: several per query, the last one partial.
    let srs = GpuSrs::upload_streaming(device, &f.params, 320).unwrap();
    assert!(!srs.is_resident());
    let call = || prove(device, &srs, &f.assignments, &f.randomness, false).map(|(p, _)| p);
    fail_each(device, &f, "prove, streamed SRS", &call);
}

fn every_allocation_of_a_recorded_proof_fails_cleanly(device: &Device, rng: &mut ChaCha20Rng) {
    let f = fixture(rng);
    let srs = GpuSrs::upload(device, &f.params, SrsPlacement::Auto).unwrap();
    let shape = DeviceShape::upload(device, &f.shape).unwrap();
    let call = || prove_recorded(device, &srs, &shape, &f.witnesses, &f.randomness, false).map(|(p, _)| p);
    fail_each(device, &f, "prove_recorded", &call);
}

/// An upload with a failed allocation is OutOfMemory and keeps nothing,
/// except that a query the device refuses is streamed from pinned host
/// memory instead (srs.cpp): then the SRS it returns is not all resident
/// and must prove correctly.
fn every_allocation_of_an_srs_upload_fails_cleanly(device: &Device, rng: &mut ChaCha20Rng) {
    let f = fixture(rng);
    for placement in [SrsPlacement::Auto, SrsPlacement::HostStreaming] {
        let what = format!("SRS upload, {placement:?}");
        drop(GpuSrs::upload(device, &f.params, placement).unwrap());
        let before = free_memory(device);
        let (srs, counted) = count_allocations(|| GpuSrs::upload(device, &f.params, placement));
        let srs = srs.unwrap_or_else(|e| panic!("{what}: {e}"));
        let n = counted.allocations;
        assert!(n > 0, "{what}: the hook counted no allocation");
        let proof = || prove(device, &srs, &f.assignments, &f.randomness, false).map(|(p, _)| p);
        f.check(&what, proof());
        drop(srs);
        let mut fallbacks = 0;
        for k in 1..=n {
            let (r, c) = fail_allocation(k, || GpuSrs::upload(device, &f.params, placement));
            match r {
                Ok(srs) if placement == SrsPlacement::Auto && !srs.is_resident() => {
                    fallbacks += 1;
                    assert!(c.allocations >= k, "{what}: allocation {k} of {n} was never reached");
                    let proof = || prove(device, &srs, &f.assignments, &f.randomness, false).map(|(p, _)| p);
                    f.check(&format!("{what}: streamed after allocation {k} of {n} failed"), proof());
                }
                r => expect_clean_oom(device, &what, k, n, before, r.map(|_| ()), c),
            }
            let srs = GpuSrs::upload(device, &f.params, placement)
                .unwrap_or_else(|e| panic!("{what}: the upload after allocation {k} of {n} failed: {e}"));
            let proof = || prove(device, &srs, &f.assignments, &f.randomness, false).map(|(p, _)| p);
            f.check(&format!("{what}: the upload after allocation {k} of {n} failed"), proof());
        }
        println!("{{\"call\":\"{what}\",\"allocations\":{n},\"each_failed\":true,\"streamed_fallbacks\":{fallbacks}}}");
    }
}

fn every_allocation_of_a_shape_upload_fails_cleanly(device: &Device, rng: &mut ChaCha20Rng) {
    let f = fixture(rng);
    let what = "shape upload";
    let srs = GpuSrs::upload(device, &f.params, SrsPlacement::Auto).unwrap();
    drop(DeviceShape::upload(device, &f.shape).unwrap());
    let before = free_memory(device);
    let (shape, counted) = count_allocations(|| DeviceShape::upload(device, &f.shape));
    drop(shape.unwrap());
    let n = counted.allocations;
    assert!(n > 0, "{what}: the hook counted no allocation");
    for k in 1..=n {
        let (r, c) = fail_allocation(k, || DeviceShape::upload(device, &f.shape));
        expect_clean_oom(device, what, k, n, before, r, c);
        let shape = DeviceShape::upload(device, &f.shape).unwrap();
        let proofs = prove_recorded(device, &srs, &shape, &f.witnesses, &f.randomness, false).map(|(p, _)| p);
        f.check(&format!("{what}: proving after allocation {k} of {n} failed"), proofs);
    }
    println!("{{\"call\":\"{what}\",\"allocations\":{n},\"each_failed\":true}}");
}
