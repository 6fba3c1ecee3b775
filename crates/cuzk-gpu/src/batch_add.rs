use crate::curve::{G1, G2};
use crate::msm::{DeviceBases, DeviceRun, MsmCurve};
use crate::{Device, GpuError};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use cuzk_ffi::cast::as_limbs_mut;
use cuzk_ffi::ffi;
use group::Group;

/// Checks that `bitmap` has one bit per base (bit i of word i / 64), with
/// no bit set at or past `len`.
pub fn check_bitmap(len: usize, bitmap: &[u64]) -> Result<(), GpuError> {
    let words = len.div_ceil(64);
    if bitmap.len() != words {
        return Err(GpuError::InvalidInput(format!("{len} bases need {words} bitmap words, got {}", bitmap.len())));
    }
    if len % 64 != 0 && bitmap[words - 1] >> (len % 64) != 0 {
        return Err(GpuError::InvalidInput(format!("bitmap bits set at or past the {len} bases")));
    }
    Ok(())
}

/// `sum of bases[i]` over the set bits i of `bitmap`, with resident bases:
/// the "ones" of a mostly-boolean witness, with no scalar multiplication.
pub fn batch_add_resident<C: MsmCurve>(
    bases: &DeviceBases<C>,
    bitmap: &[u64],
) -> Result<DeviceRun<C::Jacobian>, GpuError> {
    let (sums, device_ms) = batch_add_resident_many(bases, bitmap, 1)?;
    Ok(DeviceRun { sum: sums[0], device_ms, window_bits: 0 })
}

/// [`batch_add_resident`] for `count` bitmaps over the same bases (one per
/// circuit of a batch), laid end to end in `bitmaps` with
/// `bases.len().div_ceil(64)` words each, summed in one pass: one sum per
/// bitmap, and the device milliseconds.
pub fn batch_add_resident_many<C: MsmCurve>(
    bases: &DeviceBases<C>,
    bitmaps: &[u64],
    count: usize,
) -> Result<(Vec<C::Jacobian>, f32), GpuError> {
    let words = bases.len().div_ceil(64);
    if count == 0 || bitmaps.len() != count * words {
        return Err(GpuError::InvalidInput(format!(
            "{count} bitmaps of {} bases need {} words, got {}",
            bases.len(),
            count * words,
            bitmaps.len()
        )));
    }
    for k in 0..count {
        check_bitmap(bases.len(), &bitmaps[k * words..(k + 1) * words])?;
    }
    let mut out = vec![C::Jacobian::identity(); count];
    let device_ms = ffi::batch_add(bases.array(), bitmaps, as_limbs_mut(&mut out))?;
    Ok((out, device_ms))
}

/// [`batch_add_resident`] with the bases copied from the host.
pub fn batch_add<C: MsmCurve>(device: &Device, bases: &[C::Affine], bitmap: &[u64]) -> Result<C::Jacobian, GpuError> {
    check_bitmap(bases.len(), bitmap)?;
    Ok(batch_add_resident(&DeviceBases::<C>::upload(device, bases)?, bitmap)?.sum)
}

/// [`batch_add`] in G1.
pub fn batch_add_g1(device: &Device, bases: &[G1Affine], bitmap: &[u64]) -> Result<G1Projective, GpuError> {
    batch_add::<G1>(device, bases, bitmap)
}

/// [`batch_add`] in G2.
pub fn batch_add_g2(device: &Device, bases: &[G2Affine], bitmap: &[u64]) -> Result<G2Projective, GpuError> {
    batch_add::<G2>(device, bases, bitmap)
}

#[cfg(test)]
mod tests {
    use super::check_bitmap;
    use crate::GpuError;

    #[test]
    fn bitmap_shape_is_checked() {
        assert_eq!(check_bitmap(0, &[]), Ok(()));
        assert_eq!(check_bitmap(64, &[u64::MAX]), Ok(()));
        assert_eq!(check_bitmap(65, &[u64::MAX, 1]), Ok(()));
        assert_eq!(check_bitmap(3, &[0b111]), Ok(()));
        for (len, bitmap) in [(3usize, &[0b1000u64][..]), (64, &[1, 0]), (65, &[1]), (0, &[0]), (130, &[0, 0, 4])] {
            assert!(matches!(check_bitmap(len, bitmap), Err(GpuError::InvalidInput(_))), "len {len}, {bitmap:?}");
        }
    }
}
