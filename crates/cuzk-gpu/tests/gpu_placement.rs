//! GPU tests of SRS placement and the device-memory cap: proofs with any
//! mix of resident and streamed queries, H computed by any quotient
//! layout, equal the CPU backend's byte for byte for the same r and s
//! (with and without a recorded shape, uploaded or left in host memory);
//! under an enforced cap that leaves room for one lean call's working set
//! and no query, the plan streams every query with the lean quotient and
//! the proofs are still those bytes, as under one that leaves room only
//! for the spilled quotient with the shape in host memory, and one that
//! leaves room for some queries; a cap below the working set is a typed
//! error naming the need.
//!
//! Its own binary: the cap is process-wide for the device, so it must not
//! run beside the other GPU tests. The harness is tests/gpu.rs's: without a
//! GPU it fails unless CUZK_ALLOW_NO_GPU=1.

mod harness;

use std::sync::Arc;

use blstrs::Scalar;
use cuzk_gpu::placement::{self, Placement, WorkingSet};
use cuzk_gpu::{
    cap_device_memory, prove, prove_recorded, Device, DeviceShape, GpuError, GpuSrs, Query, QuerySet, QuotientLayout,
    SrsPlacement, SrsSizes,
};
use cuzk_groth16::{generate_random_parameters, prepare_verifying_key, random_nonzero_scalar, verify_proof, Parameters};
use cuzk_synth::workloads::Workload;
use cuzk_synth::{synthesize_batch, ProvingAssignment, RecordedShape, Witness};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("every_placement_matches_cpu", every_placement_matches_cpu),
    ("a_cap_that_fits_no_query_streams_them_all", a_cap_that_fits_no_query_streams_them_all),
    ("a_cap_below_the_working_set_is_refused", a_cap_below_the_working_set_is_refused),
];

fn main() {
    harness::run("GPU placement", TESTS)
}

/// Parameters and a batch of witnesses of one circuit family.
struct Case {
    what: String,
    params: Parameters,
    inputs: Vec<Vec<Scalar>>,
    assignments: Vec<ProvingAssignment<Scalar>>,
    /// The family's recorded shape and each circuit's witness for it.
    shape: Arc<RecordedShape<Scalar>>,
    witnesses: Vec<Witness<Scalar>>,
}

fn case(rng: &mut ChaCha20Rng, workload: Workload, size: usize, count: usize) -> Case {
    let params = generate_random_parameters(workload.circuit::<Scalar>(size, rng.next_u64()).unwrap(), rng, None).unwrap();
    let seeds: Vec<u64> = (0..count).map(|_| rng.next_u64()).collect();
    let circuits = seeds.iter().map(|&s| workload.circuit::<Scalar>(size, s).unwrap()).collect();
    let shape = RecordedShape::record_shape(workload.circuit::<Scalar>(size, rng.next_u64()).unwrap()).unwrap();
    let witnesses = seeds.iter().map(|&s| shape.witness(workload.circuit::<Scalar>(size, s).unwrap()).unwrap()).collect();
    Case {
        what: format!("{workload} {size} x{count}"),
        params,
        inputs: seeds.iter().map(|&s| workload.public_inputs::<Scalar>(size, s).unwrap()).collect(),
        assignments: synthesize_batch(circuits).unwrap(),
        shape: Arc::new(shape),
        witnesses,
    }
}

impl Case {
    /// The CPU backend's proof bytes for `randomness`.
    fn cpu(&self, randomness: &[(Scalar, Scalar)]) -> Vec<Vec<u8>> {
        let proofs = cuzk_groth16::prove(&self.params, &self.assignments, randomness).unwrap();
        proofs.iter().map(|p| p.to_bytes().to_vec()).collect()
    }

    /// Proves with `srs` and checks every proof verifies and equals `expected`.
    fn check(&self, device: &Device, srs: &GpuSrs, randomness: &[(Scalar, Scalar)], expected: &[Vec<u8>]) {
        let what = self.with(srs);
        let (proofs, _) = prove(device, srs, &self.assignments, randomness, false)
            .unwrap_or_else(|e| panic!("{what}: GPU prove failed: {e}"));
        self.compare(&what, &proofs, expected);
    }

    /// As check, through the recorded shape (a, b, c made on the device),
    /// placed as the SRS's plan says.
    fn check_recorded(&self, device: &Device, srs: &GpuSrs, randomness: &[(Scalar, Scalar)], expected: &[Vec<u8>]) {
        self.check_shape(device, srs, randomness, expected, srs.placement().shape_on_host);
    }

    /// As check_recorded, the shape uploaded or (`on_host`) left in host memory.
    fn check_shape(
        &self,
        device: &Device,
        srs: &GpuSrs,
        randomness: &[(Scalar, Scalar)],
        expected: &[Vec<u8>],
        on_host: bool,
    ) {
        let what = format!("{} (recorded, shape {})", self.with(srs), if on_host { "mapped" } else { "uploaded" });
        let shape = if on_host {
            DeviceShape::map(device, Arc::clone(&self.shape))
        } else {
            DeviceShape::upload(device, &self.shape)
        };
        let shape = shape.unwrap_or_else(|e| panic!("{what}: shape placement: {e}"));
        assert_eq!(shape.is_mapped(), on_host, "{what}");
        let (proofs, _) = prove_recorded(device, srs, &shape, &self.witnesses, randomness, false)
            .unwrap_or_else(|e| panic!("{what}: GPU prove failed: {e}"));
        self.compare(&what, &proofs, expected);
    }

    fn with(&self, srs: &GpuSrs) -> String {
        let p = srs.placement();
        format!("{} with {} resident, quotient {}", self.what, p.resident, p.quotient)
    }

    fn compare(&self, what: &str, proofs: &[cuzk_groth16::Proof], expected: &[Vec<u8>]) {
        let pvk = prepare_verifying_key(&self.params.vk).unwrap();
        for (i, proof) in proofs.iter().enumerate() {
            assert!(verify_proof(&pvk, proof, &self.inputs[i]).unwrap(), "{what}: proof {i} does not verify");
            assert_eq!(proof.to_bytes().to_vec(), expected[i], "{what}: proof {i} differs from the CPU backend's");
        }
    }
}

/// Resident sets that take each path: none, H alone (its MSM streamed per
/// circuit otherwise), the aux readers without B, B split across device and
/// host, B alone, and all; each with every quotient layout.
fn mixes() -> Vec<(QuerySet, QuotientLayout)> {
    use Query::*;
    let sets = [
        QuerySet::NONE,
        QuerySet::of(&[H]),
        QuerySet::of(&[L, A]),
        QuerySet::of(&[H, L, A, BG1]),
        QuerySet::of(&[BG1, BG2]),
        QuerySet::ALL,
    ];
    sets.into_iter().flat_map(|set| QuotientLayout::ALL.map(|layout| (set, layout))).collect()
}

fn every_placement_matches_cpu(device: &Device, rng: &mut ChaCha20Rng) {
    for (workload, size) in [(Workload::Sha256, 1), (Workload::MulChain, 1000)] {
        let c = case(rng, workload, size, 3);
        let randomness: Vec<_> = (0..3).map(|_| (random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))).collect();
        let expected = c.cpu(&randomness);
        for (set, layout) in mixes() {
            let srs = GpuSrs::upload(device, &c.params, SrsPlacement::Forced(set, layout)).unwrap();
            assert_eq!((srs.placement().resident, srs.placement().quotient), (set, layout), "{}", c.what);
            c.check(device, &srs, &randomness, &expected);
            for on_host in [false, true] {
                c.check_shape(device, &srs, &randomness, &expected, on_host);
            }
        }
    }
}

/// Caps the device, enforced, at the middle of the caps under which the
/// plan for `sizes` is one that `want` accepts; the cap.
fn cap_for(device: &Device, sizes: &SrsSizes, want: impl Fn(&Placement) -> bool) -> u64 {
    cap_device_memory(device.id(), None, false).unwrap();
    cuzk_gpu::release_idle_memory(device.id()).unwrap();
    let now = Device::open(device.id()).unwrap();
    let used = now.info().total_mem - now.info().free_mem;
    let low = used + WorkingSet::of(sizes, 0, QuerySet::NONE, QuotientLayout::Spilled).with_shape_on_host().total();
    let high = 2 * (low + QuerySet::ALL.bytes(sizes)) + (1 << 30);
    let step = ((high - low) / 20_000).max(1);
    let fitting: Vec<u64> = (low..high)
        .step_by(step as usize)
        .filter(|&cap| placement::plan(sizes, cap - used, cap, 0).is_ok_and(|p| want(&p)))
        .collect();
    assert!(!fitting.is_empty(), "no cap in {low}..{high} gives a wanted plan");
    let cap = fitting[fitting.len() / 2];
    cap_device_memory(device.id(), Some(cap), true).unwrap();
    cap
}

/// Lifts the cap, whatever the test did.
struct Uncap(i32);

impl Drop for Uncap {
    fn drop(&mut self) {
        cap_device_memory(self.0, None, false).unwrap();
    }
}

fn a_cap_that_fits_no_query_streams_them_all(device: &Device, rng: &mut ChaCha20Rng) {
    // Queries of ~20 MB each: the caps that give each plan span megabytes,
    // more than the device's 2 MiB allocation granularity moves free memory.
    let c = case(rng, Workload::MulChain, 200_000, 2);
    let randomness: Vec<_> = (0..2).map(|_| (random_nonzero_scalar(&mut *rng), random_nonzero_scalar(&mut *rng))).collect();
    let expected = c.cpu(&randomness);
    let resident = GpuSrs::upload(device, &c.params, SrsPlacement::Auto).unwrap();
    assert!(resident.is_resident(), "a small SRS is resident on a data-centre GPU");
    c.check(device, &resident, &randomness, &expected);
    drop(resident);

    let sizes = SrsSizes::of(&c.params);
    let _uncap = Uncap(device.id());
    // Room for the lean working set and no query: every query streams, and
    // a call exceeding the cap would fail here, not pass unnoticed.
    let cap = cap_for(device, &sizes, |p| p.resident == QuerySet::NONE && p.quotient == QuotientLayout::Lean);
    let capped = Device::open(device.id()).unwrap();
    assert_eq!(capped.info().total_mem, cap, "the device reads as the capped card");
    let streamed = GpuSrs::upload(&capped, &c.params, SrsPlacement::Auto).unwrap();
    let placed = *streamed.placement();
    assert_eq!((placed.resident, placed.quotient), (QuerySet::NONE, QuotientLayout::Lean), "{placed}");
    c.check(&capped, &streamed, &randomness, &expected);
    c.check_recorded(&capped, &streamed, &randomness, &expected);
    drop(streamed);

    // Room for the spilled quotient with the shape in host memory only:
    // the 16 GB card's plan for a 32 GiB PoRep.
    cap_for(device, &sizes, |p| p.quotient == QuotientLayout::Spilled && p.shape_on_host);
    let capped = Device::open(device.id()).unwrap();
    let spilled = GpuSrs::upload(&capped, &c.params, SrsPlacement::Auto).unwrap();
    let placed = *spilled.placement();
    assert_eq!((placed.quotient, placed.shape_on_host), (QuotientLayout::Spilled, true), "{placed}");
    c.check(&capped, &spilled, &randomness, &expected);
    c.check_recorded(&capped, &spilled, &randomness, &expected);
    drop(spilled);

    // Room for some queries but not all.
    cap_for(device, &sizes, |p| p.resident != QuerySet::NONE && p.resident != QuerySet::ALL);
    let capped = Device::open(device.id()).unwrap();
    let partial = GpuSrs::upload(&capped, &c.params, SrsPlacement::Auto).unwrap();
    let placed = *partial.placement();
    assert!(placed.resident != QuerySet::NONE && placed.resident != QuerySet::ALL, "{placed}");
    let forced = placement::forced(&sizes, placed.free, placed.total, placed.resident, placed.quotient);
    assert_eq!(placed, if placed.shape_on_host { forced.with_shape_on_host() } else { forced });
    assert!(placed.peak() <= placed.free, "{placed}");
    c.check(&capped, &partial, &randomness, &expected);
    c.check_recorded(&capped, &partial, &randomness, &expected);
}

fn a_cap_below_the_working_set_is_refused(device: &Device, rng: &mut ChaCha20Rng) {
    let c = case(rng, Workload::MulChain, 100, 1);
    let sizes = SrsSizes::of(&c.params);
    let _uncap = Uncap(device.id());
    let need = WorkingSet::of(&sizes, 0, QuerySet::NONE, QuotientLayout::Spilled).with_shape_on_host().total();
    cuzk_gpu::release_idle_memory(device.id()).unwrap();
    let now = Device::open(device.id()).unwrap();
    let used = now.info().total_mem - now.info().free_mem;
    cap_device_memory(device.id(), Some(used + need / 2), true).unwrap();
    let capped = Device::open(device.id()).unwrap();
    match GpuSrs::upload(&capped, &c.params, SrsPlacement::Auto) {
        Err(GpuError::DeviceTooSmall { needed, free, .. }) => assert!(needed > free, "{needed} {free}"),
        other => panic!("expected DeviceTooSmall, got {:?}", other.map(|s| *s.placement())),
    }
    // A cap above the card is refused too, naming the sizes.
    cap_device_memory(device.id(), None, false).unwrap();
    let err = cap_device_memory(device.id(), Some(u64::MAX / 2), false).unwrap_err();
    assert!(err.to_string().contains("device memory cap"), "{err}");
}
