//! One constraint matrix (A, B or C) as compressed sparse rows over a single
//! column space, with coefficients replaced by indices into a table shared
//! by the three matrices of a shape.
//!
//! Column `j < num_inputs` is public input `j` (column 0 is the constant
//! one); column `num_inputs + j` is aux variable `j`. Within a row the
//! columns are strictly increasing: repeated variables are merged and zero
//! coefficients dropped when recording, which changes no evaluation because
//! field arithmetic is exact.

use std::collections::HashMap;

use ff::PrimeField;

use crate::SynthesisError;

/// Table index of the coefficient one in every shape.
pub const ONE: u32 = 0;
/// Table index of the coefficient minus one in every shape.
pub const MINUS_ONE: u32 = 1;
/// Tables up to this many entries use 16-bit indices (most circuits: ±1,
/// powers of two and a few constants), which keeps a nonzero at 6 bytes.
pub const NARROW_TABLE_LIMIT: usize = 1 << 16;

/// The coefficient index of every nonzero of one matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoeffIndices {
    /// Used when the table has at most [`NARROW_TABLE_LIMIT`] entries.
    Narrow(Vec<u16>),
    /// Used for larger tables.
    Wide(Vec<u32>),
}

/// A borrowed view of [`CoeffIndices`], for kernels that take the arrays as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoeffIndexSlice<'a> {
    /// 16-bit indices.
    Narrow(&'a [u16]),
    /// 32-bit indices.
    Wide(&'a [u32]),
}

impl CoeffIndices {
    fn len(&self) -> usize {
        match self {
            CoeffIndices::Narrow(v) => v.len(),
            CoeffIndices::Wide(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> u32 {
        match self {
            CoeffIndices::Narrow(v) => u32::from(v[i]),
            CoeffIndices::Wide(v) => v[i],
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            CoeffIndices::Narrow(v) => v.capacity() * 2,
            CoeffIndices::Wide(v) => v.capacity() * 4,
        }
    }
}

/// One matrix in compressed sparse rows: row `r`'s nonzeros are the entries
/// `row_ptr[r]..row_ptr[r + 1]` of `cols` and of the coefficient indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    row_ptr: Vec<u32>,
    cols: Vec<u32>,
    coeffs: CoeffIndices,
}

impl Csr {
    /// Checks every invariant the evaluation relies on, so that a matrix
    /// read from a file can never index out of bounds.
    pub(crate) fn from_parts(
        row_ptr: Vec<u32>,
        cols: Vec<u32>,
        coeffs: CoeffIndices,
        num_cols: usize,
        table_len: usize,
    ) -> Result<Self, String> {
        if row_ptr.first() != Some(&0) {
            return Err("row pointers do not start at 0".into());
        }
        if row_ptr.windows(2).any(|w| w[0] > w[1]) {
            return Err("row pointers decrease".into());
        }
        if row_ptr.last().map(|&n| n as usize) != Some(cols.len()) || coeffs.len() != cols.len() {
            return Err("row pointers, columns and coefficient indices disagree on the nonzero count".into());
        }
        if let Some(&c) = cols.iter().find(|&&c| c as usize >= num_cols) {
            return Err(format!("column {c} is beyond the {num_cols} variables"));
        }
        if let Some(k) = (0..coeffs.len()).map(|i| coeffs.get(i)).find(|&k| k as usize >= table_len) {
            return Err(format!("coefficient index {k} is beyond the table of {table_len}"));
        }
        Ok(Csr { row_ptr, cols, coeffs })
    }

    /// Number of rows (constraints, the input-independence ones included).
    pub fn rows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// `rows() + 1` offsets into the nonzeros; the first is 0, the last `nnz()`.
    pub fn row_ptr(&self) -> &[u32] {
        &self.row_ptr
    }

    /// The column of every nonzero (inputs first, then aux).
    pub fn cols(&self) -> &[u32] {
        &self.cols
    }

    /// The coefficient table index of every nonzero.
    pub fn coeff_indices(&self) -> CoeffIndexSlice<'_> {
        match &self.coeffs {
            CoeffIndices::Narrow(v) => CoeffIndexSlice::Narrow(v),
            CoeffIndices::Wide(v) => CoeffIndexSlice::Wide(v),
        }
    }

    /// Row `r` as `(column, coefficient index)` pairs.
    pub fn row(&self, r: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.row_ptr[r] as usize..self.row_ptr[r + 1] as usize;
        range.map(move |i| (self.cols[i], self.coeffs.get(i)))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        (self.row_ptr.capacity() + self.cols.capacity()) * 4 + self.coeffs.heap_bytes()
    }
}

/// Deduplicates coefficients while recording; one and minus one sit at
/// their fixed indices from the start.
pub(crate) struct CoeffTable<S: PrimeField> {
    values: Vec<S>,
    index: HashMap<Vec<u8>, u32>,
}

impl<S: PrimeField> CoeffTable<S> {
    pub(crate) fn new() -> Self {
        let mut table = CoeffTable { values: Vec::new(), index: HashMap::new() };
        for v in [S::ONE, -S::ONE] {
            table.index.insert(v.to_repr().as_ref().to_vec(), table.values.len() as u32);
            table.values.push(v);
        }
        table
    }

    pub(crate) fn intern(&mut self, v: S) -> Result<u32, SynthesisError> {
        if v == S::ONE {
            return Ok(ONE);
        }
        if v == -S::ONE {
            return Ok(MINUS_ONE);
        }
        let repr = v.to_repr();
        if let Some(&k) = self.index.get(repr.as_ref()) {
            return Ok(k);
        }
        let k = u32::try_from(self.values.len())
            .map_err(|_| SynthesisError::RecordingTooLarge("more than 2^32 distinct coefficients".into()))?;
        self.index.insert(repr.as_ref().to_vec(), k);
        self.values.push(v);
        Ok(k)
    }

    /// The distinct coefficients so far, by index.
    pub(crate) fn values(&self) -> &[S] {
        &self.values
    }

    pub(crate) fn into_values(self) -> Vec<S> {
        self.values
    }
}

/// While recording, aux columns carry this bit: inputs sort first, as in the
/// final column space, whose offset (the number of inputs) is not known yet.
const AUX_TAG: u32 = 1 << 31;

/// A recording-time column: inputs as they are, aux tagged.
pub(crate) fn staged_column(var: crate::Variable) -> Result<u32, SynthesisError> {
    let (index, tag) = match var.get_unchecked() {
        crate::Index::Input(i) => (i, 0),
        crate::Index::Aux(i) => (i, AUX_TAG),
    };
    match u32::try_from(index) {
        Ok(i) if i < AUX_TAG => Ok(i | tag),
        _ => Err(SynthesisError::RecordingTooLarge(format!("variable index {index} needs more than 31 bits"))),
    }
}

/// Where the rows of one part of a split circuit land in the whole: its rows
/// from `from_row` on (those after the prefix's), its variables past the
/// prefix's `inputs` and `aux` moved by `shift` (inputs, aux), its
/// coefficient indices mapped through `coeffs` into the whole's table.
pub(crate) struct Tail<'a> {
    pub(crate) from_row: usize,
    pub(crate) inputs: usize,
    pub(crate) aux: usize,
    pub(crate) shift: (usize, usize),
    pub(crate) coeffs: &'a [u32],
}

impl Tail<'_> {
    /// A part's staged column as the whole's staged column.
    fn column(&self, col: u32) -> Result<u32, SynthesisError> {
        let (index, fixed, shift, tag) = match col & AUX_TAG {
            0 => (col as usize, self.inputs, self.shift.0, 0),
            _ => ((col & !AUX_TAG) as usize, self.aux, self.shift.1, AUX_TAG),
        };
        let moved = if index < fixed { index } else { index + shift };
        match u32::try_from(moved) {
            Ok(i) if i < AUX_TAG => Ok(i | tag),
            _ => Err(SynthesisError::RecordingTooLarge(format!("variable index {moved} needs more than 31 bits"))),
        }
    }
}

/// Grows one matrix a row at a time.
pub(crate) struct CsrBuilder {
    row_ptr: Vec<u32>,
    cols: Vec<u32>,
    coeffs: Vec<u32>,
}

impl CsrBuilder {
    pub(crate) fn new() -> Self {
        CsrBuilder { row_ptr: vec![0], cols: Vec::new(), coeffs: Vec::new() }
    }

    /// Appends a row given as `(staged column, coefficient)` terms in any
    /// order, with repeats; `terms` is left sorted and merged.
    pub(crate) fn push_row<S: PrimeField>(
        &mut self,
        terms: &mut Vec<(u32, S)>,
        table: &mut CoeffTable<S>,
    ) -> Result<(), SynthesisError> {
        terms.sort_unstable_by_key(|t| t.0);
        terms.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
        for &(col, coeff) in terms.iter() {
            if !bool::from(coeff.is_zero()) {
                self.cols.push(col);
                self.coeffs.push(table.intern(coeff)?);
            }
        }
        let nnz = u32::try_from(self.cols.len())
            .map_err(|_| SynthesisError::RecordingTooLarge("more than 2^32 nonzeros in one matrix".into()))?;
        self.row_ptr.push(nnz);
        Ok(())
    }

    /// Rows and nonzeros from row `from_row` on.
    pub(crate) fn tail_len(&self, from_row: usize) -> (usize, usize) {
        let start = self.row_ptr.get(from_row).map_or(self.cols.len(), |&p| p as usize);
        (self.row_ptr.len().saturating_sub(from_row + 1), self.cols.len() - start)
    }

    /// Makes room for tails of the given (rows, nonzeros).
    pub(crate) fn reserve(&mut self, tails: impl Iterator<Item = (usize, usize)>) {
        let (rows, nnz) = tails.fold((0, 0), |(r, n), (tr, tn)| (r + tr, n + tn));
        self.row_ptr.reserve(rows);
        self.cols.reserve(nnz);
        self.coeffs.reserve(nnz);
    }

    /// Appends `part`'s rows from `tail.from_row` on, moved as `tail` says.
    pub(crate) fn append_tail(&mut self, part: &CsrBuilder, tail: &Tail<'_>) -> Result<(), SynthesisError> {
        let Some(&start) = part.row_ptr.get(tail.from_row) else { return Ok(()) };
        let (start, base) = (start as usize, self.cols.len());
        for &col in &part.cols[start..] {
            self.cols.push(tail.column(col)?);
        }
        self.coeffs.extend(part.coeffs[start..].iter().map(|&k| tail.coeffs[k as usize]));
        for &end in &part.row_ptr[tail.from_row + 1..] {
            let nnz = u32::try_from(base + (end as usize - start))
                .map_err(|_| SynthesisError::RecordingTooLarge("more than 2^32 nonzeros in one matrix".into()))?;
            self.row_ptr.push(nnz);
        }
        Ok(())
    }

    /// Moves aux columns behind the `num_inputs` inputs and narrows the
    /// coefficient indices when the table allows.
    pub(crate) fn finish(mut self, num_inputs: u32, table_len: usize) -> Csr {
        for c in &mut self.cols {
            if *c & AUX_TAG != 0 {
                *c = (*c & !AUX_TAG) + num_inputs;
            }
        }
        self.row_ptr.shrink_to_fit();
        self.cols.shrink_to_fit();
        let coeffs = if table_len <= NARROW_TABLE_LIMIT {
            CoeffIndices::Narrow(self.coeffs.iter().map(|&k| k as u16).collect())
        } else {
            self.coeffs.shrink_to_fit();
            CoeffIndices::Wide(self.coeffs)
        };
        Csr { row_ptr: self.row_ptr, cols: self.cols, coeffs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Index, Variable};
    use blstrs::Scalar;

    #[test]
    fn rows_merge_repeats_drop_zeros_and_put_inputs_first() {
        let mut table = CoeffTable::<Scalar>::new();
        let mut m = CsrBuilder::new();
        let col = |i| staged_column(Variable(i)).unwrap();
        let (x, one, y) = (col(Index::Aux(0)), col(Index::Input(0)), col(Index::Aux(1)));
        let s = Scalar::from;
        let mut row = vec![(x, s(2)), (one, s(1)), (x, -s(2)), (y, s(5)), (y, -s(6))];
        m.push_row(&mut row, &mut table).unwrap();
        m.push_row(&mut Vec::new(), &mut table).unwrap();
        m.push_row(&mut vec![(y, s(5)), (x, s(0))], &mut table).unwrap();
        let table = table.into_values();
        assert_eq!(table, vec![s(1), -s(1), s(5)]);
        let csr = m.finish(2, table.len());
        assert_eq!(csr.row_ptr(), &[0, 2, 2, 3]);
        assert_eq!(csr.row(0).collect::<Vec<_>>(), vec![(0, ONE), (3, MINUS_ONE)]);
        assert_eq!(csr.row(2).collect::<Vec<_>>(), vec![(3, 2)]);
        assert!(matches!(csr.coeff_indices(), CoeffIndexSlice::Narrow(_)));
    }

    #[test]
    fn from_parts_rejects_what_would_index_out_of_bounds() {
        let narrow = |v: &[u16]| CoeffIndices::Narrow(v.to_vec());
        let check = |row_ptr: &[u32], cols: &[u32], coeffs: &[u16], ok: bool| {
            let got = Csr::from_parts(row_ptr.to_vec(), cols.to_vec(), narrow(coeffs), 4, 3);
            assert_eq!(got.is_ok(), ok, "{row_ptr:?} {cols:?} {coeffs:?}");
        };
        check(&[0, 1, 2], &[3, 0], &[2, 0], true);
        check(&[1, 1, 2], &[3, 0], &[2, 0], false);
        check(&[0, 2, 1], &[3, 0], &[2, 0], false);
        check(&[0, 1, 3], &[3, 0], &[2, 0], false);
        check(&[0, 1, 2], &[4, 0], &[2, 0], false);
        check(&[0, 1, 2], &[3, 0], &[3, 0], false);
        check(&[0, 1, 2], &[3, 0], &[2], false);
        check(&[], &[], &[], false);
    }

    #[test]
    fn overlong_variable_indices_are_rejected() {
        assert!(staged_column(Variable(Index::Aux((1 << 31) - 1))).is_ok());
        assert!(matches!(
            staged_column(Variable(Index::Aux(1 << 31))),
            Err(SynthesisError::RecordingTooLarge(_))
        ));
        assert!(matches!(
            staged_column(Variable(Index::Input(1 << 31))),
            Err(SynthesisError::RecordingTooLarge(_))
        ));
    }
}
