use crate::arith::{KernelCurve, G1, G2};
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
    use cuzk_ffi::hooks::ffi as hooks;
    use super::*;
    use ff::{Field, PrimeField};
    use proptest::prelude::*;

    /// The reference recoding, on a 320-bit integer: repeatedly take the low
    /// c bits as a digit (negative when above half the window), subtract it
    /// and shift; the value must be used up after 256 / c windows.
    fn reference_digits(s: &Scalar, c: u32) -> Vec<i64> {
        let mut v = [0u64; 5];
        for (limb, chunk) in v.iter_mut().zip(s.to_repr().as_ref().chunks(8)) {
            *limb = u64::from_le_bytes(chunk.try_into().unwrap());
        }
        let mut digits = Vec::new();
        for _ in 0..256_u32.div_ceil(c) {
            let low = (v[0] & ((1u64 << c) - 1)) as i64;
            let d = if low > 1i64 << (c - 1) { low - (1i64 << c) } else { low };
            if d >= 0 {
                v[0] -= d as u64; // only clears low bits: no borrow
            } else {
                let mut carry = d.unsigned_abs();
                for limb in v.iter_mut() {
                    let (sum, over) = limb.overflowing_add(carry);
                    *limb = sum;
                    carry = u64::from(over);
                }
            }
            for i in 0..5 {
                let high = if i < 4 { v[i + 1] << (64 - c) } else { 0 };
                v[i] = (v[i] >> c) | high;
            }
            digits.push(d);
        }
        assert_eq!(v, [0; 5], "the recoding of {s:?} left a remainder");
        digits
    }

    fn kernel_digits(s: &Scalar, c: u32) -> Vec<i64> {
        hooks::msm_signed_digits(as_limbs(std::slice::from_ref(s)), c).unwrap().into_iter().map(i64::from).collect()
    }

    fn check_digits(s: &Scalar, c: u32) {
        let digits = kernel_digits(s, c);
        assert_eq!(digits, reference_digits(s, c), "scalar {s:?}, window bits {c}");
        let half = 1i64 << (c - 1);
        assert!(digits.iter().all(|&d| d > -half && d <= half), "digit range for c = {c}");
        // And the digits recompose the scalar in the field.
        let radix = Scalar::from(1u64 << c);
        let back = digits.iter().rev().fold(Scalar::ZERO, |acc, &d| {
            let d = if d < 0 { -Scalar::from(d.unsigned_abs()) } else { Scalar::from(d as u64) };
            acc * radix + d
        });
        assert_eq!(back, *s);
    }

    fn scalar_strategy() -> impl Strategy<Value = Scalar> {
        prop_oneof![
            any::<[u8; 32]>().prop_map(|b| Scalar::from_bytes_le(&{
                let mut b = b;
                b[31] &= 0x3f;
                b
            })
            .unwrap()),
            (0u32..255).prop_map(|k| Scalar::from(2u64).pow_vartime([k as u64])),
            (0u32..255).prop_map(|k| Scalar::from(2u64).pow_vartime([k as u64]) - Scalar::ONE),
            (any::<[u8; 32]>(), any::<[u8; 32]>()).prop_map(|(a, b)| {
                let half = |mut x: [u8; 32]| {
                    x[31] &= 0x3f;
                    Scalar::from_bytes_le(&x).unwrap()
                };
                half(a) * half(b)
            }),
            any::<u64>().prop_map(|k| -Scalar::from(k)),
            Just(Scalar::ZERO),
            Just(Scalar::ONE),
        ]
    }

    proptest! {
        #[test]
        fn signed_digits_match_the_reference(s in scalar_strategy(), c in 2u32..=22) {
            check_digits(&s, c);
        }
    }

    #[test]
    fn signed_digits_of_edge_scalars() {
        let half_windows = [Scalar::from(8u64), Scalar::from(9u64), Scalar::from(16u64), Scalar::from(17u64)];
        for c in 2..=22 {
            for s in [Scalar::ZERO, Scalar::ONE, -Scalar::ONE, -Scalar::from(2u64)].iter().chain(&half_windows) {
                check_digits(s, c);
            }
        }
    }

    #[test]
    fn bad_window_bits_are_invalid_input() {
        for c in [0, 1, 23, 64] {
            let err = GpuError::from(hooks::msm_signed_digits(as_limbs(&[Scalar::ONE]), c).unwrap_err());
            assert!(matches!(err, GpuError::InvalidInput(_)), "c = {c}: {err:?}");
        }
    }

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

    /// The table MSM's index logic (copies, digit slots, bucket-set weights)
    /// on the integers mod 2^64 against the plain sum, for numbers of copies
    /// from one to one per window (and more) at sizes whose window widths
    /// differ; a slot outside the table is an error in the model.
    fn check_table_model(n: usize, copies: u32, seed: u64) {
        use rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let values: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let scalars: Vec<Scalar> = (0..n)
            .map(|i| match i % 5 {
                0 => Scalar::ZERO,
                1 => -Scalar::ONE,
                _ => Scalar::random(&mut rng),
            })
            .collect();
        // s mod 2^64: the canonical value's low word.
        let low_word = |s: &Scalar| u64::from_le_bytes(s.to_bytes_le()[..8].try_into().unwrap());
        let want = scalars.iter().zip(&values).fold(0u64, |acc, (s, v)| acc.wrapping_add(low_word(s).wrapping_mul(*v)));
        let got = hooks::msm_table_model(as_limbs(&scalars), &values, copies).unwrap();
        assert_eq!(got, want, "{n} values, {copies} copies");
        let kept = ffi::msm_table_copies(n as u64, copies);
        assert!(kept >= 1 && kept <= u64::from(copies), "{n} values, {copies} copies: {kept} kept");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn table_slots_and_weights_give_the_plain_sum(
            n in prop_oneof![1usize..40, 40usize..5000],
            copies in prop_oneof![1u32..20, Just(200u32), Just(u32::MAX)],
            seed in any::<u64>(),
        ) {
            check_table_model(n, copies, seed);
        }
    }

    /// The bucket sums and window sums the model should produce, computed
    /// directly: bucket k is the sum of its values; window w is
    /// sum_b (b + 1) bucket[w * per + b].
    fn naive_reduce(keys: &[u32], values: &[u64], buckets: u32, per: u32) -> Vec<u64> {
        let mut out = vec![0u64; buckets as usize];
        for (&k, &v) in keys.iter().zip(values) {
            out[k as usize] = out[k as usize].wrapping_add(v);
        }
        let windows: Vec<u64> = out
            .chunks(per as usize)
            .map(|w| w.iter().enumerate().fold(0u64, |acc, (b, &x)| acc.wrapping_add((b as u64 + 1).wrapping_mul(x))))
            .collect();
        out.extend(windows);
        out
    }

    fn reduce_case() -> impl Strategy<Value = (Vec<u32>, Vec<u64>, u64, u32, u32, u32)> {
        (0u32..5, 0u32..4, 0u32..3).prop_flat_map(|(log_per, log_windows, skew)| {
            let per = 1u32 << log_per;
            let buckets = per << log_windows;
            // skew 0: uniform keys; 1: a few heavy buckets; 2: one bucket takes everything.
            let key = match skew {
                0 => (0..buckets).boxed(),
                1 => prop_oneof![4 => Just(buckets / 2), 1 => 0..buckets].boxed(),
                _ => Just(buckets - 1).boxed(),
            };
            (
                proptest::collection::vec((key, any::<u64>()), 0..400),
                1u64..300,
                Just(buckets),
                Just(per),
                1..=per,
            )
                .prop_map(|(mut items, threads, buckets, per, seg)| {
                    items.sort_by_key(|&(k, _)| k);
                    let (keys, values) = items.into_iter().unzip();
                    (keys, values, threads, buckets, per, seg)
                })
        })
    }

    proptest! {
        #[test]
        fn reduction_model_matches_naive_sums((keys, values, threads, buckets, per, seg) in reduce_case()) {
            let got = hooks::msm_reduce_model(&keys, &values, threads, buckets, per, seg).unwrap();
            prop_assert_eq!(got, naive_reduce(&keys, &values, buckets, per));
        }
    }

    #[test]
    fn reduction_model_edge_shapes() {
        // Every item in one bucket, split over more threads than items and
        // over exactly as many; a single item; no items. Segments of 3 and 5
        // do not divide a window of 4 buckets.
        for (n, threads) in [(1000usize, 1u64), (1000, 7), (1000, 1000), (1000, 4096), (1, 3), (0, 5)] {
            let keys = vec![3u32; n];
            let values: Vec<u64> = (1..=n as u64).collect();
            for seg in [2, 3, 5] {
                let got = hooks::msm_reduce_model(&keys, &values, threads, 8, 4, seg).unwrap();
                assert_eq!(got, naive_reduce(&keys, &values, 8, 4), "n = {n}, threads = {threads}, segment {seg}");
            }
        }
    }

    /// Bitmaps end to end (1 to 12 of 1 to 6 words), words empty, full,
    /// random or with one bit, so thread shares start, end and span several
    /// bitmaps, empty ones among them; one value per base.
    fn bitmaps_case() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, u64)> {
        let word = prop_oneof![3 => Just(0u64), 1 => Just(u64::MAX), 2 => any::<u64>(), 2 => (0u32..64).prop_map(|b| 1u64 << b)];
        (1usize..=6, 1usize..=12).prop_flat_map(move |(per, count)| {
            (
                proptest::collection::vec(word.clone(), per * count),
                proptest::collection::vec(any::<u64>(), per * 64),
                1u64..200,
            )
        })
    }

    proptest! {
        #[test]
        fn batch_add_model_sums_each_bitmap((bitmaps, values, threads) in bitmaps_case()) {
            let per = values.len() / 64;
            let expected: Vec<u64> = bitmaps
                .chunks(per)
                .map(|words| {
                    (0..per * 64)
                        .filter(|&i| (words[i / 64] >> (i % 64)) & 1 == 1)
                        .fold(0u64, |acc, i| acc.wrapping_add(values[i]))
                })
                .collect();
            prop_assert_eq!(hooks::batch_add_model(&bitmaps, &values, threads).unwrap(), expected);
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
