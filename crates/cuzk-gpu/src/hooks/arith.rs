use cuzk_ffi::hooks::ffi as hooks;
use crate::curve::{KernelCurve, G1, G2};
use crate::{Device, GpuError};
use blstrs::{Fp, Fp2, Scalar};
use cuzk_ffi::cast::{as_limbs, as_limbs_mut, Limbs};
use ff::Field;
use group::prime::PrimeCurveAffine;

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

/// `a * b` through the FP64-limb Montgomery product (cuda/ff/fp64.hpp) run
/// on the host, a faithful reference of its device run. `a` and `b` may hold
/// any Montgomery limbs below 2p (the other form of a residue); the result
/// is canonical. Limbs at or above 2p are `InvalidInput`.
pub fn host_fp64_mul(a: &Fp, b: &Fp) -> Result<Fp, GpuError> {
    let mut out = [Fp::ZERO];
    hooks::fp64_mul_host(as_limbs(std::slice::from_ref(a)), as_limbs(std::slice::from_ref(b)), as_limbs_mut(&mut out))?;
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

/// A group of [`KernelCurve`] with its name on the hook bridge.
pub trait HookCurve: KernelCurve {
    /// Its name on the hook bridge.
    const CURVE: hooks::Curve;
}
impl HookCurve for G1 {
    const CURVE: hooks::Curve = hooks::Curve::G1;
}
impl HookCurve for G2 {
    const CURVE: hooks::Curve = hooks::Curve::G2;
}

/// `op` on Jacobian `p` (and `q`: Jacobian limbs for `Add`, affine limbs for
/// `AddAffine`, ignored otherwise), through the kernels' XYZZ formulas on
/// the host; returns the affine result.
pub fn host_curve_op<C: HookCurve>(op: CurveOp, p: &C::Jacobian, q: &[u64]) -> Result<C::Affine, GpuError> {
    let mut out = [C::Affine::identity()];
    hooks::curve_op(C::CURVE, op, as_limbs(std::slice::from_ref(p)), q, as_limbs_mut(&mut out))?;
    Ok(out[0])
}
