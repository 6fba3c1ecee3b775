//! Groth16 parameter generation with the fixed-base multiplications on a
//! device: cuzk-groth16 computes the scalars ([`SetupScalars`]) on the CPU,
//! and [`GpuFixedBase`] multiplies the generators by them
//! (cuda/msm/fixed_base.hpp), which is nearly all of a setup's time at
//! Filecoin's size: ~450 M G1 and ~60 M G2 points for a 2^27 domain.
//!
//! The window table of the generator is built here on the host (16 rows of
//! 2^15 points at most, well under a second on rayon's pool); the device
//! then adds one table point per non-zero digit of each scalar, with no
//! doubling, and converts to affine with one inversion per run of points.
//!
//! [`SetupScalars`]: cuzk_groth16::SetupScalars

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use cuzk_ffi::ffi;
use cuzk_groth16::setup::SetupProgress;
use cuzk_groth16::{FixedBaseMul, Parameters, ToxicWaste};
use cuzk_synth::recorded::RecordedShape;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rayon::prelude::*;
use thiserror::Error;

use crate::curve::{G1, G2};
use crate::msm::MsmCurve;
use crate::{Device, GpuError};

/// Narrowest window the plan takes (the kernels accept 2 to 20).
const MIN_WINDOW_BITS: u32 = 2;
/// Widest window the plan takes: a 16-bit table is 16 rows of 2^15 points,
/// 48 MiB in G1 (96 in G2), about the H200's L2 cache. A 2^27-scalar call
/// would gain ~2 % additions at 18 bits for a table four times larger.
pub const MAX_WINDOW_BITS: u32 = 16;
/// Most scalars in flight per stream: 2^22 G1 points take 1.5 GB of device
/// memory (3 GB in G2), and two streams alternate.
pub const MAX_CHUNK: usize = 1 << 22;
/// Scalars per bridge call, so that progress is reported between calls.
const PROGRESS_SLICE: usize = 1 << 25;
/// What one host addition of the table costs in device additions: the
/// host has a few cores, the device ~10^4 threads.
const HOST_ADDITION_COST: u128 = 64;

/// A group whose points the setup multiplies: its blstrs projective type
/// for the table, and the kernels' affine layout for the results.
pub trait SetupCurve: MsmCurve {
    /// blstrs' projective type.
    type Projective: Group<Scalar = Scalar> + Curve<AffineRepr = Self::Affine>;
}
impl SetupCurve for G1 {
    type Projective = G1Projective;
}
impl SetupCurve for G2 {
    type Projective = G2Projective;
}

/// How a fixed-base call runs: the window width of its table and the
/// scalars per chunk on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedBasePlan {
    /// c: the table has ⌈256/c⌉ rows of 2^(c-1) points.
    pub window_bits: u32,
    /// Scalars in flight per stream.
    pub chunk: usize,
}

impl FixedBasePlan {
    /// The plan for `n` scalars on a device with `free_bytes` free: the
    /// window that minimises the device's additions (one per window and
    /// scalar) plus the host's table (2^(c-1) additions per window,
    /// weighted), and chunks of at most [`MAX_CHUNK`] of which the two in
    /// flight take at most a quarter of the free memory.
    pub fn new<C: SetupCurve>(n: usize, free_bytes: u64) -> FixedBasePlan {
        let cost = |c: u32| {
            let windows = u128::from(256u32.div_ceil(c));
            windows * (n as u128 + HOST_ADDITION_COST * (1u128 << (c - 1)))
        };
        let window_bits = (MIN_WINDOW_BITS..=MAX_WINDOW_BITS).min_by_key(|&c| cost(c)).expect("a non-empty range");
        let fit = free_bytes / 4 / device_bytes_per_point::<C>();
        let chunk = n.min(MAX_CHUNK).min(usize::try_from(fit).unwrap_or(usize::MAX)).max(1);
        FixedBasePlan { window_bits, chunk }
    }
}

/// Device bytes per scalar in flight (cuda/api/setup.cu's chunk buffers):
/// the scalar, its XYZZ point (4 coordinates), the conversion's prefix
/// product and the affine result (2).
pub fn device_bytes_per_point<C: SetupCurve>() -> u64 {
    let coordinate = std::mem::size_of::<C::Affine>() as u64 / 2;
    32 + 7 * coordinate
}

/// The window table of `g` for `window_bits`-bit signed digits, in the
/// kernels' layout: row w holds d·2^(c·w)·g for d = 1..=2^(c-1), affine.
pub fn window_table<C: SetupCurve>(g: C::Projective, window_bits: u32) -> Result<Vec<C::Affine>, GpuError> {
    if !(MIN_WINDOW_BITS..=20).contains(&window_bits) {
        return Err(GpuError::InvalidInput(format!("window width {window_bits} is outside [2, 20]")));
    }
    let row = 1usize << (window_bits - 1);
    let mut bases = Vec::new();
    let mut base = g;
    for _ in 0..256u32.div_ceil(window_bits) {
        bases.push(base);
        for _ in 0..window_bits {
            base = base.double();
        }
    }
    let rows: Vec<Vec<C::Affine>> = bases
        .into_par_iter()
        .map(|base| {
            let mut multiples = Vec::with_capacity(row);
            let mut acc = base;
            for _ in 0..row {
                multiples.push(acc);
                acc += base;
            }
            let mut affine = vec![C::Affine::identity(); row];
            C::Projective::batch_normalize(&multiples, &mut affine);
            affine
        })
        .collect();
    Ok(rows.concat())
}

/// sᵢ·g for every scalar on `device`, affine, in blstrs' layout (the
/// identity for a zero scalar), with the plan for their number.
pub fn fixed_base<C: SetupCurve>(
    device: &Device,
    g: C::Projective,
    scalars: &[Scalar],
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<C::Affine>, GpuError> {
    if scalars.is_empty() {
        return Ok(Vec::new());
    }
    let free = ffi::device_info(device.id())?.free_mem;
    fixed_base_with::<C>(device, g, scalars, FixedBasePlan::new::<C>(scalars.len(), free), progress)
}

/// [`fixed_base`] with a given plan (tests cross chunk boundaries with small ones).
pub fn fixed_base_with<C: SetupCurve>(
    device: &Device,
    g: C::Projective,
    scalars: &[Scalar],
    plan: FixedBasePlan,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<C::Affine>, GpuError> {
    let table = window_table::<C>(g, plan.window_bits)?;
    let mut out = vec![C::Affine::identity(); scalars.len()];
    let total = scalars.len() as u64;
    let mut done = 0;
    for (src, dst) in scalars.chunks(PROGRESS_SLICE).zip(out.chunks_mut(PROGRESS_SLICE)) {
        ffi::fixed_base_mul(
            device.id(),
            C::ARRAY,
            as_limbs(&table),
            plan.window_bits,
            as_limbs(src),
            plan.chunk as u64,
            as_limbs_mut(dst),
        )?;
        done += src.len() as u64;
        progress(done, total);
    }
    Ok(out)
}

/// [`fixed_base`] in G1.
pub fn fixed_base_g1(device: &Device, g: G1Projective, scalars: &[Scalar]) -> Result<Vec<G1Affine>, GpuError> {
    fixed_base::<G1>(device, g, scalars, &mut |_, _| {})
}

/// [`fixed_base`] in G2.
pub fn fixed_base_g2(device: &Device, g: G2Projective, scalars: &[Scalar]) -> Result<Vec<G2Affine>, GpuError> {
    fixed_base::<G2>(device, g, scalars, &mut |_, _| {})
}

/// Why a GPU setup failed: the device, or the setup itself (a degenerate
/// toxic waste, an unconstrained variable, a domain too large).
#[derive(Debug, Error)]
pub enum SetupError {
    /// A device call failed (out of memory included), typed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The setup's own checks.
    #[error(transparent)]
    Groth16(#[from] cuzk_groth16::Error),
}

/// cuzk-groth16's [`FixedBaseMul`] on one device.
#[derive(Clone, Debug)]
pub struct GpuFixedBase {
    device: Device,
}

impl GpuFixedBase {
    /// Multiplications on `device`.
    pub fn new(device: &Device) -> GpuFixedBase {
        GpuFixedBase { device: device.clone() }
    }
}

impl FixedBaseMul for GpuFixedBase {
    type Error = SetupError;

    fn g1(
        &self,
        g: G1Projective,
        scalars: &[Scalar],
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<G1Affine>, SetupError> {
        Ok(fixed_base::<G1>(&self.device, g, scalars, progress)?)
    }

    fn g2(
        &self,
        g: G2Projective,
        scalars: &[Scalar],
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<G2Affine>, SetupError> {
        Ok(fixed_base::<G2>(&self.device, g, scalars, progress)?)
    }
}

/// The parameters of the circuit `shape` was recorded from, with the
/// multiplications on `device`: byte for byte what
/// `cuzk_groth16::generate_parameters` gives for that circuit and toxic
/// waste.
pub fn generate_parameters_from_shape(
    device: &Device,
    shape: &RecordedShape<Scalar>,
    toxic: &ToxicWaste,
    progress: SetupProgress<'_>,
) -> Result<Parameters, SetupError> {
    cuzk_groth16::generate_parameters_from_shape(shape, toxic, &GpuFixedBase::new(device), progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;

    #[test]
    fn plans_take_wider_windows_for_more_scalars_and_bounded_chunks() {
        let free = 100u64 << 30;
        let mut last = 0;
        for log in 0..=30 {
            let plan = FixedBasePlan::new::<G1>(1 << log, free);
            assert!((MIN_WINDOW_BITS..=MAX_WINDOW_BITS).contains(&plan.window_bits), "2^{log}: {plan:?}");
            assert!(plan.window_bits >= last, "2^{log}: {plan:?}");
            assert_eq!(plan.chunk, (1usize << log).min(MAX_CHUNK), "2^{log}");
            last = plan.window_bits;
        }
        assert_eq!(FixedBasePlan::new::<G1>(1 << 24, free).window_bits, 16);
        assert_eq!(FixedBasePlan::new::<G2>(1 << 27, free).window_bits, 16);
    }

    #[test]
    fn chunks_fit_a_quarter_of_the_free_memory() {
        assert_eq!((device_bytes_per_point::<G1>(), device_bytes_per_point::<G2>()), (368, 704));
        let plan = FixedBasePlan::new::<G2>(1 << 27, 704 * 4 * 1000);
        assert_eq!(plan.chunk, 1000);
        assert_eq!(FixedBasePlan::new::<G1>(5, 0).chunk, 1, "at least one scalar per chunk");
        assert_eq!(FixedBasePlan::new::<G1>(0, 1 << 30).chunk, 1);
    }

    #[test]
    fn window_tables_hold_signed_digit_multiples() {
        let g = G1Projective::generator() * Scalar::from(12345u64);
        for c in [2, 3, 5, 8] {
            let table = window_table::<G1>(g, c).unwrap();
            let row = 1usize << (c - 1);
            assert_eq!(table.len(), 256usize.div_ceil(c as usize) * row);
            for (w, d) in [(0, 1), (0, row), (1, 1), (256usize.div_ceil(c as usize) - 1, row)] {
                let weight = Scalar::from(2u64).pow_vartime([(w * c as usize) as u64]) * Scalar::from(d as u64);
                assert_eq!(table[w * row + d - 1], (g * weight).to_affine(), "c = {c}, w = {w}, d = {d}");
            }
        }
        assert!(window_table::<G2>(G2Projective::generator(), 1).is_err());
        assert!(window_table::<G2>(G2Projective::generator(), 21).is_err());
    }
}
