//! a = A·w, b = B·w, c = C·w on the CPU, in parallel over chunks of rows
//! whatever the circuit, with every row checked for a_i · b_i = c_i in the
//! pass that computes c.

use std::sync::atomic::{AtomicUsize, Ordering};

use ff::PrimeField;
use rayon::prelude::*;

use super::matrix::{CoeffIndexSlice, Csr, MINUS_ONE, ONE};
use crate::SynthesisError;

/// Rows per rayon task at least: a row costs tens of nanoseconds, so
/// smaller tasks would cost more to schedule than to run.
const MIN_ROWS_PER_TASK: usize = 4096;

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

/// One row's dot product. Multiplications are skipped for coefficients ±1
/// and for values 0 and 1: most other coefficients are powers of two that
/// pack bits (SHA-256's sums of words), whose values are 0 or 1.
#[inline]
fn dot<S: PrimeField, K: Copy + Into<u32>>(cols: &[u32], ks: &[K], table: &[S], w: Columns<'_, S>) -> S {
    let mut acc = S::ZERO;
    for (&col, &k) in cols.iter().zip(ks) {
        let v = w.get(col);
        match k.into() {
            ONE => acc += v,
            MINUS_ONE => acc -= v,
            k => {
                if v == S::ONE {
                    acc += table[k as usize];
                } else if !bool::from(v.is_zero()) {
                    acc += v * table[k as usize];
                }
            }
        }
    }
    acc
}

fn product_with<S: PrimeField, K: Copy + Into<u32> + Sync>(
    m: &Csr,
    ks: &[K],
    table: &[S],
    w: Columns<'_, S>,
    check: impl Fn(usize, &S) + Sync,
) -> Vec<S> {
    let (ptr, cols) = (m.row_ptr(), m.cols());
    let mut out = Vec::new();
    (0..m.rows())
        .into_par_iter()
        .with_min_len(MIN_ROWS_PER_TASK)
        .map(|r| {
            let range = ptr[r] as usize..ptr[r + 1] as usize;
            let v = dot(&cols[range.clone()], &ks[range], table, w);
            check(r, &v);
            v
        })
        .collect_into_vec(&mut out);
    out
}

/// `m · w`, calling `check(row, value)` on every row as it is computed.
fn product<S: PrimeField>(m: &Csr, table: &[S], w: Columns<'_, S>, check: impl Fn(usize, &S) + Sync) -> Vec<S> {
    match m.coeff_indices() {
        CoeffIndexSlice::Narrow(ks) => product_with(m, ks, table, w, check),
        CoeffIndexSlice::Wide(ks) => product_with(m, ks, table, w, check),
    }
}

/// a, b and c of every row, or the first row (lowest index) that the
/// witness does not satisfy. The caller has checked the witness's lengths
/// against the matrices' column space.
pub(crate) fn evaluate<S: PrimeField>(
    [ma, mb, mc]: &[Csr; 3],
    table: &[S],
    w: Columns<'_, S>,
) -> Result<[Vec<S>; 3], SynthesisError> {
    let a = product(ma, table, w, |_, _| {});
    let b = product(mb, table, w, |_, _| {});
    let first_bad = AtomicUsize::new(usize::MAX);
    let c = product(mc, table, w, |r, c| {
        if a[r] * b[r] != *c {
            first_bad.fetch_min(r, Ordering::Relaxed);
        }
    });
    match first_bad.into_inner() {
        usize::MAX => Ok([a, b, c]),
        r => Err(SynthesisError::UnsatisfiedConstraint(r)),
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
            for _ in 0..next(5) {
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        #[test]
        fn parallel_product_matches_the_naive_one(
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
            // Zeros and ones take their own path; mix them with random values.
            let mut value = |i: usize| match i % 4 {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                _ => Scalar::random(&mut rng),
            };
            let inputs: Vec<Scalar> = (0..n_in).map(|i| value(i + (seed % 4) as usize)).collect();
            let aux: Vec<Scalar> = (0..n_aux).map(|i| value(i * 7 + (seed % 4) as usize)).collect();
            let m = random_csr(seed, rows, n_in + n_aux, table.len(), wide);
            let got = product(&m, &table, Columns { inputs: &inputs, aux: &aux }, |_, _| {});
            prop_assert_eq!(got, naive(&m, &table, &inputs, &aux));
        }
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
