//! GPU tests of the fixed-base multiplication and the setup built on it,
//! on fresh random inputs each run (the seed is printed; CUZK_SEED fixes
//! it): the kernels against blstrs and cuzk-groth16's CPU tables, with the
//! edge scalars, sizes around the block and conversion-run sizes, chunks
//! crossing stream boundaries; the GPU setup's parameters byte for byte
//! the CPU setup's; malformed plans and out-of-memory as typed errors.
//!
//! The same custom harness as tests/gpu.rs: without a GPU it prints
//! "no CUDA device: N GPU tests not run" and exits non-zero, unless
//! CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU).

mod harness;

use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_groth16::{generate_parameters, CpuFixedBase, FixedBaseMul, Parameters, ToxicWaste};
use cuzk_gpu::curve::{G1, G2};
use cuzk_gpu::hooks::faults::fail_allocation;
use cuzk_gpu::setup::{fixed_base, fixed_base_with, FixedBasePlan, SetupCurve};
use cuzk_gpu::{fixed_base_g1, fixed_base_g2, generate_parameters_from_shape, Device, GpuError};
use cuzk_synth::recorded::RecordedShape;
use cuzk_synth::{Circuit, ConstraintSystem, SynthesisError};
use ff::Field;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("fixed_base_edges_and_small_sizes_match_blst", fixed_base_edges_and_small_sizes_match_blst),
    ("fixed_base_chunks_cross_streams", fixed_base_chunks_cross_streams),
    ("fixed_base_g1_2_20_matches_cpu_tables", fixed_base_g1_2_20_matches_cpu_tables),
    ("fixed_base_g2_2_16_matches_cpu_tables", fixed_base_g2_2_16_matches_cpu_tables),
    ("gpu_setup_equals_cpu_setup", gpu_setup_equals_cpu_setup),
    ("fixed_base_malformed_plans_are_typed", fixed_base_malformed_plans_are_typed),
    ("fixed_base_out_of_memory_is_typed_and_recoverable", fixed_base_out_of_memory_is_typed_and_recoverable),
];

fn main() {
    harness::run("GPU setup", TESTS)
}

/// 0, 1, −1 (= r − 1), 2, −2, a repeat, then random scalars up to n.
fn scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
    let mut s = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(2u64), -Scalar::from(2u64), Scalar::ONE];
    s.truncate(n);
    while s.len() < n {
        s.push(Scalar::random(&mut *rng));
    }
    s
}

fn naive<C: SetupCurve>(g: C::Projective, scalars: &[Scalar]) -> Vec<C::Affine> {
    scalars.iter().map(|s| (g * s).to_affine()).collect()
}

fn fixed_base_edges_and_small_sizes_match_blst(device: &Device, rng: &mut ChaCha20Rng) {
    let g1 = G1Projective::random(&mut *rng);
    let g2 = G2Projective::random(&mut *rng);
    // Around the 128-thread block and the 32-point conversion runs.
    for n in [0, 1, 2, 6, 31, 32, 33, 127, 128, 129, 1000] {
        let s = scalars(rng, n);
        assert_eq!(fixed_base_g1(device, g1, &s).unwrap(), naive::<G1>(g1, &s), "G1, n = {n}");
    }
    for n in [0, 1, 6, 33, 129] {
        let s = scalars(rng, n);
        assert_eq!(fixed_base_g2(device, g2, &s).unwrap(), naive::<G2>(g2, &s), "G2, n = {n}");
    }
    let same = vec![Scalar::random(&mut *rng); 300];
    assert_eq!(fixed_base_g1(device, g1, &same).unwrap(), naive::<G1>(g1, &same), "identical scalars");
    let zeros = vec![Scalar::ZERO; 300];
    assert_eq!(fixed_base_g1(device, g1, &zeros).unwrap(), naive::<G1>(g1, &zeros), "all zero");
}

fn fixed_base_chunks_cross_streams(device: &Device, rng: &mut ChaCha20Rng) {
    let g = G1Projective::random(&mut *rng);
    let s = scalars(rng, 1000);
    let want = naive::<G1>(g, &s);
    for (window_bits, chunk) in [(3, 1), (5, 7), (8, 64), (16, 333), (20, 999), (13, 1000), (11, 5000)] {
        let plan = FixedBasePlan { window_bits, chunk };
        let mut reports = Vec::new();
        let got = fixed_base_with::<G1>(device, g, &s, plan, &mut |done, total| reports.push((done, total))).unwrap();
        assert_eq!(got, want, "{plan:?}");
        assert_eq!(reports.last(), Some(&(1000, 1000)), "{plan:?}");
    }
    let g2 = G2Projective::random(&mut *rng);
    let s2 = scalars(rng, 200);
    let got = fixed_base_with::<G2>(device, g2, &s2, FixedBasePlan { window_bits: 9, chunk: 17 }, &mut |_, _| {});
    assert_eq!(got.unwrap(), naive::<G2>(g2, &s2));
}

fn against_cpu_tables<C: SetupCurve>(device: &Device, g: C::Projective, s: &[Scalar], cpu: Vec<C::Affine>)
where
    C::Affine: std::fmt::Debug,
{
    let got = fixed_base::<C>(device, g, s, &mut |_, _| {}).unwrap();
    assert_eq!(got.len(), cpu.len());
    if let Some(i) = (0..got.len()).find(|&i| got[i] != cpu[i]) {
        panic!("point {i} of {} differs (scalar {:?})", got.len(), s[i]);
    }
}

fn fixed_base_g1_2_20_matches_cpu_tables(device: &Device, rng: &mut ChaCha20Rng) {
    let g = G1Projective::random(&mut *rng);
    let s = scalars(rng, (1 << 20) + 3);
    let cpu = CpuFixedBase.g1(g, &s, &mut |_, _| {}).unwrap();
    against_cpu_tables::<G1>(device, g, &s, cpu);
}

fn fixed_base_g2_2_16_matches_cpu_tables(device: &Device, rng: &mut ChaCha20Rng) {
    let g = G2Projective::random(&mut *rng);
    let s = scalars(rng, (1 << 16) - 1);
    let cpu = CpuFixedBase.g2(g, &s, &mut |_, _| {}).unwrap();
    against_cpu_tables::<G2>(device, g, &s, cpu);
}

/// x_{i+1} = x_i·(x_i + c), every `every`-th x also a public input equal to
/// its private copy: `steps` + inputs constraints, several inputs in A and B.
#[derive(Clone)]
struct Chain {
    steps: usize,
    every: usize,
}

impl Circuit<Scalar> for Chain {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let c = Scalar::from(0x5eedu64);
        let mut v = Scalar::from(3u64);
        let mut x = cs.alloc(|| "x0", || Ok(v))?;
        for i in 0..self.steps {
            let next = v * (v + c);
            let y = cs.alloc(|| "x", || Ok(next))?;
            cs.enforce(|| "step", |lc| lc + x, |lc| lc + x + (c, CS::one()), |lc| lc + y);
            (x, v) = (y, next);
            if i % self.every == 0 {
                let input = cs.alloc_input(|| "public x", || Ok(v))?;
                cs.enforce(|| "copy", |lc| lc + input, |lc| lc + CS::one(), |lc| lc + x);
            }
        }
        Ok(())
    }
}

fn bytes(p: &Parameters) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).unwrap();
    out
}

fn gpu_setup_equals_cpu_setup(device: &Device, rng: &mut ChaCha20Rng) {
    for (steps, every) in [(300, 50), (1000, 97), (3000, 400)] {
        let circuit = Chain { steps, every };
        let toxic = ToxicWaste::random(&mut *rng);
        let shape = RecordedShape::record_shape(circuit.clone()).unwrap();
        let cpu = generate_parameters(circuit, &toxic, None).unwrap();
        let gpu = generate_parameters_from_shape(device, &shape, &toxic, None).unwrap();
        assert!(cpu.vk.ic.len() > 3, "several inputs");
        assert!(bytes(&gpu) == bytes(&cpu), "{steps} steps: GPU parameters differ from the CPU's");
    }
}

fn fixed_base_malformed_plans_are_typed(device: &Device, rng: &mut ChaCha20Rng) {
    let g = G1Projective::random(&mut *rng);
    let s = scalars(rng, 10);
    for plan in [FixedBasePlan { window_bits: 1, chunk: 4 }, FixedBasePlan { window_bits: 21, chunk: 4 }, FixedBasePlan {
        window_bits: 4,
        chunk: 0,
    }] {
        let r = fixed_base_with::<G1>(device, g, &s, plan, &mut |_, _| {});
        assert!(matches!(r, Err(GpuError::InvalidInput(_))), "{plan:?}: {r:?}");
    }
}

fn fixed_base_out_of_memory_is_typed_and_recoverable(device: &Device, rng: &mut ChaCha20Rng) {
    let g = G1Projective::random(&mut *rng);
    let s = scalars(rng, 3000);
    let plan = FixedBasePlan { window_bits: 8, chunk: 1024 };
    let want = naive::<G1>(g, &s);
    // The table, then two chunks' four buffers each.
    for k in 1..=9 {
        let (r, counted) = fail_allocation(k, || fixed_base_with::<G1>(device, g, &s, plan, &mut |_, _| {}));
        assert!(counted.allocations >= k, "allocation {k} was reached");
        assert!(matches!(r, Err(GpuError::OutOfMemory { .. })), "allocation {k}: {r:?}");
        let again = fixed_base_with::<G1>(device, g, &s, plan, &mut |_, _| {}).unwrap();
        assert!(again == want, "after allocation {k} failed");
    }
    let _ = rng.next_u32();
}
