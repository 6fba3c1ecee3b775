//! Radix-2 number-theoretic transform over Fr, parallelised with rayon.
//!
//! Decimation in time: permute the input into bit-reversed order, then log₂ n
//! rounds of butterflies (x, y) → (x + w·y, x − w·y). Round k pairs elements
//! 2ᵏ apart and uses the 2ᵏ⁺¹-th roots of unity, which are every (n/2ᵏ⁺¹)-th
//! entry of one table of ωⁱ, i < n/2, computed once per domain.

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

/// Below this many butterflies a round runs on one thread.
const PAR_MIN: usize = 1 << 10;

/// ωⁱ for i in 0..n/2.
pub(crate) fn twiddles(omega: Scalar, n: usize) -> Vec<Scalar> {
    let half = n / 2;
    let mut table = vec![Scalar::ONE; half];
    let chunk = (half / rayon::current_num_threads().max(1)).max(PAR_MIN);
    table.par_chunks_mut(chunk).enumerate().for_each(|(i, part)| {
        let mut w = omega.pow_vartime([(i * chunk) as u64]);
        for t in part {
            *t = w;
            w *= omega;
        }
    });
    table
}

/// Reorders `a` so that index i moves to the bit-reversal of i.
fn bit_reverse(a: &mut [Scalar]) {
    let n = a.len();
    if n <= 2 {
        return;
    }
    let shift = usize::BITS - n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> shift;
        if i < j {
            a.swap(i, j);
        }
    }
}

/// In-place forward transform: `a[k] ← Σⱼ a[j]·ωʲᵏ`, with `table` from [`twiddles`] for ω.
pub(crate) fn ntt(a: &mut [Scalar], table: &[Scalar]) {
    let n = a.len();
    debug_assert!(n.is_power_of_two() && table.len() == n / 2);
    bit_reverse(a);
    let mut half = 1;
    while half < n {
        let stride = n / (2 * half);
        let butterflies = |block: &mut [Scalar]| {
            let (lo, hi) = block.split_at_mut(half);
            for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                butterfly(x, y, &table[j * stride]);
            }
        };
        if n / (2 * half) >= rayon::current_num_threads() || n < PAR_MIN {
            a.par_chunks_mut(2 * half).with_min_len(PAR_MIN / half + 1).for_each(butterflies);
        } else {
            for block in a.chunks_mut(2 * half) {
                let (lo, hi) = block.split_at_mut(half);
                lo.par_iter_mut().zip(hi.par_iter_mut()).enumerate().with_min_len(PAR_MIN).for_each(
                    |(j, (x, y))| butterfly(x, y, &table[j * stride]),
                );
            }
        }
        half *= 2;
    }
}

#[inline]
fn butterfly(x: &mut Scalar, y: &mut Scalar, w: &Scalar) {
    let t = *y * w;
    *y = *x - t;
    *x += t;
}

/// In-place inverse transform with the forward table: transforming with ω and
/// reading the outputs at −k mod n is transforming with ω⁻¹, so one table serves both.
pub(crate) fn intt(a: &mut [Scalar], table: &[Scalar], n_inv: Scalar) {
    ntt(a, table);
    a[1..].reverse();
    scale(a, n_inv);
}

/// Multiplies every element by `c`.
pub(crate) fn scale(a: &mut [Scalar], c: Scalar) {
    a.par_iter_mut().with_min_len(PAR_MIN).for_each(|x| *x *= c);
}

/// `a[i] ← a[i]·gⁱ`: evaluating the result on the subgroup evaluates `a` on the coset g·H.
pub(crate) fn distribute_powers(a: &mut [Scalar], g: Scalar) {
    let chunk = (a.len() / rayon::current_num_threads().max(1)).max(PAR_MIN);
    a.par_chunks_mut(chunk).enumerate().for_each(|(i, part)| {
        let mut w = g.pow_vartime([(i * chunk) as u64]);
        for x in part {
            *x *= w;
            w *= g;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::PrimeField;
    use proptest::prelude::*;

    fn root(log2: u32) -> Scalar {
        let mut w = Scalar::ROOT_OF_UNITY;
        for _ in log2..Scalar::S {
            w = w.square();
        }
        w
    }

    fn naive_dft(a: &[Scalar], omega: Scalar) -> Vec<Scalar> {
        let n = a.len() as u64;
        (0..n)
            .map(|k| a.iter().enumerate().map(|(j, x)| *x * omega.pow_vartime([(j as u64 * k) % n])).sum())
            .collect()
    }

    fn scalars(seeds: &[u64]) -> Vec<Scalar> {
        seeds.iter().map(|&s| Scalar::from(s).square() * Scalar::from(s ^ 0x9e37_79b9)).collect()
    }

    #[test]
    fn matches_naive_dft_for_all_small_sizes() {
        for log2 in 0..=6u32 {
            let n = 1usize << log2;
            let omega = root(log2);
            let input = scalars(&(0..n as u64).map(|i| i * 7 + 3).collect::<Vec<_>>());
            let table = twiddles(omega, n);
            let mut a = input.clone();
            ntt(&mut a, &table);
            assert_eq!(a, naive_dft(&input, omega), "n = {n}");
            intt(&mut a, &table, Scalar::from(n as u64).invert().unwrap());
            assert_eq!(a, input, "n = {n}");
        }
    }

    #[test]
    fn parallel_rounds_match_naive_dft() {
        // Large enough that both parallel strategies run.
        let log2 = 11;
        let n = 1usize << log2;
        let omega = root(log2);
        let input = scalars(&(0..n as u64).collect::<Vec<_>>());
        let mut a = input.clone();
        ntt(&mut a, &twiddles(omega, n));
        let naive = naive_dft(&input, omega);
        for k in [0, 1, 2, n / 2, n - 1] {
            assert_eq!(a[k], naive[k], "k = {k}");
        }
    }

    #[test]
    fn distribute_powers_matches_pow() {
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let mut a = vec![Scalar::ONE; 3000];
        distribute_powers(&mut a, g);
        for i in [0usize, 1, 1023, 1024, 2999] {
            assert_eq!(a[i], g.pow_vartime([i as u64]));
        }
    }

    proptest! {
        #[test]
        fn random_inputs_match_naive(log2 in 0u32..=5, seeds in proptest::collection::vec(any::<u64>(), 32)) {
            let n = 1usize << log2;
            let omega = root(log2);
            let input = scalars(&seeds[..n]);
            let mut a = input.clone();
            ntt(&mut a, &twiddles(omega, n));
            prop_assert_eq!(a, naive_dft(&input, omega));
        }
    }
}
