//! uᵢ(τ), vᵢ(τ), wᵢ(τ) of every variable of a recorded shape: column sums
//! Σⱼ M[j][i]·Lⱼ(τ) of each matrix, in parallel, without a copy of the
//! matrices in the setup's 56-byte entries (`assembly.rs`).
//!
//! Rows are stored, but sums are wanted per column, and a parallel pass
//! over rows would need a partial vector per thread (32 bytes per variable
//! each: 16 threads × 130 M variables is 67 GB at Filecoin's size). So each
//! matrix is transposed first by a counting sort of its u32 column
//! indices: a count per column, their prefix sums as cursors, then each
//! entry placed at its column's cursor as (row, coefficient index) in 8
//! bytes, and each column summed by one task. Memory per matrix: 8 bytes per
//! nonzero plus 4 per variable (the cursors, which end as the columns'
//! ends), besides the 32 per variable of the result; the matrices go one at
//! a time. At 2^27 rows, ~250 M nonzeros in A and 130 M variables that is
//! 2.5 GB of transpose next to the 4.3 GB basis and the 4.2 GB result.
//! Placement order within a column depends on the threads, but a field sum
//! does not.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use blstrs::Scalar;
use cuzk_synth::recorded::{CoeffIndexSlice, Csr, RecordedShape, MINUS_ONE, ONE};
use rayon::prelude::*;


/// Rows placed per parallel task of the transpose.
const ROWS_PER_TASK: usize = 4096;

/// uᵢ(τ), vᵢ(τ), wᵢ(τ) of every variable, in the recorded shape's column
/// order: public inputs first (the one at 0), then private variables.
pub(crate) struct Columns {
    pub(crate) at_tau: [Vec<Scalar>; 3],
    pub(crate) num_inputs: usize,
}

/// Each variable's column sums of A, B and C over `lagrange` (Lⱼ(τ) per row).
pub(crate) fn evaluate(shape: &RecordedShape<Scalar>, lagrange: &[Scalar]) -> Columns {
    let num_cols = shape.num_inputs() + shape.num_aux();
    let table = shape.coefficients();
    let at_tau = [shape.a(), shape.b(), shape.c()].map(|m| column_sums(m, table, lagrange, num_cols));
    Columns { at_tau, num_inputs: shape.num_inputs() }
}

/// A matrix in compressed sparse columns: column c's entries are
/// `entries[ends[c - 1]..ends[c]]` (from 0 for c = 0), each
/// `row << 32 | coefficient index`. Atomics only so that the parallel
/// placement needs no unsafe code; once built, the relaxed loads that read
/// them are plain loads.
struct Transposed {
    ends: Vec<AtomicU32>,
    entries: Vec<AtomicU64>,
}

impl Transposed {
    fn of(m: &Csr, num_cols: usize) -> Transposed {
        let mut ends: Vec<AtomicU32> = (0..num_cols).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        m.cols().par_iter().for_each(|&c| {
            ends[c as usize].fetch_add(1, Ordering::Relaxed);
        });
        let mut start = 0u32;
        for cursor in &mut ends {
            let count = *cursor.get_mut();
            *cursor.get_mut() = start;
            start += count;
        }
        let entries: Vec<AtomicU64> = (0..m.nnz()).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        let (row_ptr, cols, coeffs) = (m.row_ptr(), m.cols(), m.coeff_indices());
        (0..m.rows()).into_par_iter().with_min_len(ROWS_PER_TASK).for_each(|row| {
            for i in row_ptr[row] as usize..row_ptr[row + 1] as usize {
                let slot = ends[cols[i] as usize].fetch_add(1, Ordering::Relaxed);
                let k = match coeffs {
                    CoeffIndexSlice::Narrow(v) => u64::from(v[i]),
                    CoeffIndexSlice::Wide(v) => u64::from(v[i]),
                };
                entries[slot as usize].store(((row as u64) << 32) | k, Ordering::Relaxed);
            }
        });
        Transposed { ends, entries }
    }

    fn column(&self, c: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let start = if c == 0 { 0 } else { self.ends[c - 1].load(Ordering::Relaxed) as usize };
        let end = self.ends[c].load(Ordering::Relaxed) as usize;
        self.entries[start..end].iter().map(|e| {
            let v = e.load(Ordering::Relaxed);
            ((v >> 32) as usize, v as u32)
        })
    }
}

/// Σⱼ M[j][c]·Lⱼ(τ) for every column c; ±1 coefficients skip the product.
fn column_sums(m: &Csr, table: &[Scalar], lagrange: &[Scalar], num_cols: usize) -> Vec<Scalar> {
    let t = Transposed::of(m, num_cols);
    (0..num_cols)
        .into_par_iter()
        .map(|c| {
            t.column(c).fold(Scalar::from(0u64), |acc, (row, k)| match k {
                ONE => acc + lagrange[row],
                MINUS_ONE => acc - lagrange[row],
                _ => acc + lagrange[row] * table[k as usize],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::{Circuit, ConstraintSystem, SynthesisError};
    use ff::Field;

    /// x·y = z with x, y, z private, plus 3·x + 5·one = w: every coefficient kind.
    struct Small;
    impl Circuit<Scalar> for Small {
        fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(Scalar::from(2u64)))?;
            let y = cs.alloc(|| "y", || Ok(Scalar::from(3u64)))?;
            let z = cs.alloc(|| "z", || Ok(Scalar::from(6u64)))?;
            let w = cs.alloc(|| "w", || Ok(Scalar::from(11u64)))?;
            cs.enforce(|| "xy", |lc| lc + x, |lc| lc + y, |lc| lc + z);
            let three = Scalar::from(3u64);
            let five = Scalar::from(5u64);
            cs.enforce(|| "w", |lc| lc + (three, x) + (five, CS::one()), |lc| lc + CS::one(), |lc| lc + w - z + z);
            Ok(())
        }
    }

    /// The column sums equal a dense evaluation row by row.
    #[test]
    fn column_sums_match_rows() {
        let shape = RecordedShape::record_shape(Small).unwrap();
        let rows = shape.num_constraints();
        let lagrange: Vec<Scalar> = (0..rows).map(|j| Scalar::from(7 + j as u64).square()).collect();
        let cols = evaluate(&shape, &lagrange);
        for (m, got) in [shape.a(), shape.b(), shape.c()].into_iter().zip(&cols.at_tau) {
            let mut want = vec![Scalar::ZERO; shape.num_inputs() + shape.num_aux()];
            for (j, l) in lagrange.iter().enumerate() {
                for (c, k) in m.row(j) {
                    want[c as usize] += *l * shape.coefficients()[k as usize];
                }
            }
            assert_eq!(got, &want);
        }
        assert_eq!(cols.num_inputs, 1);
    }
}
