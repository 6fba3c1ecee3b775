//! Zero-copy views of blstrs values as the little-endian u64 limbs the C++
//! and CUDA code read. blstrs' types are `#[repr(transparent)]` over blst's
//! structs, which are plain arrays of u64 limbs in Montgomery form, so a
//! slice of them is a slice of limbs; the asserts pin size and alignment.

use blstrs::{Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

/// A blstrs type that is exactly `LIMBS` u64 limbs with no padding.
///
/// # Safety
/// Implementors must be `#[repr(transparent)]` (or `repr(C)`) over
/// `[u64; LIMBS]`-shaped data in which every bit pattern is readable; writes
/// through [`as_limbs_mut`] must keep values valid (canonical Montgomery
/// limbs), which the C++ side guarantees for its outputs.
pub unsafe trait Limbs: Copy {
    /// Number of u64 limbs in one value.
    const LIMBS: usize;
}

macro_rules! limbs {
    ($($t:ty => $n:expr),* $(,)?) => {$(
        const _: () = assert!(std::mem::size_of::<$t>() == 8 * $n);
        const _: () = assert!(std::mem::align_of::<$t>() == std::mem::align_of::<u64>());
        // SAFETY: blstrs declares the type #[repr(transparent)] over a blst
        // struct of u64 limbs; the asserts above pin its size and alignment.
        unsafe impl Limbs for $t {
            const LIMBS: usize = $n;
        }
    )*};
}

limbs! {
    Scalar => 4,
    Fp => 6,
    Fp2 => 12,
    G1Affine => 12,
    G2Affine => 24,
    G1Projective => 18,
    G2Projective => 36,
}

/// The limbs of a slice of values.
pub fn as_limbs<T: Limbs>(values: &[T]) -> &[u64] {
    // SAFETY: T is LIMBS u64s with u64 alignment (trait contract), so the
    // memory of `values` is `values.len() * LIMBS` initialised u64s.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u64>(), values.len() * T::LIMBS) }
}

/// The limbs of a mutable slice of values; writers must leave valid values.
pub fn as_limbs_mut<T: Limbs>(values: &mut [T]) -> &mut [u64] {
    // SAFETY: as in `as_limbs`; the exclusive borrow is carried over.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u64>(), values.len() * T::LIMBS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use group::Group;

    #[test]
    fn scalar_limbs_are_blst_montgomery_limbs() {
        // Montgomery one is R = 2^256 mod r, whose low limb is 0x1_ffff_fffe.
        let one = [Scalar::ONE];
        assert_eq!(as_limbs(&one).len(), 4);
        assert_eq!(as_limbs(&one)[0], 0x0000_0001_ffff_fffe);
        let round = Scalar::from_u64s_le(&as_limbs(&[Scalar::from(5u64)]).try_into().unwrap());
        assert!(bool::from(round.is_some()));
    }

    #[test]
    fn mutable_view_writes_through() {
        let mut v = [Scalar::ZERO, Scalar::ONE];
        let one_limbs: Vec<u64> = as_limbs(&[Scalar::ONE]).to_vec();
        as_limbs_mut(&mut v)[..4].copy_from_slice(&one_limbs);
        assert_eq!(v, [Scalar::ONE, Scalar::ONE]);
    }

    #[test]
    fn point_views_have_blst_lengths() {
        assert_eq!(as_limbs(&[G1Affine::identity()]), &[0u64; 12][..]);
        assert_eq!(as_limbs(&[G2Affine::identity()]), &[0u64; 24][..]);
        assert_eq!(as_limbs(&[G1Projective::generator(), G1Projective::identity()]).len(), 36);
        assert_eq!(as_limbs(&[G2Projective::generator()]).len(), 36);
    }
}
