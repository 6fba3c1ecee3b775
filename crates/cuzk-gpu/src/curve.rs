use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use cuzk_ffi::cast::Limbs;
use group::prime::PrimeCurveAffine;

/// A group whose Jacobian and affine blstrs types the kernels implement.
pub trait KernelCurve {
    /// blstrs' Jacobian ("projective") type.
    type Jacobian: Limbs;
    /// blstrs' affine type.
    type Affine: Limbs + PrimeCurveAffine;
}

/// Marker for G1 (in `msm`, `batch_add` and the hooks).
pub struct G1;
/// Marker for G2 (in `msm`, `batch_add` and the hooks).
pub struct G2;

impl KernelCurve for G1 {
    type Jacobian = G1Projective;
    type Affine = G1Affine;
}
impl KernelCurve for G2 {
    type Jacobian = G2Projective;
    type Affine = G2Affine;
}
