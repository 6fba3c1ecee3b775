use cuzk_ffi::hooks::ffi as hooks;
use crate::ntt::log_size;
use crate::{Device, DeviceScalars, GpuError, NttKind};
use blstrs::{Fp, G1Affine, G1Projective, Scalar};
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use ff::Field;
use group::Group;

/// What a throughput kernel computed for its first threads, and its device time.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainRun<T> {
    /// The results of threads 0, 1, ... (as many as asked for).
    pub sample: Vec<T>,
    /// Device milliseconds of the kernel alone.
    pub device_ms: f32,
}

/// `threads` dependent chains of `iters` Fp multiplications on the device
/// (see [`fp_mul_chain_reference`]); returns the first `sample` results.
pub fn fp_mul_chain(device: &Device, seeds: &[Fp], threads: u64, iters: u32, sample: usize) -> Result<ChainRun<Fp>, GpuError> {
    let mut out = vec![Fp::ZERO; sample];
    let device_ms = hooks::fp_mul_chain(device.id(), as_limbs(seeds), threads, iters, as_limbs_mut(&mut out))?;
    Ok(ChainRun { sample: out, device_ms })
}

/// [`fp_mul_chain`] with the FP64-limb product (cuda/ff/fp64.hpp) as the
/// multiplier: the same chains and results ([`fp_mul_chain_reference`]).
pub fn fp64_mul_chain(device: &Device, seeds: &[Fp], threads: u64, iters: u32, sample: usize) -> Result<ChainRun<Fp>, GpuError> {
    let mut out = vec![Fp::ZERO; sample];
    let device_ms = hooks::fp64_mul_chain(device.id(), as_limbs(seeds), threads, iters, as_limbs_mut(&mut out))?;
    Ok(ChainRun { sample: out, device_ms })
}

/// Thread t's result of [`fp_mul_chain`] and [`fp64_mul_chain`]: `seeds[t % k] * seeds[(t + 1) % k]^iters`.
pub fn fp_mul_chain_reference(seeds: &[Fp], t: usize, iters: u32) -> Fp {
    let k = seeds.len();
    seeds[t % k] * seeds[(t + 1) % k].pow_vartime([u64::from(iters)])
}

/// `threads` chains of `iters` G1 mixed additions on the device, in the
/// MSM bucket accumulation's arithmetic (Fp kept below 2p; see
/// [`g1_add_chain_reference`]; `bases.len()` a power of two up to 256);
/// returns the first `sample` sums.
pub fn g1_add_chain(
    device: &Device,
    bases: &[G1Affine],
    threads: u64,
    iters: u32,
    sample: usize,
) -> Result<ChainRun<G1Projective>, GpuError> {
    // X, Y, ZZ, ZZZ per thread.
    let mut out = vec![Fp::ZERO; 4 * sample];
    let device_ms = hooks::g1_add_chain(device.id(), as_limbs(bases), threads, iters, as_limbs_mut(&mut out))?;
    let sample = out.chunks(4).map(|c| xyzz_to_jacobian(c[0], c[1], c[2], c[3])).collect();
    Ok(ChainRun { sample, device_ms })
}

/// Thread t's result of [`g1_add_chain`]: the sum of `bases[(t + j) % k]`
/// for j = 0..=iters.
pub fn g1_add_chain_reference(bases: &[G1Affine], t: usize, iters: u32) -> G1Projective {
    let k = bases.len();
    (0..=iters as usize).fold(G1Projective::identity(), |acc, j| acc + bases[(t + j) % k])
}

/// The XYZZ point (X, Y, ZZ, ZZZ), x = X/ZZ and y = Y/ZZZ, in blst's
/// Jacobian form without an inversion: (X ZZ^2, Y ZZ^3, ZZZ), since
/// ZZZ^2 = ZZ^3. ZZ = 0 (the identity) gives Z = 0.
fn xyzz_to_jacobian(x: Fp, y: Fp, zz: Fp, zzz: Fp) -> G1Projective {
    let zz2 = zz.square();
    G1Projective::from_raw_unchecked(x * zz2, y * zz2 * zz, zzz)
}

/// The device times of repeated transforms of one resident input, and the
/// transform itself when it was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedNtt {
    /// Device milliseconds of each run (CUDA events around the kernels).
    pub device_ms: Vec<f32>,
    /// The transform of the input; empty unless requested.
    pub result: Vec<Scalar>,
}

/// Transforms the resident `input` `runs` times out of place, timing each
/// run on the device. The twiddle and coset tables are built once, before
/// the first run and untimed, as the Groth16 host builds them once per
/// domain; `keep_result` copies the (identical) output back afterwards.
pub fn ntt_timed(input: &DeviceScalars, kind: NttKind, runs: u32, keep_result: bool) -> Result<TimedNtt, GpuError> {
    if log_size(input.len())? == 0 {
        return Err(GpuError::InvalidInput("a transform of one element does no work to time".into()));
    }
    let mut result = if keep_result { vec![Scalar::ZERO; input.len()] } else { Vec::new() };
    let device_ms = hooks::fr_ntt_timed(input.array(), kind.into(), runs, as_limbs_mut(&mut result))?;
    Ok(TimedNtt { device_ms, result })
}
