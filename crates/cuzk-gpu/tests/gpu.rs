//! GPU tests: kernels against CPU references on a real device.
//!
//! A custom harness, so that a machine without a GPU cannot pass by
//! skipping: it prints "no CUDA device: N GPU tests not run" and exits
//! non-zero, unless CUZK_ALLOW_NO_GPU=1 (CI builds this but has no GPU).
//! Each test prints one JSON line; the seed is printed first and can be
//! fixed with CUZK_SEED.

mod harness;

use blstrs::{Fp, Fp2, G1Affine, G1Projective, Scalar};
use cuzk_gpu::hooks::arith::{device_field_mul, KernelField};
use cuzk_gpu::hooks::arith::host_fp64_mul;
use cuzk_gpu::hooks::bench::{
    fp64_mul_chain, fp_mul_chain, fp_mul_chain_reference, g1_add_chain, g1_add_chain_reference, ntt_timed,
};
use cuzk_gpu::hooks::device::probe_alloc;
use cuzk_gpu::{devices, ntt, Device, DeviceScalars, GpuError, NttKind};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use ff::{Field, PrimeField};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

const TESTS: &[(&str, harness::Test)] = &[
    ("device_info_is_sane", device_info_is_sane),
    ("field_mul_matches_blstrs", field_mul_matches_blstrs),
    ("ntt_small_sizes_match_naive_dft", ntt_small_sizes_match_naive_dft),
    ("ntt_up_to_2_22_matches_cpu_radix2", ntt_up_to_2_22_matches_cpu_radix2),
    ("ntt_2_24_round_trips_and_spot_checks", ntt_2_24_round_trips_and_spot_checks),
    ("ntt_rejects_non_powers_of_two", ntt_rejects_non_powers_of_two),
    ("ntt_timed_matches_ntt", ntt_timed_matches_ntt),
    ("fp_mul_chain_matches_blstrs", fp_mul_chain_matches_blstrs),
    ("fp64_mul_chain_matches_host_and_blstrs", fp64_mul_chain_matches_host_and_blstrs),
    ("g1_add_chain_matches_blstrs", g1_add_chain_matches_blstrs),
    ("out_of_memory_is_typed_and_recoverable", out_of_memory_is_typed_and_recoverable),
    ("unknown_device_is_typed", unknown_device_is_typed),
];

fn main() {
    harness::run("GPU", TESTS)
}

fn device_info_is_sane(device: &Device, _: &mut ChaCha20Rng) {
    let info = device.info();
    assert!(!info.name.is_empty() && info.sm_count > 0 && info.sm_major >= 8, "{info:?}");
    assert!(info.free_mem > 0 && info.free_mem <= info.total_mem, "{info:?}");
    let all = devices().unwrap();
    assert_eq!(all[0].name, info.name);
}

fn mul_case<F: KernelField + std::fmt::Debug>(device: &Device, rng: &mut ChaCha20Rng, n: usize) {
    let mut a: Vec<F> = (0..n).map(|_| F::random(&mut *rng)).collect();
    let mut b: Vec<F> = (0..n).map(|_| F::random(&mut *rng)).collect();
    let edges = [F::ZERO, F::ONE, -F::ONE];
    for (i, x) in edges.iter().enumerate() {
        for (j, y) in edges.iter().enumerate() {
            a[3 * i + j] = *x;
            b[3 * i + j] = *y;
        }
    }
    let got = device_field_mul(device, &a, &b).unwrap();
    for i in 0..n {
        assert_eq!(got[i], a[i] * b[i], "element {i}: {:?} * {:?}", a[i], b[i]);
    }
}

fn field_mul_matches_blstrs(device: &Device, rng: &mut ChaCha20Rng) {
    mul_case::<Scalar>(device, rng, 1 << 14);
    mul_case::<Fp>(device, rng, 1 << 14);
    mul_case::<Fp2>(device, rng, 1 << 12);
}

fn omega(log_n: u32) -> Scalar {
    (log_n..Scalar::S).fold(Scalar::ROOT_OF_UNITY, |w, _| w.square())
}

/// O(n^2) evaluation: the definition itself.
fn naive_dft(a: &[Scalar], w: Scalar) -> Vec<Scalar> {
    let mut wk = Scalar::ONE;
    let mut out = Vec::with_capacity(a.len());
    for _ in 0..a.len() {
        let mut x = Scalar::ONE;
        let mut acc = Scalar::ZERO;
        for c in a {
            acc += *c * x;
            x *= wk;
        }
        out.push(acc);
        wk *= w;
    }
    out
}

/// Iterative radix-2 on the CPU (validated against `naive_dft` below).
fn cpu_fft(a: &mut [Scalar], w: Scalar) {
    let n = a.len();
    let log_n = n.trailing_zeros();
    for i in 0..n {
        let j = if log_n == 0 { 0 } else { i.reverse_bits() >> (usize::BITS - log_n) };
        if i < j {
            a.swap(i, j);
        }
    }
    let mut m = 1;
    while m < n {
        let wm = w.pow_vartime([(n / (2 * m)) as u64]);
        for k in (0..n).step_by(2 * m) {
            let mut x = Scalar::ONE;
            for j in 0..m {
                let t = a[k + j + m] * x;
                a[k + j + m] = a[k + j] - t;
                a[k + j] += t;
                x *= wm;
            }
        }
        m *= 2;
    }
}

/// The CPU reference of every kind, in terms of a plain transform `fft`.
fn reference(a: &[Scalar], kind: NttKind, fft: &dyn Fn(&[Scalar], Scalar) -> Vec<Scalar>) -> Vec<Scalar> {
    let n = a.len();
    let w = omega(n.trailing_zeros());
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let powers = |base: Scalar| -> Vec<Scalar> {
        std::iter::successors(Some(Scalar::ONE), |x| Some(*x * base)).take(n).collect()
    };
    let n_inv = Scalar::from(n as u64).invert().unwrap();
    match kind {
        NttKind::Forward => fft(a, w),
        NttKind::Inverse => fft(a, w.invert().unwrap()).into_iter().map(|x| x * n_inv).collect(),
        NttKind::CosetForward => {
            let shifted: Vec<Scalar> = a.iter().zip(powers(g)).map(|(x, p)| *x * p).collect();
            fft(&shifted, w)
        }
        NttKind::CosetInverse => {
            let g_inv = g.invert().unwrap();
            let v = fft(a, w.invert().unwrap());
            v.into_iter().zip(powers(g_inv)).map(|(x, p)| x * p * n_inv).collect()
        }
    }
}

const KINDS: [NttKind; 4] = [NttKind::Forward, NttKind::Inverse, NttKind::CosetForward, NttKind::CosetInverse];

fn random_scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
    (0..n).map(|_| Scalar::random(&mut *rng)).collect()
}

fn check_ntt(device: &Device, a: &[Scalar], kind: NttKind, fft: &dyn Fn(&[Scalar], Scalar) -> Vec<Scalar>) {
    let want = reference(a, kind, fft);
    let mut got = a.to_vec();
    ntt(device, &mut got, kind).unwrap();
    if let Some(i) = (0..a.len()).find(|&i| got[i] != want[i]) {
        panic!("{kind:?} of size {} differs first at index {i}", a.len());
    }
}

fn ntt_small_sizes_match_naive_dft(device: &Device, rng: &mut ChaCha20Rng) {
    let naive = |a: &[Scalar], w: Scalar| naive_dft(a, w);
    let radix2 = |a: &[Scalar], w: Scalar| {
        let mut v = a.to_vec();
        cpu_fft(&mut v, w);
        v
    };
    for log_n in 0..=7 {
        let a = random_scalars(rng, 1 << log_n);
        assert_eq!(radix2(&a, omega(log_n)), naive(&a, omega(log_n)), "CPU radix-2 reference, 2^{log_n}");
        for kind in KINDS {
            check_ntt(device, &a, kind, &naive);
        }
    }
}

fn ntt_up_to_2_22_matches_cpu_radix2(device: &Device, rng: &mut ChaCha20Rng) {
    let radix2 = |a: &[Scalar], w: Scalar| {
        let mut v = a.to_vec();
        cpu_fft(&mut v, w);
        v
    };
    for log_n in (8..=20).chain([22]) {
        let a = random_scalars(rng, 1 << log_n);
        let kinds: &[NttKind] = if log_n <= 16 { &KINDS } else { &[NttKind::Forward, NttKind::CosetInverse] };
        for &kind in kinds {
            check_ntt(device, &a, kind, &radix2);
        }
    }
}

fn ntt_2_24_round_trips_and_spot_checks(device: &Device, rng: &mut ChaCha20Rng) {
    let log_n = 24;
    let n = 1usize << log_n;
    let a = random_scalars(rng, n);
    let mut v = a.clone();
    ntt(device, &mut v, NttKind::CosetForward).unwrap();
    // Spot checks of the definition: A_k = sum_i a_i g^i w^(ik).
    let w = omega(log_n);
    for k in [0u64, 1, rng.next_u64() % n as u64] {
        let step = w.pow_vartime([k]) * Scalar::MULTIPLICATIVE_GENERATOR;
        let mut x = Scalar::ONE;
        let mut acc = Scalar::ZERO;
        for c in &a {
            acc += *c * x;
            x *= step;
        }
        assert_eq!(v[k as usize], acc, "coset evaluation at index {k}");
    }
    ntt(device, &mut v, NttKind::CosetInverse).unwrap();
    assert!(v == a, "CosetInverse(CosetForward(a)) != a at 2^{log_n}");
    ntt(device, &mut v, NttKind::Forward).unwrap();
    ntt(device, &mut v, NttKind::Inverse).unwrap();
    assert!(v == a, "Inverse(Forward(a)) != a at 2^{log_n}");
}

fn ntt_rejects_non_powers_of_two(device: &Device, _: &mut ChaCha20Rng) {
    for len in [0usize, 3, 5, 12, 1000] {
        let mut a = vec![Scalar::ONE; len];
        let err = ntt(device, &mut a, NttKind::Forward).unwrap_err();
        assert!(matches!(err, GpuError::InvalidInput(_)), "size {len}: {err:?}");
    }
}

/// The benchmark's resident, timed transform computes what `ntt` does.
fn ntt_timed_matches_ntt(device: &Device, rng: &mut ChaCha20Rng) {
    for log_n in [1u32, 2, 11, 12] {
        let a = random_scalars(rng, 1 << log_n);
        let input = DeviceScalars::upload(device, &a).unwrap();
        for kind in KINDS {
            let timed = ntt_timed(&input, kind, 2, true).unwrap();
            assert_eq!(timed.device_ms.len(), 2);
            assert!(timed.device_ms.iter().all(|ms| ms.is_finite() && *ms >= 0.0), "{:?}", timed.device_ms);
            let mut want = a.clone();
            ntt(device, &mut want, kind).unwrap();
            assert!(timed.result == want, "{kind:?} of 2^{log_n}");
        }
    }
    let one = DeviceScalars::upload(device, &[Scalar::ONE]).unwrap();
    assert!(matches!(ntt_timed(&one, NttKind::Forward, 1, false), Err(GpuError::InvalidInput(_))));
}

fn fp_mul_chain_matches_blstrs(device: &Device, rng: &mut ChaCha20Rng) {
    let mut seeds: Vec<Fp> = (0..13).map(|_| Fp::random(&mut *rng)).collect();
    seeds.extend([Fp::ZERO, Fp::ONE, -Fp::ONE]);
    // More threads than seeds, a partial last block, a sample of every thread.
    let (threads, iters) = (1000u64, 77u32);
    let run = fp_mul_chain(device, &seeds, threads, iters, threads as usize).unwrap();
    for (t, got) in run.sample.iter().enumerate() {
        assert_eq!(*got, fp_mul_chain_reference(&seeds, t, iters), "thread {t}");
    }
    let zero_iters = fp_mul_chain(device, &seeds, 20, 0, 20).unwrap();
    assert!(zero_iters.sample.iter().enumerate().all(|(t, x)| *x == seeds[t % seeds.len()]));
    assert!(matches!(fp_mul_chain(device, &[], 10, 1, 0), Err(GpuError::InvalidInput(_))));
    assert!(matches!(fp_mul_chain(device, &seeds, 10, 1, 11), Err(GpuError::InvalidInput(_))));
}

/// The FP64-limb product's chains on the device against the same product
/// run on the CPU (cuda/ff/fp64.hpp compiled by g++, step by step) and
/// against blstrs: the device's DFMA must round exactly as std::fma does.
fn fp64_mul_chain_matches_host_and_blstrs(device: &Device, rng: &mut ChaCha20Rng) {
    let mut seeds: Vec<Fp> = (0..13).map(|_| Fp::random(&mut *rng)).collect();
    seeds.extend([Fp::ZERO, Fp::ONE, -Fp::ONE]);
    let (threads, iters) = (1000u64, 77u32);
    let run = fp64_mul_chain(device, &seeds, threads, iters, threads as usize).unwrap();
    let k = seeds.len();
    for (t, got) in run.sample.iter().enumerate() {
        let y = seeds[(t + 1) % k];
        let host = (0..iters).fold(seeds[t % k], |x, _| host_fp64_mul(&x, &y).unwrap());
        assert_eq!(*got, host, "thread {t}: device against the host run");
        assert_eq!(*got, fp_mul_chain_reference(&seeds, t, iters), "thread {t}: against blstrs");
    }
    let zero_iters = fp64_mul_chain(device, &seeds, 20, 0, 20).unwrap();
    assert!(zero_iters.sample.iter().enumerate().all(|(t, x)| *x == seeds[t % k]));
    assert!(matches!(fp64_mul_chain(device, &[], 10, 1, 0), Err(GpuError::InvalidInput(_))));
    assert!(matches!(fp64_mul_chain(device, &seeds, 10, 1, 11), Err(GpuError::InvalidInput(_))));
}

fn g1_add_chain_matches_blstrs(device: &Device, rng: &mut ChaCha20Rng) {
    let points: Vec<G1Projective> = (0..16).map(|_| G1Projective::random(&mut *rng)).collect();
    let mut bases = vec![G1Affine::identity(); points.len()];
    G1Projective::batch_normalize(&points, &mut bases);
    let (threads, iters) = (300u64, 40u32);
    let run = g1_add_chain(device, &bases, threads, iters, threads as usize).unwrap();
    for (t, got) in run.sample.iter().enumerate() {
        assert_eq!(*got, g1_add_chain_reference(&bases, t, iters), "thread {t}");
    }
    // 3 bases is not a power of two; 512 is more than the kernel holds.
    assert!(matches!(g1_add_chain(device, &bases[..3], 10, 1, 1), Err(GpuError::InvalidInput(_))));
    let many = vec![bases[0]; 512];
    assert!(matches!(g1_add_chain(device, &many, 10, 1, 1), Err(GpuError::InvalidInput(_))));
}

fn out_of_memory_is_typed_and_recoverable(device: &Device, rng: &mut ChaCha20Rng) {
    let requested = 1u64 << 50;
    match probe_alloc(device, requested).unwrap_err() {
        GpuError::OutOfMemory { requested: r, free } => {
            assert_eq!(r, requested);
            assert!(free > 0 && free <= device.info().total_mem);
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    probe_alloc(device, 1 << 20).unwrap();
    let a = random_scalars(rng, 1 << 10);
    check_ntt(device, &a, NttKind::Forward, &|a, w| naive_dft(a, w));
}

fn unknown_device_is_typed(device: &Device, _: &mut ChaCha20Rng) {
    let count = devices().unwrap().len() as i32;
    assert_eq!(Device::open(count).unwrap_err(), GpuError::NoDevice { id: count, count });
    assert!(device.info().id < count);
}
