use cuzk_ffi::hooks::ffi as hooks;
use crate::hooks::arith::HookCurve;
use crate::setup::{window_table, SetupCurve};
use crate::GpuError;
use blstrs::Scalar;
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use group::prime::PrimeCurveAffine;

/// sᵢ·g for every scalar computed by the fixed-base kernels' point and
/// conversion code compiled for the host, from `g`'s window table for
/// `window_bits`-bit windows; the conversion to affine runs as `stride`
/// strided runs, as the kernel's threads do.
pub fn fixed_base_on_host<C: SetupCurve + HookCurve>(
    g: C::Projective,
    scalars: &[Scalar],
    window_bits: u32,
    stride: u64,
) -> Result<Vec<C::Affine>, GpuError> {
    let table = window_table::<C>(g, window_bits)?;
    let mut out = vec![C::Affine::identity(); scalars.len()];
    hooks::fixed_base_host(C::CURVE, as_limbs(&table), window_bits, as_limbs(scalars), stride, as_limbs_mut(&mut out))?;
    Ok(out)
}

/// The same with a table given as it is (a malformed one is refused).
pub fn fixed_base_on_host_with_table<C: HookCurve>(
    table: &[C::Affine],
    scalars: &[Scalar],
    window_bits: u32,
    stride: u64,
) -> Result<Vec<C::Affine>, GpuError> {
    let mut out = vec![C::Affine::identity(); scalars.len()];
    hooks::fixed_base_host(C::CURVE, as_limbs(table), window_bits, as_limbs(scalars), stride, as_limbs_mut(&mut out))?;
    Ok(out)
}
