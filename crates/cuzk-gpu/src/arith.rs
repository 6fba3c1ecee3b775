use cuzk_ffi::hooks::ffi as hooks;
use crate::{Device, GpuError};
use blstrs::{Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_ffi::cast::{as_limbs, as_limbs_mut, Limbs};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Group;

pub use cuzk_ffi::hooks::ffi::{CurveOp, FieldOp};

/// A blstrs field type the kernels implement.
pub trait KernelField: Limbs + ff::Field {
    /// Its name on the bridge.
    const FIELD: hooks::Field;
}
impl KernelField for Scalar {
    const FIELD: hooks::Field = hooks::Field::Fr;
}
impl KernelField for Fp {
    const FIELD: hooks::Field = hooks::Field::Fp;
}
impl KernelField for Fp2 {
    const FIELD: hooks::Field = hooks::Field::Fp2;
}

/// `op(a, b)` computed by the kernels' field code compiled for the host.
/// The `*Chain` ops run the device's carry-chain schedules instead, over an
/// emulated carry flag; Fp2's only one is `MulChain` (others are `InvalidInput`).
pub fn host_field_op<F: KernelField>(op: FieldOp, a: &F, b: &F) -> Result<F, GpuError> {
    let mut out = [F::ZERO];
    hooks::field_op(F::FIELD, op, as_limbs(std::slice::from_ref(a)), as_limbs(std::slice::from_ref(b)), as_limbs_mut(&mut out))?;
    Ok(out[0])
}

/// The Montgomery constants the kernels derived from a modulus, as u64 limbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MontgomeryConstants {
    /// p itself (canonical).
    pub modulus: Vec<u64>,
    /// R = 2^(64 limbs) mod p: Montgomery one.
    pub one: Vec<u64>,
    /// R^2 mod p: the factor into Montgomery form.
    pub r2: Vec<u64>,
    /// -p^-1 mod 2^32, the kernels' per-limb reduction factor.
    pub m0: u32,
}

/// The constants the host build of the kernels' field code uses.
pub fn host_field_constants<F: KernelField>() -> Result<MontgomeryConstants, GpuError> {
    let (mut modulus, mut one, mut r2) = (vec![0; F::LIMBS], vec![0; F::LIMBS], vec![0; F::LIMBS]);
    let m0 = hooks::field_constants(F::FIELD, &mut modulus, &mut one, &mut r2)?;
    Ok(MontgomeryConstants { modulus, one, r2, m0 })
}

/// The primitive 2^log_n-th root of unity the NTT kernels derive.
pub fn host_root_of_unity(log_n: u32) -> Result<Scalar, GpuError> {
    let mut out = [Scalar::ZERO];
    hooks::ntt_root_of_unity(log_n, as_limbs_mut(&mut out))?;
    Ok(out[0])
}

/// Element-wise `a[i] * b[i]` on the device, with the kernels' multiplier.
pub fn device_field_mul<F: KernelField>(device: &Device, a: &[F], b: &[F]) -> Result<Vec<F>, GpuError> {
    if a.len() != b.len() {
        return Err(GpuError::InvalidInput(format!("operand lengths differ: {} and {}", a.len(), b.len())));
    }
    let mut out = vec![F::ZERO; a.len()];
    hooks::gpu_field_mul(device.id(), F::FIELD, as_limbs(a), as_limbs(b), as_limbs_mut(&mut out))?;
    Ok(out)
}

/// A group whose Jacobian and affine blstrs types the kernels implement.
pub trait KernelCurve {
    /// blstrs' Jacobian ("projective") type.
    type Jacobian: Limbs;
    /// blstrs' affine type.
    type Affine: Limbs + PrimeCurveAffine;
    /// Its name on the bridge.
    const CURVE: hooks::Curve;
}

/// Marker for G1 in [`host_curve_op`].
pub struct G1;
/// Marker for G2 in [`host_curve_op`].
pub struct G2;

impl KernelCurve for G1 {
    type Jacobian = G1Projective;
    type Affine = G1Affine;
    const CURVE: hooks::Curve = hooks::Curve::G1;
}
impl KernelCurve for G2 {
    type Jacobian = G2Projective;
    type Affine = G2Affine;
    const CURVE: hooks::Curve = hooks::Curve::G2;
}

/// `op` on Jacobian `p` (and `q`: Jacobian limbs for `Add`, affine limbs for
/// `AddAffine`, ignored otherwise), through the kernels' XYZZ formulas on
/// the host; returns the affine result.
pub fn host_curve_op<C: KernelCurve>(op: CurveOp, p: &C::Jacobian, q: &[u64]) -> Result<C::Affine, GpuError> {
    let mut out = [C::Affine::identity()];
    hooks::curve_op(C::CURVE, op, as_limbs(std::slice::from_ref(p)), q, as_limbs_mut(&mut out))?;
    Ok(out[0])
}

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

/// Thread t's result of [`fp_mul_chain`]: `seeds[t % k] * seeds[(t + 1) % k]^iters`.
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
