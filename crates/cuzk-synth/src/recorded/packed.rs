//! The digits of a packed sum, solved a segment at a time: bellperson's
//! `MultiEq` writes several additions as one row, `Σ 2^off_j · operands_j
//! · 1 = Σ 2^off_j · digits_j`, and in SHA-256 a later addition's operands
//! are XORs of an earlier one's digits. No variable of such a row is known
//! until the lowest additions are, so the one-row rules of the `solve`
//! module never fire and ~4,300 of a compression's bits would be free.
//!
//! Read as integers (the gadget keeps every sum below the field's
//! capacity), the row says the operands' sum equals the digits' sum. Terms
//! of an operand whose lowest weight is `2^E` add multiples of `2^E`, so
//! once every operand term below weight `2^E` is known, the digits below
//! `2^E` are the low bits of (known operands − known digits): solved
//! together, they make the next operands' XORs known, which raises `E`. The
//! planner keeps, per packed row, its operand and digit terms sorted by
//! weight and two cursors, so each look at the row costs what it advances.
//!
//! A row is packed when B is the constant one, C is aux variables with
//! distinct weights `+2^e`, and A's coefficients are integers of either
//! sign whose size is below the capacity. A digit may be an operand too (SHA-256 adds a sum
//! packed in the same row): it is solved as a digit, and its operand term,
//! still zero when its segment is solved, adds only above the segment. Whether the values make
//! the integer reading true is not assumed: every row is evaluated on the
//! finished witness, so digits that do not fit fail the proof.

use std::collections::HashMap;

use ff::{PrimeField, PrimeFieldBits};

use super::matrix::ONE;
use super::{RecordedShape, MINUS_ONE};
use crate::SynthesisError;

/// One packed row's terms by weight, and how far the planner has solved.
struct PackedRow {
    /// `(exponent of the coefficient's lowest set bit, aux variable)` of A, sorted.
    operands: Vec<(u16, u32)>,
    /// `(exponent, aux variable)` of C, sorted.
    digits: Vec<(u16, u32)>,
    /// Operands before this one are known.
    operand_at: usize,
    /// Digits before this one are known.
    digit_at: usize,
}

/// Which rows are packed, found on first look.
pub(super) struct PackedRows {
    /// Per row: `NOT_LOOKED`, `NOT_PACKED` or an index into `rows`.
    kind: Vec<u32>,
    rows: Vec<PackedRow>,
    /// Per coefficient index: the exponent of its lowest set bit when its
    /// integer is below the capacity, else `None`; filled on first need.
    low_bit: Vec<Option<u16>>,
}

const NOT_LOOKED: u32 = u32::MAX;
const NOT_PACKED: u32 = u32::MAX - 1;

/// What the planner knows of a variable, as the packed rows need it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Known {
    No,
    Boolean,
    Yes,
}

impl PackedRows {
    pub(super) fn new(rows: usize) -> Self {
        PackedRows { kind: vec![NOT_LOOKED; rows], rows: Vec::new(), low_bit: Vec::new() }
    }

    /// The digits of row `r` that the known operands now determine (each
    /// `(aux variable, exponent)`, in increasing exponent), empty when none
    /// or when `r` is not packed. `power` maps a coefficient index to `e`
    /// for `2^e` (and `e + 512` for `−2^e`).
    pub(super) fn advance<S: PrimeField + PrimeFieldBits>(
        &mut self,
        shape: &RecordedShape<S>,
        power: &HashMap<usize, u16>,
        known: impl Fn(u32) -> Known,
        r: u32,
    ) -> Vec<(u32, u16)> {
        if self.kind[r as usize] == NOT_LOOKED {
            self.kind[r as usize] = match self.classify(shape, power, r as usize) {
                Some(row) => {
                    self.rows.push(row);
                    (self.rows.len() - 1) as u32
                }
                None => NOT_PACKED,
            };
        }
        let Some(row) = self.rows.get_mut(self.kind[r as usize] as usize) else { return Vec::new() };
        while row.operand_at < row.operands.len() && known(row.operands[row.operand_at].1) == Known::Yes {
            row.operand_at += 1;
        }
        let below = row.operands.get(row.operand_at).map_or(u16::MAX, |&(e, _)| e);
        let mut solved = Vec::new();
        while let Some(&(e, v)) = row.digits.get(row.digit_at).filter(|&&(e, _)| e < below) {
            match known(v) {
                Known::Yes => {}
                Known::Boolean => solved.push((v, e)),
                Known::No => break,
            }
            row.digit_at += 1;
        }
        solved
    }

    fn classify<S: PrimeField + PrimeFieldBits>(
        &mut self,
        shape: &RecordedShape<S>,
        power: &HashMap<usize, u16>,
        r: usize,
    ) -> Option<PackedRow> {
        let [a, b, c] = &shape.matrices;
        let mut bs = b.row(r);
        if !matches!((bs.next(), bs.next()), (Some((0, ONE)), None)) {
            return None;
        }
        let ni = shape.num_inputs as u32;
        let mut digits = Vec::new();
        for (col, k) in c.row(r) {
            let e = *power.get(&(k as usize)).filter(|&&e| e < 512)?;
            digits.push((e, col.checked_sub(ni)?));
        }
        if digits.len() < 2 {
            return None;
        }
        digits.sort_unstable();
        if digits.windows(2).any(|w| w[0].0 == w[1].0) {
            return None;
        }
        if self.low_bit.is_empty() {
            self.low_bit = shape.coeffs.iter().map(low_bit::<S>).collect();
        }
        let mut operands = Vec::new();
        for (col, k) in a.row(r) {
            let e = self.low_bit[k as usize]?;
            if let Some(v) = col.checked_sub(ni) {
                operands.push((e, v));
            }
        }
        operands.sort_unstable();
        Some(PackedRow { operands, digits, operand_at: 0, digit_at: 0 })
    }
}

/// The exponent of the lowest set bit of `|k|`, `k` read as an integer of
/// either sign (a negative one is `p − |k|`: bellperson's `Boolean::Not`
/// adds `−2^e · v`), if `|k|` is below the field's capacity.
fn low_bit<S: PrimeField + PrimeFieldBits>(k: &S) -> Option<u16> {
    [*k, -*k].iter().find_map(|k| {
        let bits = k.to_le_bits();
        let top = bits.iter().by_vals().rposition(|b| b)?;
        (top < S::CAPACITY as usize).then(|| bits.iter().by_vals().position(|b| b).expect("a set bit exists") as u16)
    })
}

impl<S: PrimeField + PrimeFieldBits> RecordedShape<S> {
    /// Writes the digits `group` (`(aux variable, exponent)`, exponents
    /// increasing) of packed row `row`: the low bits of the operands' sum
    /// less the digits' sum, reading each as an integer. Every variable of
    /// the row not yet computed must still be zero in `aux` (the operands
    /// above the group's weights and the digits of the group and above), as
    /// a replay leaves them.
    pub(super) fn replay_digits(&self, row: u32, group: &[(u32, u16)], inputs: &[S], aux: &mut [S]) -> Result<(), SynthesisError> {
        let [a, _, c] = &self.matrices;
        let sum = |m: &super::Csr| {
            let mut s = S::ZERO;
            for (col, k) in m.row(row as usize) {
                let x = match (col as usize).checked_sub(self.num_inputs) {
                    None => inputs[col as usize],
                    Some(j) => aux[j],
                };
                if bool::from(x.is_zero()) {
                    continue;
                }
                s += match k {
                    ONE => x,
                    MINUS_ONE => -x,
                    k if x == S::ONE => self.coeffs[k as usize],
                    k => self.coeffs[k as usize] * x,
                };
            }
            s
        };
        let diff = signed_limbs(sum(a) - sum(c));
        let bit = |e: u16| diff[e as usize / 64] >> (e % 64) & 1 == 1;
        let top = group.last().map_or(0, |&(_, e)| e);
        let mut next = group.iter().peekable();
        for e in 0..=top {
            let mine = next.next_if(|&&(_, d)| d == e);
            match mine {
                Some(&(v, _)) => aux[v as usize] = if bit(e) { S::ONE } else { S::ZERO },
                None if bit(e) => {
                    return Err(SynthesisError::Replay(format!("row {row}: the packed sum is not a sum of its digits")));
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// A field element's integer as four little-endian 64-bit limbs (the low
/// 256 bits).
fn limbs<S: PrimeFieldBits>(x: &S) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (i, b) in x.to_le_bits().iter().by_vals().enumerate().take(256) {
        out[i / 64] |= (b as u64) << (i % 64);
    }
    out
}

/// The integer of `x` modulo `2^256`, reading an `x` at or above `2^capacity` as
/// the negative `x − p`: the operands known so far may fall short of the
/// digits known so far only by what the unknown ones add.
fn signed_limbs<S: PrimeField + PrimeFieldBits>(x: S) -> [u64; 4] {
    let v = limbs(&x);
    let negative = (S::CAPACITY as usize..256).any(|i| v[i / 64] >> (i % 64) & 1 == 1);
    match negative {
        // x − p = −(p − x) = −(−x).
        true => sub_limbs([0; 4], limbs(&-x)),
        false => v,
    }
}

/// `a − b` modulo `2^256`.
fn sub_limbs(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut borrow = false;
    for i in 0..4 {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        out[i] = d;
        borrow = b1 || b2;
    }
    out
}
