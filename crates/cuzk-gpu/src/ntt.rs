use crate::{Device, GpuError};
use blstrs::Scalar;
use cuzk_ffi::{cast, ffi};

/// Which transform [`ntt`] computes; all take and return natural order.
/// `w` is the primitive n-th root of unity (ff's `ROOT_OF_UNITY` squared
/// down, as the CPU domain uses) and `g` Fr's `MULTIPLICATIVE_GENERATOR` (7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NttKind {
    /// `A_k = sum_i a_i w^(ik)`.
    Forward,
    /// `a_i = n^-1 sum_k A_k w^(-ik)`, the inverse of `Forward`.
    Inverse,
    /// `Forward` of `a_i g^i`: evaluation on the coset `g<w>`.
    CosetForward,
    /// `Inverse`, then `a_i *= g^-i`: the inverse of `CosetForward`.
    CosetInverse,
}

impl From<NttKind> for ffi::NttKind {
    fn from(k: NttKind) -> Self {
        match k {
            NttKind::Forward => ffi::NttKind::Forward,
            NttKind::Inverse => ffi::NttKind::Inverse,
            NttKind::CosetForward => ffi::NttKind::CosetForward,
            NttKind::CosetInverse => ffi::NttKind::CosetInverse,
        }
    }
}

/// Fr's two-adicity: the largest supported transform is 2^32 elements.
pub const MAX_LOG_SIZE: u32 = 32;

/// log2 of a valid transform length: a power of two from 1 to 2^MAX_LOG_SIZE.
pub fn log_size(len: usize) -> Result<u32, GpuError> {
    if !len.is_power_of_two() {
        return Err(GpuError::InvalidInput(format!("NTT size {len} is not a power of two")));
    }
    let log = len.trailing_zeros();
    if log > MAX_LOG_SIZE {
        return Err(GpuError::InvalidInput(format!("NTT size 2^{log} exceeds Fr's two-adicity 2^{MAX_LOG_SIZE}")));
    }
    Ok(log)
}

/// Transforms `data` in place on `device`.
pub fn ntt(device: &Device, data: &mut [Scalar], kind: NttKind) -> Result<(), GpuError> {
    log_size(data.len())?;
    Ok(ffi::fr_ntt(device.id(), kind.into(), cast::as_limbs_mut(data))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_must_be_powers_of_two() {
        for len in [0usize, 3, 6, 12, 1000] {
            assert!(matches!(log_size(len), Err(GpuError::InvalidInput(_))), "len {len}");
        }
        for log in 0..20 {
            assert_eq!(log_size(1 << log), Ok(log));
        }
    }
}
