use cuzk_ffi::hooks::ffi as hooks;
use crate::{Device, DeviceScalars, GpuError};
use blstrs::Scalar;
use ff::Field;
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
    let device_ms = hooks::fr_ntt_timed(input.array(), kind.into(), runs, cast::as_limbs_mut(&mut result))?;
    Ok(TimedNtt { device_ms, result })
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
