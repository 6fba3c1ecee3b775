//! a = A·w, b = B·w, c = C·w on the CPU, in parallel over chunks of rows:
//! a first pass computes a and b, a second c, checking a_i · b_i = c_i.
//!
//! Most witness values of the circuits we prove are bits and most
//! coefficients are ±1, so when a sample says it pays each value is first
//! classified as zero, one or other (a byte per column, which also keeps
//! the scattered reads of a row in a small array instead of 32-byte field
//! elements). A zero costs nothing, a one with coefficient ±1 is counted in
//! an integer, and only the remaining terms touch field arithmetic. A row
//! made only of counted terms is that small integer, and the check of a row
//! whose a or b is such a count needs no field multiplication.
//!
//! Measured with callgrind (one thread) against the per-nonzero version
//! this replaced, which compared every value with 0 and 1 through the
//! field's constant-time equality: sha256 N=10 236 M -> 139 M
//! instructions, mul-chain 2^16 52.4 M -> 46.0 M.

use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};

use ff::PrimeField;
use rayon::prelude::*;

use super::matrix::{CoeffIndexSlice, Csr, MINUS_ONE, ONE};
use crate::SynthesisError;

/// Rows per rayon task at least: a row costs tens of nanoseconds, so
/// smaller tasks would cost more to schedule than to run.
const MIN_ROWS_PER_TASK: usize = 4096;
/// Columns per rayon task at least when classifying the witness.
const MIN_COLUMNS_PER_TASK: usize = 16 * 1024;

/// The witness in the matrices' column space (inputs first, then aux),
/// without concatenating the two vectors.
#[derive(Clone, Copy)]
pub(crate) struct Columns<'a, S> {
    pub(crate) inputs: &'a [S],
    pub(crate) aux: &'a [S],
}

impl<S: Copy> Columns<'_, S> {
    #[inline]
    fn get(&self, col: u32) -> S {
        let col = col as usize;
        match col.checked_sub(self.inputs.len()) {
            None => self.inputs[col],
            Some(j) => self.aux[j],
        }
    }
}

/// Class of a witness value (see the module doc).
const IS_ZERO: u8 = 0;
const IS_ONE: u8 = 1;
const IS_OTHER: u8 = 2;

fn classify<S: PrimeField>(v: &S) -> u8 {
    // `==`, not the constant-time `is_zero`: a witness is no secret here,
    // and this runs once per value.
    if *v == S::ZERO {
        IS_ZERO
    } else if *v == S::ONE {
        IS_ONE
    } else {
        IS_OTHER
    }
}

/// The witness with its classes, and the field form of small integers.
struct Values<'a, S> {
    w: Columns<'a, S>,
    class: Vec<u8>,
    /// `SMALL + n` holds n for |n| ≤ SMALL.
    small: Vec<S>,
}

/// Counts up to this size come from a table; most rows have a few terms.
const SMALL: i64 = 64;

/// Values sampled to decide whether classifying pays.
const SAMPLE: usize = 1024;

/// Classifying costs two comparisons per aux value (about a third of the
/// products when every value is a full-width scalar, as in mul-chain), and
/// pays only when enough values are 0 or 1: an evenly spread sample
/// decides. A value left as "other" is still computed exactly, so the
/// choice never changes a result.
fn worth_classifying<S: PrimeField>(aux: &[S]) -> bool {
    let picks = aux.iter().step_by((aux.len() / SAMPLE).max(1));
    let (seen, small) = picks.fold((0usize, 0usize), |(seen, small), v| {
        (seen + 1, small + usize::from(classify(v) != IS_OTHER))
    });
    4 * small >= seen
}

impl<'a, S: PrimeField> Values<'a, S> {
    /// With `classify_aux` false every aux value is "other"; the inputs are
    /// few and hold the one that constant terms multiply, so they are
    /// always classified.
    fn new(w: Columns<'a, S>, classify_aux: bool) -> Self {
        let mut class: Vec<u8> = w.inputs.iter().map(classify).collect();
        if classify_aux {
            let mut aux = Vec::new();
            w.aux.par_iter().with_min_len(MIN_COLUMNS_PER_TASK).map(classify).collect_into_vec(&mut aux);
            class.append(&mut aux);
        } else {
            class.resize(w.inputs.len() + w.aux.len(), IS_OTHER);
        }
        let small = (-SMALL..=SMALL).map(Self::integer).collect();
        Values { w, class, small }
    }

    fn integer(n: i64) -> S {
        let v = S::from(n.unsigned_abs());
        if n < 0 {
            -v
        } else {
            v
        }
    }

    /// The field form of a row's value.
    #[inline]
    fn value(&self, d: &Dot<S>) -> S {
        match *d {
            Dot::Small(n) if (-SMALL..=SMALL).contains(&n) => self.small[(n + SMALL) as usize],
            Dot::Small(n) => Self::integer(n),
            Dot::Field(v) => v,
        }
    }
}

/// One row's dot product.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Dot<S> {
    /// Only ones with coefficients ±1 (or nothing) contributed: their count.
    Small(i64),
    /// Anything else.
    Field(S),
}

/// `acc += x`, where an untouched `acc` is a zero not yet written: most
/// rows have one or two field terms, so this saves an addition per row.
#[inline]
fn add<S: PrimeField>(acc: &mut S, touched: &mut bool, x: S) {
    if *touched {
        *acc += x;
    } else {
        *acc = x;
        *touched = true;
    }
}

#[inline(always)]
fn dot<S: PrimeField, K: Copy + Into<u32>>(cols: &[u32], ks: &[K], table: &[S], w: &Values<'_, S>) -> Dot<S> {
    let ks = &ks[..cols.len()];
    let class = &w.class[..];
    let mut acc = S::ZERO;
    let mut touched = false;
    let mut count = 0i64;
    for i in 0..cols.len() {
        let col = cols[i];
        let k = ks[i].into();
        match class[col as usize] {
            IS_ZERO => {}
            IS_ONE => match k {
                ONE => count += 1,
                MINUS_ONE => count -= 1,
                k => add(&mut acc, &mut touched, table[k as usize]),
            },
            _ => {
                let v = w.w.get(col);
                let term = match k {
                    ONE => v,
                    MINUS_ONE => -v,
                    k => v * table[k as usize],
                };
                add(&mut acc, &mut touched, term);
            }
        }
    }
    match (touched, count) {
        (false, n) => Dot::Small(n),
        (true, 0) => Dot::Field(acc),
        (true, n) => Dot::Field(acc + w.value(&Dot::Small(n))),
    }
}

/// Marks a value that is not a count within `i8`.
const NOT_A_COUNT: i8 = i8::MIN;

fn count_of<S>(d: &Dot<S>) -> i8 {
    match *d {
        Dot::Small(n) => i8::try_from(n).ok().filter(|&n| n != NOT_A_COUNT).unwrap_or(NOT_A_COUNT),
        Dot::Field(_) => NOT_A_COUNT,
    }
}

/// a's and b's counts (see [`count_of`]) in one word.
fn pack_counts<S>(a: &Dot<S>, b: &Dot<S>) -> u16 {
    u16::from_le_bytes([count_of(a) as u8, count_of(b) as u8])
}

fn unpack_counts(packed: u16) -> (Option<i64>, Option<i64>) {
    let [a, b] = packed.to_le_bytes().map(|k| match k as i8 {
        NOT_A_COUNT => None,
        n => Some(i64::from(n)),
    });
    (a, b)
}

/// a · b = c given a's and b's counts when they are counts: without any
/// field operation when c is one too (the product of such small integers
/// cannot wrap the field), without a multiplication when a or b is 0 or 1.
#[inline]
fn holds<S: PrimeField>(ka: Option<i64>, kb: Option<i64>, [va, vb, vc]: [&S; 3], c: &Dot<S>) -> bool {
    match (ka, kb, c) {
        (Some(x), Some(y), Dot::Small(z)) => x * y == *z,
        (Some(0), _, _) | (_, Some(0), _) => *vc == S::ZERO,
        (Some(1), _, _) => vb == vc,
        (_, Some(1), _) => va == vc,
        _ => *va * vb == *vc,
    }
}

/// One row of `m`.
#[inline(always)]
fn row_dot<S: PrimeField, K: Copy + Into<u32>>(m: &Csr, ks: &[K], table: &[S], w: &Values<'_, S>, r: usize) -> Dot<S> {
    let (start, end) = (m.row_ptr()[r] as usize, m.row_ptr()[r + 1] as usize);
    dot(&m.cols()[start..end], &ks[start..end], table, w)
}

/// a, b and c, and the lowest row the witness does not satisfy.
fn products_with<S: PrimeField, K: Copy + Into<u32> + Sync>(
    mats: &[Csr; 3],
    ks: [&[K]; 3],
    table: &[S],
    w: &Values<'_, S>,
) -> ([Vec<S>; 3], Option<usize>) {
    let rows = mats[0].rows();
    // Two passes, a and b then c: rayon collects a pair straight into
    // place, while a three-way (nested) unzip measured 1.4 times slower.
    // The first pass notes which a and b are small counts for the check.
    let counts: Vec<AtomicU16> = (0..rows).map(|_| AtomicU16::new(0)).collect();
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    (0..rows)
        .into_par_iter()
        .with_min_len(MIN_ROWS_PER_TASK)
        .map(|r| {
            let da = row_dot(&mats[0], ks[0], table, w, r);
            let db = row_dot(&mats[1], ks[1], table, w, r);
            counts[r].store(pack_counts(&da, &db), Ordering::Relaxed);
            (w.value(&da), w.value(&db))
        })
        .unzip_into_vecs(&mut a, &mut b);
    let first_bad = AtomicUsize::new(usize::MAX);
    (0..rows)
        .into_par_iter()
        .with_min_len(MIN_ROWS_PER_TASK)
        .map(|r| {
            let dc = row_dot(&mats[2], ks[2], table, w, r);
            let vc = w.value(&dc);
            let (ka, kb) = unpack_counts(counts[r].load(Ordering::Relaxed));
            if !holds(ka, kb, [&a[r], &b[r], &vc], &dc) {
                first_bad.fetch_min(r, Ordering::Relaxed);
            }
            vc
        })
        .collect_into_vec(&mut c);
    let bad = first_bad.into_inner();
    ([a, b, c], (bad != usize::MAX).then_some(bad))
}

/// a, b and c, and the lowest row the witness does not satisfy. The three
/// matrices have the same number of rows and share one column space, which
/// the witness fills (the caller checks its lengths).
fn products<S: PrimeField>(mats: &[Csr; 3], table: &[S], w: &Values<'_, S>) -> ([Vec<S>; 3], Option<usize>) {
    let ks = mats.each_ref().map(Csr::coeff_indices);
    match ks {
        [CoeffIndexSlice::Narrow(a), CoeffIndexSlice::Narrow(b), CoeffIndexSlice::Narrow(c)] => {
            products_with(mats, [a, b, c], table, w)
        }
        _ => {
            let wide = ks.map(|k| match k {
                CoeffIndexSlice::Narrow(v) => v.iter().map(|&k| u32::from(k)).collect(),
                CoeffIndexSlice::Wide(v) => v.to_vec(),
            });
            products_with(mats, wide.each_ref().map(Vec::as_slice), table, w)
        }
    }
}

/// a, b and c of every row, or the first row (lowest index) that the
/// witness does not satisfy. The caller has checked the witness's lengths
/// against the matrices' column space.
pub(crate) fn evaluate<S: PrimeField>(
    mats: &[Csr; 3],
    table: &[S],
    w: Columns<'_, S>,
) -> Result<[Vec<S>; 3], SynthesisError> {
    match products(mats, table, &Values::new(w, worth_classifying(w.aux))) {
        (abc, None) => Ok(abc),
        (_, Some(r)) => Err(SynthesisError::UnsatisfiedConstraint(r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded::matrix::CoeffIndices;
    use blstrs::Scalar;
    use ff::Field;
    use proptest::prelude::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// The reference: every nonzero multiplied by its table entry, one row after another.
    fn naive(m: &Csr, table: &[Scalar], inputs: &[Scalar], aux: &[Scalar]) -> Vec<Scalar> {
        let w: Vec<Scalar> = inputs.iter().chain(aux).copied().collect();
        (0..m.rows())
            .map(|r| m.row(r).map(|(c, k)| w[c as usize] * table[k as usize]).sum())
            .collect()
    }

    /// A random matrix over `n_in + n_aux` columns; rows are long enough to
    /// span several rayon tasks.
    fn random_csr(seed: u64, rows: usize, n_cols: usize, table_len: usize, wide: bool) -> Csr {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut next = |n: usize| (rand_core::RngCore::next_u64(&mut rng) % n as u64) as u32;
        let (mut ptr, mut cols, mut ks) = (vec![0u32], Vec::new(), Vec::new());
        for _ in 0..rows {
            // Now and then a long row, as MultiEq writes.
            let len = if next(64) == 0 { 100 } else { next(5) };
            for _ in 0..len {
                cols.push(next(n_cols));
                // Mostly ±1, as in real circuits.
                ks.push(if next(3) == 0 { next(table_len) } else { next(2) });
            }
            ptr.push(cols.len() as u32);
        }
        let ks = if wide {
            CoeffIndices::Wide(ks)
        } else {
            CoeffIndices::Narrow(ks.iter().map(|&k| k as u16).collect())
        };
        Csr::from_parts(ptr, cols, ks, n_cols, table_len).unwrap()
    }

    /// A value from a selector: mostly zeros and ones, as in real witnesses.
    fn value_of(i: usize, rng: &mut ChaCha20Rng) -> Scalar {
        match i % 4 {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => -Scalar::ONE,
            _ => Scalar::random(rng),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        #[test]
        fn products_match_the_naive_ones_classified_or_not(
            seed in any::<u64>(),
            rows in 0usize..3 * MIN_ROWS_PER_TASK,
            n_in in 1usize..4,
            n_aux in 0usize..50,
            extra in 0usize..5,
            wide in any::<bool>(),
        ) {
            let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 1);
            let mut table = vec![Scalar::ONE, -Scalar::ONE];
            table.extend((0..extra).map(|_| Scalar::random(&mut rng)));
            let inputs: Vec<Scalar> = (0..n_in).map(|i| value_of(i + (seed % 4) as usize, &mut rng)).collect();
            let aux: Vec<Scalar> = (0..n_aux).map(|i| value_of(i * 7 + (seed % 4) as usize, &mut rng)).collect();
            let mats = [0, 1, 2].map(|m| random_csr(seed.wrapping_add(m), rows, n_in + n_aux, table.len(), wide));
            let want = mats.each_ref().map(|m| naive(m, &table, &inputs, &aux));
            let want_bad = (0..rows).find(|&r| want[0][r] * want[1][r] != want[2][r]);
            for classified in [false, true] {
                let w = Values::new(Columns { inputs: &inputs, aux: &aux }, classified);
                let (got, bad) = products(&mats, &table, &w);
                prop_assert_eq!(&got, &want);
                prop_assert_eq!(bad, want_bad);
            }
        }

        /// The row check against a · b = c in the field, over every kind
        /// of a, b and c (counts, counts beyond `i8`, field values that are
        /// small integers, random ones), with c made to hold half of the time.
        #[test]
        fn the_row_check_matches_the_field_equation(
            kinds in prop::array::uniform3(0u8..4),
            smalls in prop::array::uniform3(-3i64..4),
            seed in any::<u64>(),
            force in any::<bool>(),
        ) {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let w = Values::new(Columns { inputs: &[Scalar::ONE], aux: &[] }, true);
            let mut dots: [Dot<Scalar>; 3] = [0, 1, 2].map(|i| match kinds[i] {
                0 => Dot::Small(smalls[i]),
                1 => Dot::Small(smalls[i] * 1000),
                2 => Dot::Field(Values::<Scalar>::integer(smalls[i])),
                _ => Dot::Field(Scalar::random(&mut rng)),
            });
            if force {
                let [a, b, _] = dots.map(|d| w.value(&d));
                dots[2] = match (dots[0], dots[1]) {
                    (Dot::Small(x), Dot::Small(y)) => Dot::Small(x * y),
                    _ => Dot::Field(a * b),
                };
            }
            let v = dots.map(|d| w.value(&d));
            let (ka, kb) = unpack_counts(pack_counts(&dots[0], &dots[1]));
            prop_assert_eq!(holds(ka, kb, v.each_ref(), &dots[2]), v[0] * v[1] == v[2]);
        }
    }

    #[test]
    fn a_sample_decides_whether_to_classify() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let bits: Vec<Scalar> = (0..5000).map(|i| Scalar::from(i % 2)).collect();
        let random: Vec<Scalar> = (0..5000).map(|_| Scalar::random(&mut rng)).collect();
        assert!(worth_classifying(&bits));
        assert!(!worth_classifying(&random));
        assert!(worth_classifying::<Scalar>(&[]));
    }

    #[test]
    fn counts_beyond_the_small_table_are_exact() {
        let n = 3 * SMALL as usize;
        let ptr = vec![0, n as u32, 2 * n as u32];
        let mut ks = vec![ONE as u16; n];
        ks.extend(vec![MINUS_ONE as u16; n]);
        let m = Csr::from_parts(ptr, vec![0; 2 * n], CoeffIndices::Narrow(ks.clone()), 1, 2).unwrap();
        let table = [Scalar::ONE, -Scalar::ONE];
        let w = Values::new(Columns { inputs: &[Scalar::ONE], aux: &[] }, true);
        let row = |r| dot(&m.cols()[r * n..(r + 1) * n], &ks[r * n..(r + 1) * n], &table, &w);
        assert_eq!(row(0), Dot::Small(n as i64));
        assert_eq!(w.value(&row(1)), -Scalar::from(n as u64));
    }

    #[test]
    fn the_lowest_unsatisfied_row_is_reported() {
        // Rows: x·x = y, with x = 3, y = 9 satisfied; break rows 5000 and 9000.
        let rows = 10_000;
        let one_row = |col: u32| {
            let ptr: Vec<u32> = (0..=rows as u32).collect();
            Csr::from_parts(ptr, vec![col; rows], CoeffIndices::Narrow(vec![ONE as u16; rows]), 4, 2).unwrap()
        };
        let (a, b) = (one_row(1), one_row(1));
        let mut c_cols = vec![2u32; rows];
        c_cols[9000] = 3;
        c_cols[5000] = 3;
        let ptr: Vec<u32> = (0..=rows as u32).collect();
        let c = Csr::from_parts(ptr, c_cols, CoeffIndices::Narrow(vec![ONE as u16; rows]), 4, 2).unwrap();
        let table = [Scalar::ONE, -Scalar::ONE];
        let s = Scalar::from;
        let (inputs, aux) = ([s(1)], [s(3), s(9), s(10)]);
        let w = Columns { inputs: &inputs, aux: &aux };
        let mats = [a, b, c];
        assert_eq!(evaluate(&mats, &table, w), Err(SynthesisError::UnsatisfiedConstraint(5000)));
        let aux = [s(3), s(9), s(9)];
        let [a, b, c] = evaluate(&mats, &table, Columns { inputs: &inputs, aux: &aux }).unwrap();
        assert!(a.iter().all(|&v| v == s(3)) && b == a && c.iter().all(|&v| v == s(9)));
    }
}
