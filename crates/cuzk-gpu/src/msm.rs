use crate::curve::{KernelCurve, G1, G2};
use crate::{Device, GpuError};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_ffi::cast::{as_limbs, as_limbs_mut, Limbs};
use cuzk_ffi::ffi;
use cuzk_ffi::UniquePtr;
use group::Group;
use std::marker::PhantomData;

/// A group whose affine bases the MSM and batch-addition kernels take.
pub trait MsmCurve: KernelCurve<Jacobian: Group> {
    /// The kind of a resident array of its affine points.
    const ARRAY: ffi::ArrayKind;
}
impl MsmCurve for G1 {
    const ARRAY: ffi::ArrayKind = ffi::ArrayKind::G1Affine;
}
impl MsmCurve for G2 {
    const ARRAY: ffi::ArrayKind = ffi::ArrayKind::G2Affine;
}

/// Affine bases kept in device memory across calls: the Groth16 engine keeps
/// its SRS here, so batch additions and MSMs read HBM instead of PCIe.
pub struct DeviceBases<C: MsmCurve> {
    array: UniquePtr<ffi::DeviceArray>,
    curve: PhantomData<fn() -> C>,
}

impl<C: MsmCurve> DeviceBases<C> {
    /// Copies `bases` to `device`.
    pub fn upload(device: &Device, bases: &[C::Affine]) -> Result<Self, GpuError> {
        Self::wrap(ffi::device_array_upload(device.id(), C::ARRAY, as_limbs(bases))?)
    }

    /// `len` bases on `device` repeating `pattern`, built on the device: large
    /// inputs for benchmarks and memory tests with no host copy of them.
    pub fn tiled(device: &Device, pattern: &[C::Affine], len: usize) -> Result<Self, GpuError> {
        Self::wrap(ffi::device_array_tile(device.id(), C::ARRAY, as_limbs(pattern), len as u64)?)
    }

    fn wrap(array: UniquePtr<ffi::DeviceArray>) -> Result<Self, GpuError> {
        Ok(DeviceBases { array, curve: PhantomData })
    }

    /// Number of bases.
    pub fn len(&self) -> usize {
        array_len(&self.array)
    }

    /// Whether there are no bases.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn array(&self) -> &ffi::DeviceArray {
        self.array.as_ref().expect("a DeviceBases always holds an array")
    }
}

/// Scalars (blstrs' Montgomery form) kept in device memory.
pub struct DeviceScalars {
    array: UniquePtr<ffi::DeviceArray>,
}

impl DeviceScalars {
    /// Copies `scalars` to `device`.
    pub fn upload(device: &Device, scalars: &[Scalar]) -> Result<Self, GpuError> {
        Ok(DeviceScalars { array: ffi::device_array_upload(device.id(), ffi::ArrayKind::Scalar, as_limbs(scalars))? })
    }

    /// `len` scalars on `device` repeating `pattern`, built on the device.
    pub fn tiled(device: &Device, pattern: &[Scalar], len: usize) -> Result<Self, GpuError> {
        Ok(DeviceScalars {
            array: ffi::device_array_tile(device.id(), ffi::ArrayKind::Scalar, as_limbs(pattern), len as u64)?,
        })
    }

    /// Number of scalars.
    pub fn len(&self) -> usize {
        array_len(&self.array)
    }

    /// Whether there are no scalars.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn array(&self) -> &ffi::DeviceArray {
        self.array.as_ref().expect("a DeviceScalars always holds an array")
    }
}

fn array_len(array: &UniquePtr<ffi::DeviceArray>) -> usize {
    array.as_ref().map_or(0, |a| ffi::device_array_len(a) as usize)
}

/// A kernel result with the device time it took (CUDA events around the
/// call's stream work, allocations excluded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceRun<P> {
    /// The computed point.
    pub sum: P,
    /// Device milliseconds.
    pub device_ms: f32,
    /// The window width the MSM took (zero for a batch addition or no scalars).
    pub window_bits: u32,
}

/// `sum_i scalars[i] bases[i]` over the first `scalars.len()` resident
/// bases (the Groth16 host uses prefixes of its resident queries).
pub fn msm_resident<C: MsmCurve>(
    bases: &DeviceBases<C>,
    scalars: &DeviceScalars,
) -> Result<DeviceRun<C::Jacobian>, GpuError> {
    if scalars.len() > bases.len() {
        return Err(GpuError::InvalidInput(format!("{} scalars for {} bases", scalars.len(), bases.len())));
    }
    let windows = ffi::msm_windows(bases.array(), scalars.array())?;
    Ok(DeviceRun { sum: combine_windows::<C>(&windows), device_ms: windows.device_ms, window_bits: windows.window_bits })
}

/// `sum_i scalars[i] bases[i]` on `device`, inputs copied from the host;
/// the slices must have the same length.
pub fn msm<C: MsmCurve>(device: &Device, bases: &[C::Affine], scalars: &[Scalar]) -> Result<C::Jacobian, GpuError> {
    if bases.len() != scalars.len() {
        return Err(GpuError::InvalidInput(format!("{} bases but {} scalars", bases.len(), scalars.len())));
    }
    let bases = DeviceBases::<C>::upload(device, bases)?;
    let scalars = DeviceScalars::upload(device, scalars)?;
    Ok(msm_resident(&bases, &scalars)?.sum)
}

/// [`msm`] in G1.
pub fn msm_g1(device: &Device, bases: &[G1Affine], scalars: &[Scalar]) -> Result<G1Projective, GpuError> {
    msm::<G1>(device, bases, scalars)
}

/// [`msm`] in G2.
pub fn msm_g2(device: &Device, bases: &[G2Affine], scalars: &[Scalar]) -> Result<G2Projective, GpuError> {
    msm::<G2>(device, bases, scalars)
}

/// Resident bases with precomputed copies (copy t of base i is
/// 2^(c S t) P_i), for MSMs whose windows share bucket sets: as many
/// additions into buckets, but S sets to reduce instead of one per window,
/// which lets the MSM take a wider window and so add fewer digits. The
/// bases of a Groth16 SRS are fixed, so their copies are built once.
pub struct MsmTable<C: MsmCurve> {
    array: UniquePtr<ffi::DeviceArray>,
    bases: usize,
    copies: u32,
    curve: PhantomData<fn() -> C>,
}

impl<C: MsmCurve> MsmTable<C> {
    /// Builds `copies` copies (at most one per window are kept) of `bases` on their device.
    pub fn build(bases: &DeviceBases<C>, copies: u32) -> Result<Self, GpuError> {
        Ok(MsmTable { array: ffi::msm_table(bases.array(), copies)?, bases: bases.len(), copies, curve: PhantomData })
    }

    /// Number of bases (MSMs take at most this many scalars).
    pub fn bases(&self) -> usize {
        self.bases
    }

    /// Points held: the bases times the copies kept.
    pub fn points(&self) -> usize {
        array_len(&self.array)
    }

    fn array(&self) -> &ffi::DeviceArray {
        self.array.as_ref().expect("an MsmTable always holds an array")
    }
}

/// [`msm_resident`] over the first `scalars.len()` bases of a table.
pub fn msm_table<C: MsmCurve>(
    table: &MsmTable<C>,
    scalars: &DeviceScalars,
) -> Result<DeviceRun<C::Jacobian>, GpuError> {
    let windows = ffi::msm_windows_table(table.array(), table.bases as u64, table.copies, scalars.array())?;
    Ok(DeviceRun { sum: combine_windows::<C>(&windows), device_ms: windows.device_ms, window_bits: windows.window_bits })
}

/// The window width the MSM kernels pick for `n` scalars of which `wide` are
/// neither 0 nor 1 (`n` for random scalars): zeros and ones add the same
/// digits at any width, so a mostly-boolean MSM takes narrower windows and
/// reduces fewer buckets.
pub fn window_bits_for(n: usize, wide: usize) -> u32 {
    ffi::msm_window_bits(n as u64, wide as u64)
}

/// `sum_w 2^(c w) S_w` by Horner's rule from the top window: ~256
/// doublings in sequence, which one CPU core does far faster than one GPU
/// thread.
fn combine_windows<C: MsmCurve>(windows: &ffi::MsmWindows) -> C::Jacobian {
    let mut sums = vec![C::Jacobian::identity(); windows.sums.len() / C::Jacobian::LIMBS];
    as_limbs_mut(&mut sums).copy_from_slice(&windows.sums);
    let mut acc = C::Jacobian::identity();
    for s in sums.iter().rev() {
        for _ in 0..windows.window_bits {
            acc = acc.double();
        }
        acc += s;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_bits_grow_with_n() {
        let mut last = 0;
        for log in 0..31 {
            let c = window_bits_for(1 << log, 1 << log);
            assert!((2..=22).contains(&c) && c >= last, "n = 2^{log}: c = {c}");
            last = c;
        }
        assert_eq!(window_bits_for(0, 0), 2);
    }

    /// Zeros and ones do not widen the windows: the width follows the wide
    /// scalars, down to the floor of n / 64 (plan.hpp's digit_points).
    #[test]
    fn window_bits_follow_the_wide_scalars() {
        for log in [10, 16, 20, 22, 24, 27] {
            let n = 1usize << log;
            let dense = window_bits_for(n, n);
            assert_eq!(window_bits_for(n, 0), window_bits_for(n / 64, n / 64), "n = 2^{log}: the floor");
            assert_eq!(window_bits_for(n, n / 128), window_bits_for(n, 0), "n = 2^{log}: below the floor");
            assert_eq!(window_bits_for(n, n / 20), window_bits_for(n / 20, n / 20), "n = 2^{log}: 5 % wide");
            assert!(window_bits_for(n, 0) < dense, "n = 2^{log}: boolean scalars keep the dense width {dense}");
            let mut last = 0;
            for wide in [0, n / 64, n / 20, n / 4, n / 2, n] {
                let c = window_bits_for(n, wide);
                assert!(c >= last && c <= dense, "n = 2^{log}, {wide} wide: c = {c}");
                last = c;
            }
        }
    }

    #[test]
    fn horner_combination_of_windows() {
        let g = G1Projective::generator();
        let sums = [g, g.double(), G1Projective::identity(), g * Scalar::from(5u64)];
        let windows = ffi::MsmWindows {
            window_bits: 3,
            sums: sums.iter().flat_map(|p| as_limbs(std::slice::from_ref(p)).to_vec()).collect(),
            device_ms: 0.0,
        };
        let expected = sums.iter().enumerate().fold(G1Projective::identity(), |acc, (w, s)| {
            acc + *s * Scalar::from(1u64 << (3 * w))
        });
        assert_eq!(combine_windows::<G1>(&windows), expected);
        assert_eq!(G1Projective::LIMBS, 18);
    }
}
