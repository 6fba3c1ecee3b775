//! GPU tests of the resident shapes and their sparse products: a, b, c
//! computed on the device, the matrices uploaded or left in host memory
//! (mapped: a shape of a million rows is read across the bus), equal
//! cuzk-synth's CPU evaluation on random
//! circuits (proptest, seeded from the printed seed), both workloads, a
//! shape of input rows only, 16- and 32-bit coefficient indices, and zero,
//! bit and tampered witnesses, whose lowest unsatisfied row comes back as
//! the typed error naming the row the CPU names. Then proofs whose a, b, c
//! the device computes from the witness verify and equal, byte for byte,
//! those made from host a, b, c with the same r and s; a failing witness
//! is a typed error after which the next proof succeeds.
//!
//! The same custom harness as tests/gpu.rs: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU). The seed is printed
//! first and can be fixed with CUZK_SEED.

mod circuits;
mod harness;

use std::sync::Arc;

use blstrs::Scalar;
use circuits::{check, inputs_only, is_wide, record, variants, Random, Scaled};
use cuzk_gpu::hooks::spmv::evaluate_on_host;
use cuzk_gpu::{prove, prove_recorded, Device, DeviceShape, GpuError, GpuSrs, SrsPlacement};
use cuzk_groth16::{generate_random_parameters, prepare_verifying_key, random_nonzero_scalar, verify_proof};
use cuzk_synth::workloads::Workload;
use cuzk_synth::{Circuit, ConstraintSystem, RecordedShape, SynthesisError, Witness};
use ff::Field;
use proptest::prelude::any;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

const TESTS: &[(&str, harness::Test)] = &[
    ("random_circuits_match_the_cpu", random_circuits_match_the_cpu),
    ("workloads_match_the_cpu", workloads_match_the_cpu),
    ("a_shape_of_input_rows_only_matches_the_cpu", a_shape_of_input_rows_only_matches_the_cpu),
    ("narrow_and_wide_indices_match_the_cpu", narrow_and_wide_indices_match_the_cpu),
    ("a_mapped_shape_is_read_from_host_memory", a_mapped_shape_is_read_from_host_memory),
    ("unsatisfied_rows_are_the_cpus_then_the_shape_still_works", unsatisfied_rows_are_the_cpus_then_the_shape_still_works),
    ("recorded_proofs_verify_and_match_host_abc", recorded_proofs_verify_and_match_host_abc),
    ("recorded_failures_are_typed_then_proofs_succeed", recorded_failures_are_typed_then_proofs_succeed),
    ("a_dense_partial_b_proves_as_with_streamed_bases", a_dense_partial_b_proves_as_with_streamed_bases),
];

fn main() {
    harness::run("GPU SpMV", TESTS)
}

/// Uploads `shape`, then maps it, and compares every variant of `w` on the
/// device with the CPU (and the host build of the same row code).
fn check_all(device: &Device, shape: RecordedShape<Scalar>, w: &Witness<Scalar>, rng: &mut ChaCha20Rng) -> Result<(), String> {
    let shape = Arc::new(shape);
    let uploaded = DeviceShape::upload(device, &shape).map_err(|e| format!("upload: {e}"))?;
    let mapped = DeviceShape::map(device, Arc::clone(&shape)).map_err(|e| format!("map: {e}"))?;
    for (placed, on_device) in [("uploaded", &uploaded), ("mapped", &mapped)] {
        for (what, w) in variants(w, rng) {
            let got = on_device.evaluate(&w);
            let host = evaluate_on_host(&shape, &w);
            if got != host {
                return Err(format!("{placed}, {what} witness: the device and the host build of the row code disagree"));
            }
            check(&shape, &w, got).map_err(|e| format!("{placed}, {what} witness: {e}"))?;
        }
    }
    Ok(())
}

/// A shape of a million rows, mapped: its large arrays (each its own
/// allocation) stay in host memory and the device reads them there.
fn a_mapped_shape_is_read_from_host_memory(device: &Device, rng: &mut ChaCha20Rng) {
    let size = 1 << 20;
    let (shape, _) = record(Workload::MulChain.circuit::<Scalar>(size, rng.next_u64()).unwrap());
    let w = shape.witness(Workload::MulChain.circuit::<Scalar>(size, rng.next_u64()).unwrap()).unwrap();
    let shape = Arc::new(shape);
    let mapped = DeviceShape::map(device, Arc::clone(&shape)).unwrap();
    assert!(mapped.is_mapped());
    let row_ptrs = 3 * 4 * (shape.num_constraints() as u64 + 1);
    assert!(mapped.host_bytes() >= row_ptrs, "{} bytes mapped, the row pointers alone are {row_ptrs}", mapped.host_bytes());
    let got = mapped.evaluate(&w);
    check(&shape, &w, got).unwrap();
    // Mapped twice (as on two devices): the registration is shared, and
    // dropping one leaves the other readable.
    let again = DeviceShape::map(device, Arc::clone(&shape)).unwrap();
    assert_eq!(again.host_bytes(), mapped.host_bytes());
    drop(mapped);
    check(&shape, &w, again.evaluate(&w)).unwrap();
}

fn random_circuits_match_the_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let config = Config { cases: 64, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    runner
        .run(&(circuits::spec(), any::<u64>()), |(spec, seed)| {
            let (shape, _) = record(Random { spec: spec.clone(), seed: 0 });
            let (_, w) = record(Random { spec, seed });
            check_all(device, shape, &w, &mut ChaCha20Rng::seed_from_u64(!seed)).map_err(TestCaseError::fail)
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

fn workloads_match_the_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    for (workload, size) in [(Workload::Sha256, 1), (Workload::Sha256, 2), (Workload::MulChain, 1000)] {
        let (shape, _) = record(workload.circuit::<Scalar>(size, rng.next_u64()).unwrap());
        let w = shape.witness(workload.circuit::<Scalar>(size, rng.next_u64()).unwrap()).unwrap();
        check_all(device, shape, &w, rng).unwrap_or_else(|e| panic!("{workload} {size}: {e}"));
    }
}

fn a_shape_of_input_rows_only_matches_the_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    let (shape, w) = record(Random { spec: inputs_only(), seed: rng.next_u64() });
    assert_eq!(shape.num_constraints(), 4);
    check_all(device, shape, &w, rng).unwrap();
}

fn narrow_and_wide_indices_match_the_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    for (n, wide) in [(100, false), ((1 << 16) - 2, false), ((1 << 16) - 1, true), (1 << 17, true)] {
        let (shape, _) = record(Scaled { n, seed: rng.next_u64() });
        assert_eq!(is_wide(&shape), wide, "{} coefficients", shape.coefficients().len());
        let w = shape.witness(Scaled { n, seed: rng.next_u64() }).unwrap();
        check_all(device, shape, &w, rng).unwrap_or_else(|e| panic!("n = {n}: {e}"));
    }
}

/// A copy of `w` with a random aux value off by one that the CPU finds
/// unsatisfied, and the CPU's lowest unsatisfied row.
fn tampered(shape: &RecordedShape<Scalar>, w: &Witness<Scalar>, rng: &mut ChaCha20Rng) -> (Witness<Scalar>, usize) {
    for _ in 0..100 {
        let mut t = w.clone();
        let i = (rng.next_u64() % t.aux.len() as u64) as usize;
        t.aux[i] += Scalar::from(1u64);
        if let Err(SynthesisError::UnsatisfiedConstraint(row)) = shape.evaluate(t.clone()) {
            return (t, row);
        }
    }
    panic!("100 aux values off by one all left the witness satisfied");
}

fn unsatisfied_rows_are_the_cpus_then_the_shape_still_works(device: &Device, rng: &mut ChaCha20Rng) {
    let (shape, w) = record(Workload::Sha256.circuit::<Scalar>(1, rng.next_u64()).unwrap());
    let resident = DeviceShape::upload(device, &shape).unwrap();
    for _ in 0..8 {
        let (bad, row) = tampered(&shape, &w, rng);
        assert_eq!(resident.evaluate(&bad), Err(GpuError::UnsatisfiedConstraint { row }));
        check(&shape, &w, resident.evaluate(&w)).unwrap();
    }
    let mut short = w.clone();
    short.inputs.pop();
    assert!(matches!(resident.evaluate(&short), Err(GpuError::InvalidInput(_))));
}

/// A workload at one size: its parameters, the SRS and the shape on the device.
struct Setup {
    workload: Workload,
    size: usize,
    params: cuzk_groth16::Parameters,
    shape: RecordedShape<Scalar>,
    srs: GpuSrs,
    resident: DeviceShape,
}

fn setup(device: &Device, rng: &mut ChaCha20Rng, workload: Workload, size: usize, placement: SrsPlacement) -> Setup {
    let circuit = workload.circuit::<Scalar>(size, rng.next_u64()).unwrap();
    let params = generate_random_parameters(circuit, rng, None).unwrap();
    let (shape, _) = RecordedShape::record(workload.circuit::<Scalar>(size, rng.next_u64()).unwrap()).unwrap();
    let srs = GpuSrs::upload(device, &params, placement).unwrap();
    let resident = DeviceShape::upload(device, &shape).unwrap();
    Setup { workload, size, params, shape, srs, resident }
}

impl Setup {
    fn witnesses(&self, rng: &mut ChaCha20Rng, count: usize) -> (Vec<u64>, Vec<Witness<Scalar>>) {
        let seeds: Vec<u64> = (0..count).map(|_| rng.next_u64()).collect();
        let witnesses =
            seeds.iter().map(|&s| self.shape.witness(self.workload.circuit::<Scalar>(self.size, s).unwrap()).unwrap()).collect();
        (seeds, witnesses)
    }

    /// Proves through the recorded path; checks every proof with our
    /// verifier and against the host-a/b/c path's bytes for the same r, s.
    fn check(&self, device: &Device, rng: &mut ChaCha20Rng, count: usize) {
        let what = format!("{} {} x{count}", self.workload, self.size);
        let (seeds, witnesses) = self.witnesses(rng, count);
        let randomness: Vec<_> = (0..count).map(|_| (random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))).collect();
        let (proofs, _) = prove_recorded(device, &self.srs, &self.resident, &witnesses, &randomness, false)
            .unwrap_or_else(|e| panic!("{what}: recorded prove failed: {e}"));
        let assignments: Vec<_> = witnesses.iter().map(|w| self.shape.evaluate(w.clone()).unwrap()).collect();
        let (host, _) = prove(device, &self.srs, &assignments, &randomness, false).unwrap();
        let pvk = prepare_verifying_key(&self.params.vk).unwrap();
        for (i, (proof, host)) in proofs.iter().zip(&host).enumerate() {
            let inputs = self.workload.public_inputs::<Scalar>(self.size, seeds[i]).unwrap();
            assert!(verify_proof(&pvk, proof, &inputs).unwrap(), "{what}: proof {i} does not verify");
            assert_eq!(proof.to_bytes(), host.to_bytes(), "{what}: proof {i} differs from the host-a/b/c path's");
        }
    }
}

fn recorded_proofs_verify_and_match_host_abc(device: &Device, rng: &mut ChaCha20Rng) {
    for (workload, size) in [(Workload::Sha256, 1), (Workload::MulChain, 1000), (Workload::MulChain, 1)] {
        let s = setup(device, rng, workload, size, SrsPlacement::Auto);
        for count in [1, 3] {
            s.check(device, rng, count);
        }
    }
    let s = setup(device, rng, Workload::Sha256, 1, SrsPlacement::HostStreaming);
    s.check(device, rng, 2);
}

fn recorded_failures_are_typed_then_proofs_succeed(device: &Device, rng: &mut ChaCha20Rng) {
    let s = setup(device, rng, Workload::Sha256, 1, SrsPlacement::Auto);
    let (_, mut witnesses) = s.witnesses(rng, 3);
    let randomness: Vec<_> = (0..3).map(|_| (random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))).collect();
    let row;
    (witnesses[1], row) = tampered(&s.shape, &witnesses[1], rng);
    match prove_recorded(device, &s.srs, &s.resident, &witnesses, &randomness, false) {
        Err(e) => assert_eq!(e, GpuError::UnsatisfiedConstraint { row }),
        Ok(_) => panic!("a tampered witness proved"),
    }
    let mut short = witnesses[0].clone();
    short.aux.pop();
    let err = prove_recorded(device, &s.srs, &s.resident, &[short], &randomness[..1], false).unwrap_err();
    assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
    let err = prove_recorded(device, &s.srs, &s.resident, &witnesses[..1], &[], false).unwrap_err();
    assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
    let other = setup(device, rng, Workload::MulChain, 100, SrsPlacement::Auto);
    match prove_recorded(device, &s.srs, &other.resident, &[], &[], false) {
        Err(GpuError::SrsMismatch { .. }) => {}
        other => panic!("expected an SRS mismatch for another shape, got {:?}", other.map(|(p, _)| p.len())),
    }
    s.check(device, rng, 3);
}

/// A dense witness whose B leaves variables out (`SquareChain`): over
/// resident bases its B scalars are compacted on the device from the aux
/// assignment (split.hpp's aux_compacted), the last circuit's from its
/// witness on the recorded path, each circuit's uploaded aux on the
/// host-a/b/c path. Both paths' proofs verify and equal, byte for byte,
/// those over streamed bases, whose B scalars the host copies.
fn a_dense_partial_b_proves_as_with_streamed_bases(device: &Device, rng: &mut ChaCha20Rng) {
    let chain = |seed| SquareChain { n: 3000, seed };
    let params = generate_random_parameters(chain(rng.next_u64()), rng, None).unwrap();
    let (shape, _) = RecordedShape::record(chain(rng.next_u64())).unwrap();
    let resident = GpuSrs::upload(device, &params, SrsPlacement::Auto).unwrap();
    let streamed = GpuSrs::upload(device, &params, SrsPlacement::HostStreaming).unwrap();
    let on_device = DeviceShape::upload(device, &shape).unwrap();
    let pvk = prepare_verifying_key(&params.vk).unwrap();
    for count in [1, 3] {
        let seeds: Vec<u64> = (0..count).map(|_| rng.next_u64()).collect();
        let witnesses: Vec<Witness<Scalar>> = seeds.iter().map(|&s| shape.witness(chain(s)).unwrap()).collect();
        let randomness: Vec<_> = (0..count).map(|_| (random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))).collect();
        let assignments: Vec<_> = witnesses.iter().map(|w| shape.evaluate(w.clone()).unwrap()).collect();
        let (recorded, _) = prove_recorded(device, &resident, &on_device, &witnesses, &randomness, false).unwrap();
        let (host_abc, _) = prove(device, &resident, &assignments, &randomness, false).unwrap();
        let (reference, _) = prove(device, &streamed, &assignments, &randomness, false).unwrap();
        for i in 0..count {
            assert!(verify_proof(&pvk, &recorded[i], &chain(seeds[i]).public_inputs()).unwrap(), "x{count}: proof {i} does not verify");
            assert_eq!(recorded[i].to_bytes(), reference[i].to_bytes(), "x{count}: recorded proof {i}");
            assert_eq!(host_abc[i].to_bytes(), reference[i].to_bytes(), "x{count}: host-a/b/c proof {i}");
        }
    }
}

/// x_(i+1) = 3 x_i^2 + x_i for `n` steps through t_i = x_i^2, then x_n as the
/// public input: every value is full width, and B holds the one and the
/// x_i but no t_i, so the witness is dense while B's density leaves half
/// the variables out (the Groth16 host function compacts its scalars on the
/// device, as it does WindowPoSt's).
#[derive(Clone, Debug)]
struct SquareChain {
    n: usize,
    seed: u64,
}

impl SquareChain {
    fn start(&self) -> Scalar {
        Scalar::random(ChaCha20Rng::seed_from_u64(self.seed))
    }

    fn step(x: Scalar) -> Scalar {
        Scalar::from(3u64) * x.square() + x
    }

    /// The public input x_n, computed natively.
    fn public_inputs(&self) -> Vec<Scalar> {
        vec![(0..self.n).fold(self.start(), |x, _| Self::step(x))]
    }
}

impl Circuit<Scalar> for SquareChain {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let k = Scalar::from(3u64);
        let mut x_value = self.start();
        let mut x = cs.alloc(|| "x", || Ok(x_value))?;
        for _ in 0..self.n {
            let t_value = x_value.square();
            let t = cs.alloc(|| "t", || Ok(t_value))?;
            cs.enforce(|| "t = x x", |lc| lc + x, |lc| lc + x, |lc| lc + t);
            let next_value = Self::step(x_value);
            let next = cs.alloc(|| "x", || Ok(next_value))?;
            cs.enforce(|| "x' = 3 t + x", |lc| lc + (k, t) + x, |lc| lc + CS::one(), |lc| lc + next);
            (x, x_value) = (next, next_value);
        }
        let out = cs.alloc_input(|| "x_n", || Ok(x_value))?;
        cs.enforce(|| "x_n", |lc| lc + x, |lc| lc + CS::one(), |lc| lc + out);
        Ok(())
    }
}
