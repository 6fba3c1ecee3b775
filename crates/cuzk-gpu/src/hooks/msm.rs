use cuzk_ffi::hooks::ffi as hooks;
use crate::GpuError;
use blstrs::Scalar;
use cuzk_ffi::cast::as_limbs;

/// The MSM kernels' signed digits of `scalar` for windows of `window_bits`
/// (2 to 22) bits, least significant first, computed by their host build.
pub fn signed_digits(scalar: &Scalar, window_bits: u32) -> Result<Vec<i32>, GpuError> {
    Ok(hooks::msm_signed_digits(as_limbs(std::slice::from_ref(scalar)), window_bits)?)
}

/// The table MSM's index logic (copies, digit slots, bucket-set weights)
/// over the integers mod 2^64: `sum_i scalars[i] values[i]` with `copies`
/// precomputed copies, each base i standing for `values[i]`.
pub fn table_model(scalars: &[Scalar], values: &[u64], copies: u32) -> Result<u64, GpuError> {
    Ok(hooks::msm_table_model(as_limbs(scalars), values, copies)?)
}

/// The kernels' bucket accumulation and window reduction over the integers
/// mod 2^64: `values[i]` goes to bucket `keys[i]` (keys ascending), the
/// items shared by `threads` threads; `buckets` buckets, `buckets_per_window`
/// per window, reduced in segments of `segment_len`. Returns the bucket
/// sums, then each window's sum of (b + 1) times its bucket b.
pub fn reduce_model(
    keys: &[u32],
    values: &[u64],
    threads: u64,
    buckets: u32,
    buckets_per_window: u32,
    segment_len: u32,
) -> Result<Vec<u64>, GpuError> {
    Ok(hooks::msm_reduce_model(keys, values, threads, buckets, buckets_per_window, segment_len)?)
}

/// The batch addition of bitmaps laid end to end over the integers mod
/// 2^64 (base i is `values[i]`; 64 values per bitmap word), one sum per
/// bitmap, with the kernel's shares for `threads` threads.
pub fn batch_add_model(bitmaps: &[u64], values: &[u64], threads: u64) -> Result<Vec<u64>, GpuError> {
    Ok(hooks::batch_add_model(bitmaps, values, threads)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_ffi::ffi;
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
        signed_digits(s, c).unwrap().into_iter().map(i64::from).collect()
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
            let err = signed_digits(&Scalar::ONE, c).unwrap_err();
            assert!(matches!(err, GpuError::InvalidInput(_)), "c = {c}: {err:?}");
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
        let got = table_model(&scalars, &values, copies).unwrap();
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
            let got = reduce_model(&keys, &values, threads, buckets, per, seg).unwrap();
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
                let got = reduce_model(&keys, &values, threads, 8, 4, seg).unwrap();
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
            prop_assert_eq!(batch_add_model(&bitmaps, &values, threads).unwrap(), expected);
        }
    }
}
