//! Radix-2 number-theoretic transforms over Fr, parallelised with rayon and
//! blocked for the cache.
//!
//! Two butterfly orders, so that the prover never permutes: decimation in
//! frequency ([`dif`]) takes natural order to bit-reversed order, decimation in
//! time ([`dit`]) takes bit-reversed order to natural order. Chained as
//! coefficients → DIF → evaluations (bit-reversed) → pointwise work → DIT →
//! coefficients, the order in between never matters.
//!
//! A round of half-width h pairs elements h apart and uses the 2h-th roots of
//! unity ω_{2h}^j = table[j·n/(2h)]. Rounds with 2h ≤ [`BLOCK`] stay inside
//! one block of contiguous elements, so each block runs all of them while it
//! sits in L2 (with its own contiguous table of roots). Each of the other
//! rounds would be one pass over the whole vector; they go in pairs (radix 4:
//! four elements, two rounds, one pass), which halves that memory traffic.

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

/// Elements per cache block: 128 KiB of scalars, well inside a core's L2.
const BLOCK: usize = 1 << 12;

/// Butterflies of one quarter (or half) handed to one rayon task in a pass.
const CHUNK: usize = 1 << 9;

/// Below this many elements a pass or a permutation runs on one thread.
const PAR_MIN: usize = 1 << 10;

/// ωⁱ for i in 0..n/2.
pub(crate) fn twiddles(omega: Scalar, n: usize) -> Vec<Scalar> {
    let mut table = vec![Scalar::ONE; n / 2];
    distribute_powers(&mut table, omega, Scalar::ONE);
    table
}

/// ω⁻ⁱ for i in 0..n/2 from the table of ωⁱ: ω⁻ⁱ = ω^(n/2)·ω^(n/2−i) = −ω^(n/2−i).
pub(crate) fn inverse_twiddles(table: &[Scalar]) -> Vec<Scalar> {
    let half = table.len();
    (0..half).into_par_iter().map(|i| if i == 0 { Scalar::ONE } else { -table[half - i] }).collect()
}

/// The index whose bits are those of `i` reversed, for a vector of `n` = 2ᵏ elements.
fn reverse_index(i: usize, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    i.reverse_bits() >> (usize::BITS - n.trailing_zeros())
}

/// `src` (zero-padded to n elements) in bit-reversed order: out[i] = src[rev(i)].
pub(crate) fn bit_reversed(src: &[Scalar], n: usize) -> Vec<Scalar> {
    debug_assert!(n.is_power_of_two() && src.len() <= n);
    let mut out = vec![Scalar::ZERO; n];
    out.par_iter_mut().with_min_len(PAR_MIN).enumerate().for_each(|(i, x)| {
        if let Some(v) = src.get(reverse_index(i, n)) {
            *x = *v;
        }
    });
    out
}

/// Reorders `a` so that index i moves to the bit-reversal of i.
pub(crate) fn bit_reverse(a: &mut [Scalar]) {
    let permuted = bit_reversed(a, a.len());
    a.copy_from_slice(&permuted);
}

/// In-place transform, natural order in, bit-reversed order out:
/// `a[rev(k)] ← Σⱼ a[j]·ωʲᵏ` with `table` from [`twiddles`] for ω (or
/// [`inverse_twiddles`] for the unscaled inverse).
pub(crate) fn dif(a: &mut [Scalar], table: &[Scalar]) {
    dif_blocked(a, table, BLOCK);
}

/// In-place transform, bit-reversed order in, natural order out:
/// `a[k] ← Σⱼ a[rev(j)]·ωʲᵏ`.
pub(crate) fn dit(a: &mut [Scalar], table: &[Scalar]) {
    dit_blocked(a, table, BLOCK);
}

fn dif_blocked(a: &mut [Scalar], table: &[Scalar], block: usize) {
    let n = a.len();
    debug_assert!(n.is_power_of_two() && table.len() == n / 2);
    if n <= 1 {
        return;
    }
    let block = block.min(n);
    let mut h = n / 2;
    if (n / block).trailing_zeros() % 2 == 1 {
        radix2_pass(a, h, table, Order::Dif);
        h /= 2;
    }
    while h >= block {
        radix4_pass(a, h / 2, table, Order::Dif);
        h /= 4;
    }
    let roots = block_roots(table, block);
    a.par_chunks_mut(block).for_each(|b| dif_in_block(b, &roots));
}

fn dit_blocked(a: &mut [Scalar], table: &[Scalar], block: usize) {
    let n = a.len();
    debug_assert!(n.is_power_of_two() && table.len() == n / 2);
    if n <= 1 {
        return;
    }
    let block = block.min(n);
    let roots = block_roots(table, block);
    a.par_chunks_mut(block).for_each(|b| dit_in_block(b, &roots));
    let mut h = block;
    if (n / block).trailing_zeros() % 2 == 1 {
        radix2_pass(a, h, table, Order::Dit);
        h *= 2;
    }
    while h < n {
        radix4_pass(a, h, table, Order::Dit);
        h *= 4;
    }
}

/// The roots a block of `block` elements needs, contiguous: ω_block^j for j < block/2.
fn block_roots(table: &[Scalar], block: usize) -> Vec<Scalar> {
    let stride = 2 * table.len() / block;
    (0..block / 2).map(|j| table[j * stride]).collect()
}

/// Which butterfly a pass applies.
#[derive(Copy, Clone)]
enum Order {
    /// (x, y) → (x + y, (x − y)·w).
    Dif,
    /// (x, y) → (x + w·y, x − w·y).
    Dit,
}

#[inline]
fn dif_butterfly(x: &mut Scalar, y: &mut Scalar, w: &Scalar) {
    let d = *x - *y;
    *x += *y;
    *y = d * w;
}

#[inline]
fn dit_butterfly(x: &mut Scalar, y: &mut Scalar, w: &Scalar) {
    let t = *y * w;
    *y = *x - t;
    *x += t;
}

/// Every DIF round with 2h ≤ block.len(), widest first; the first pair of
/// each round has w = 1.
fn dif_in_block(block: &mut [Scalar], roots: &[Scalar]) {
    let b = block.len();
    let mut h = b / 2;
    while h >= 1 {
        let stride = b / (2 * h);
        for pair in block.chunks_mut(2 * h) {
            let (lo, hi) = pair.split_at_mut(h);
            for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                dif_butterfly(x, y, &roots[j * stride]);
            }
        }
        h /= 2;
    }
}

/// Every DIT round with 2h ≤ block.len(), narrowest first. The first round's
/// twiddles are all 1, so it only adds and subtracts.
fn dit_in_block(block: &mut [Scalar], roots: &[Scalar]) {
    let b = block.len();
    for pair in block.chunks_mut(2) {
        if let [x, y] = pair {
            let d = *x - *y;
            *x += *y;
            *y = d;
        }
    }
    let mut h = 2;
    while h < b {
        let stride = b / (2 * h);
        for pair in block.chunks_mut(2 * h) {
            let (lo, hi) = pair.split_at_mut(h);
            for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                dit_butterfly(x, y, &roots[j * stride]);
            }
        }
        h *= 2;
    }
}

/// One round of half-width h over the whole vector, in parallel chunks.
fn radix2_pass(a: &mut [Scalar], h: usize, table: &[Scalar], order: Order) {
    let stride = a.len() / (2 * h);
    let chunk = CHUNK.min(h);
    a.par_chunks_mut(2 * h).for_each(|pair| {
        let (lo, hi) = pair.split_at_mut(h);
        lo.par_chunks_mut(chunk).zip(hi.par_chunks_mut(chunk)).enumerate().for_each(|(c, (lo, hi))| {
            for (k, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                let w = &table[(c * chunk + k) * stride];
                match order {
                    Order::Dif => dif_butterfly(x, y, w),
                    Order::Dit => dit_butterfly(x, y, w),
                }
            }
        });
    });
}

/// The rounds of half-widths h and 2h in one pass: each block of 4h elements
/// is four quarters q0..q3, and element j of each quarter forms one radix-4
/// butterfly. DIT runs round h (q0·q1, q2·q3) then round 2h (q0·q2, q1·q3);
/// DIF runs them in the other order.
fn radix4_pass(a: &mut [Scalar], h: usize, table: &[Scalar], order: Order) {
    let n = a.len();
    let (s1, s2) = (n / (2 * h), n / (4 * h));
    let chunk = CHUNK.min(h);
    a.par_chunks_mut(4 * h).for_each(|quad| {
        let (q01, q23) = quad.split_at_mut(2 * h);
        let (q0, q1) = q01.split_at_mut(h);
        let (q2, q3) = q23.split_at_mut(h);
        let quarters = q0.par_chunks_mut(chunk).zip(q1.par_chunks_mut(chunk));
        let quarters = quarters.zip(q2.par_chunks_mut(chunk).zip(q3.par_chunks_mut(chunk)));
        quarters.enumerate().for_each(|(c, ((c0, c1), (c2, c3)))| {
            let rows = c0.iter_mut().zip(c1.iter_mut()).zip(c2.iter_mut().zip(c3.iter_mut()));
            for (k, ((x0, x1), (x2, x3))) in rows.enumerate() {
                let j = c * chunk + k;
                let (w1, w2, w3) = (&table[j * s1], &table[j * s2], &table[(j + h) * s2]);
                match order {
                    Order::Dit => {
                        dit_butterfly(x0, x1, w1);
                        dit_butterfly(x2, x3, w1);
                        dit_butterfly(x0, x2, w2);
                        dit_butterfly(x1, x3, w3);
                    }
                    Order::Dif => {
                        dif_butterfly(x0, x2, w2);
                        dif_butterfly(x1, x3, w3);
                        dif_butterfly(x0, x1, w1);
                        dif_butterfly(x2, x3, w1);
                    }
                }
            }
        });
    });
}

/// Multiplies every element by `c`.
pub(crate) fn scale(a: &mut [Scalar], c: Scalar) {
    a.par_iter_mut().with_min_len(PAR_MIN).for_each(|x| *x *= c);
}

/// `a[i] ← a[i]·c·gⁱ`: with c = 1, evaluating the result on the subgroup
/// evaluates `a` on the coset g·H; c folds a scaling (1/n, 1/Z) into the same pass.
pub(crate) fn distribute_powers(a: &mut [Scalar], g: Scalar, c: Scalar) {
    let chunk = (a.len() / rayon::current_num_threads().max(1)).max(PAR_MIN);
    a.par_chunks_mut(chunk).enumerate().for_each(|(i, part)| {
        let mut w = c * g.pow_vartime([(i * chunk) as u64]);
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

    /// Both transforms against the naive DFT, for ω and ω⁻¹, with the block
    /// size given so that small vectors run the radix-2 and radix-4 passes too.
    fn check(input: &[Scalar], block: usize) {
        let n = input.len();
        let omega = root(n.trailing_zeros());
        let table = twiddles(omega, n);
        for (table, omega) in [(table.clone(), omega), (inverse_twiddles(&table), omega.invert().unwrap())] {
            let want = naive_dft(input, omega);
            let mut a = input.to_vec();
            dif_blocked(&mut a, &table, block);
            assert_eq!(a, bit_reversed(&want, n), "dif, n = {n}, block = {block}");
            let mut a = bit_reversed(input, n);
            dit_blocked(&mut a, &table, block);
            assert_eq!(a, want, "dit, n = {n}, block = {block}");
        }
    }

    #[test]
    fn match_naive_dft_for_every_small_size_and_block() {
        for log2 in 0..=7u32 {
            let n = 1usize << log2;
            let input = scalars(&(0..n as u64).map(|i| i * 7 + 3).collect::<Vec<_>>());
            for block in [1, 2, 4, 8, 16, BLOCK] {
                check(&input, block);
            }
        }
    }

    #[test]
    fn zeros_ones_and_impulses_transform_as_expected() {
        let n = 64;
        let table = twiddles(root(6), n);
        let mut zeros = vec![Scalar::ZERO; n];
        dif_blocked(&mut zeros, &table, 4);
        assert!(zeros.iter().all(|x| bool::from(x.is_zero())));
        // The DFT of all ones is n at k = 0 and zero elsewhere; of an impulse at 0, all ones.
        let mut ones = vec![Scalar::ONE; n];
        dit_blocked(&mut ones, &table, 8);
        assert_eq!(ones[0], Scalar::from(n as u64));
        assert!(ones[1..].iter().all(|x| bool::from(x.is_zero())));
        let mut impulse = vec![Scalar::ZERO; n];
        impulse[0] = Scalar::ONE;
        dif_blocked(&mut impulse, &table, 2);
        assert!(impulse.iter().all(|x| *x == Scalar::ONE));
    }

    #[test]
    fn large_vector_matches_naive_dft_at_sampled_points() {
        // Past BLOCK, with an odd number of passes, so the parallel passes run.
        let log2 = 13;
        let n = 1usize << log2;
        let omega = root(log2);
        let table = twiddles(omega, n);
        let input = scalars(&(0..n as u64).collect::<Vec<_>>());
        let naive = |k: usize| -> Scalar {
            input.iter().enumerate().map(|(j, x)| *x * omega.pow_vartime([((j * k) % n) as u64])).sum()
        };
        let mut a = input.clone();
        dif(&mut a, &table);
        let mut b = bit_reversed(&input, n);
        dit(&mut b, &table);
        for k in [0, 1, 2, n / 2, n - 1] {
            assert_eq!(a[reverse_index(k, n)], naive(k), "dif k = {k}");
            assert_eq!(b[k], naive(k), "dit k = {k}");
        }
    }

    #[test]
    fn bit_reversal_pads_and_is_an_involution() {
        let src = scalars(&[1, 2, 3]);
        let out = bit_reversed(&src, 8);
        assert_eq!(out, [src[0], Scalar::ZERO, src[2], Scalar::ZERO, src[1], Scalar::ZERO, Scalar::ZERO, Scalar::ZERO]);
        let mut a = scalars(&(0..4096).collect::<Vec<_>>());
        let orig = a.clone();
        bit_reverse(&mut a);
        assert_eq!(a[1], orig[2048]);
        bit_reverse(&mut a);
        assert_eq!(a, orig);
    }

    #[test]
    fn distribute_powers_matches_pow() {
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let c = Scalar::from(5u64);
        let mut a = vec![Scalar::ONE; 3000];
        distribute_powers(&mut a, g, c);
        for i in [0usize, 1, 1023, 1024, 2999] {
            assert_eq!(a[i], c * g.pow_vartime([i as u64]));
        }
    }

    #[test]
    fn inverse_twiddles_are_inverses() {
        let n = 32;
        let table = twiddles(root(5), n);
        for (w, v) in table.iter().zip(inverse_twiddles(&table)) {
            assert_eq!(*w * v, Scalar::ONE);
        }
    }

    proptest! {
        #[test]
        fn random_inputs_match_naive(
            log2 in 0u32..=6,
            block_log2 in 0u32..=6,
            seeds in proptest::collection::vec(any::<u64>(), 64),
        ) {
            check(&scalars(&seeds[..1 << log2]), 1 << block_log2);
        }
    }
}
