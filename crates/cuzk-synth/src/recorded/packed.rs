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
//! The replay does the same with an integer accumulator per row: digit by
//! digit, it adds the operand terms up to the digit's weight, reads the
//! digit off and subtracts it, so a row of ~500 terms costs one pass in
//! all, not one per segment.
//!
//! A row is packed when B is the constant one, C is aux variables with
//! distinct weights `+2^e`, and A's coefficients are integers of either
//! sign whose size is below the capacity. A digit may be an operand too
//! (SHA-256 adds a sum packed in the same row) at a higher weight, so it is
//! known before the replay adds its operand term. Whether the values make
//! the integer reading true is not assumed: every row is evaluated on the
//! finished witness, so digits that do not fit fail the proof.


use ff::{PrimeField, PrimeFieldBits};

use super::matrix::ONE;
use super::powers::Powers;
use super::RecordedShape;
use crate::SynthesisError;

/// One packed row's terms by weight, and how far the planner has solved.
struct PackedRow {
    row: u32,
    /// `(exponent of |coefficient|'s lowest set bit, column, coefficient
    /// index)` of A, inputs included, sorted.
    operands: Vec<(u16, u32, u32)>,
    /// `(exponent, aux variable)` of C, sorted.
    digits: Vec<(u16, u32)>,
    /// Operands before this one are known.
    operand_at: usize,
    /// Digits before this one are known, all solved by this row.
    digit_at: usize,
    /// Its index in the plan's [`PackedReplay`]s, once it solved a digit.
    replay: Option<u32>,
}

/// Which rows are packed, found on first look.
pub(super) struct PackedRows {
    /// Per row: `NOT_LOOKED`, `NOT_PACKED` or an index into `rows`.
    kind: Vec<u32>,
    rows: Vec<PackedRow>,
    /// Per coefficient index: the exponent of its lowest set bit when its
    /// size is below the capacity, else `None`; filled on first need.
    low_bit: Vec<Option<u16>>,
    replays: Vec<PackedReplay>,
}

/// What the replay needs of a packed row that solved digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedReplay {
    row: u32,
    /// `(column, coefficient index, exponent)` of A, by exponent.
    operands: Vec<(u32, u32, u16)>,
}

/// The packed rows' replays and the signed integers of their coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedPlan {
    rows: Vec<PackedReplay>,
    /// Per coefficient index used by an operand: its integer modulo `2^256`
    /// (a negative one as its two's complement); unused ones zero.
    limbs: Vec<[u64; 4]>,
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
        PackedRows { kind: vec![NOT_LOOKED; rows], rows: Vec::new(), low_bit: Vec::new(), replays: Vec::new() }
    }

    /// The digits of row `r` that the known operands now determine (each
    /// `(aux variable, exponent)`, in increasing exponent) and the index of
    /// the row's [`PackedReplay`]; empty when none or when `r` is not
    /// packed. `power` maps a coefficient index to `e` for `2^e` (and
    /// `e + 512` for `−2^e`).
    pub(super) fn advance<S: PrimeField + PrimeFieldBits>(
        &mut self,
        shape: &RecordedShape<S>,
        power: &Powers,
        known: impl Fn(u32) -> Known,
        r: u32,
    ) -> (Vec<(u32, u16)>, u32) {
        if self.kind[r as usize] == NOT_LOOKED {
            self.kind[r as usize] = match self.classify(shape, power, r as usize) {
                Some(row) => {
                    self.rows.push(row);
                    (self.rows.len() - 1) as u32
                }
                None => NOT_PACKED,
            };
        }
        let Some(row) = self.rows.get_mut(self.kind[r as usize] as usize) else { return (Vec::new(), 0) };
        let ni = shape.num_inputs as u32;
        let known_operand = |&(_, col, _): &(u16, u32, u32)| col < ni || known(col - ni) == Known::Yes;
        while row.operands.get(row.operand_at).is_some_and(known_operand) {
            row.operand_at += 1;
        }
        let below = row.operands.get(row.operand_at).map_or(u16::MAX, |&(e, _, _)| e);
        let mut solved = Vec::new();
        while let Some(&(e, v)) = row.digits.get(row.digit_at).filter(|&&(e, _)| e < below) {
            // A digit known otherwise would be missing from the replay's
            // accumulator: the row stops there.
            if known(v) != Known::Boolean {
                break;
            }
            solved.push((v, e));
            row.digit_at += 1;
        }
        if solved.is_empty() {
            return (solved, 0);
        }
        let replays = &mut self.replays;
        let index = *row.replay.get_or_insert_with(|| {
            let operands = row.operands.iter().map(|&(e, col, k)| (col, k, e)).collect();
            replays.push(PackedReplay { row: row.row, operands });
            (replays.len() - 1) as u32
        });
        (solved, index)
    }

    /// The packed rows that solved digits, for the plan.
    pub(super) fn into_plan<S: PrimeField + PrimeFieldBits>(self, shape: &RecordedShape<S>) -> PackedPlan {
        let mut limbs = vec![[0u64; 4]; if self.replays.is_empty() { 0 } else { shape.coeffs.len() }];
        for p in &self.replays {
            for &(_, k, _) in &p.operands {
                limbs[k as usize] = signed_limbs(shape.coeffs[k as usize]);
            }
        }
        PackedPlan { rows: self.replays, limbs }
    }

    fn classify<S: PrimeField + PrimeFieldBits>(
        &mut self,
        shape: &RecordedShape<S>,
        power: &Powers,
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
            let e = power.get(k).filter(|&e| e < 512)?;
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
            operands.push((self.low_bit[k as usize]?, col, k));
        }
        operands.sort_unstable();
        Some(PackedRow { row: r as u32, operands, digits, operand_at: 0, digit_at: 0, replay: None })
    }
}

/// The exponent of the lowest set bit of `|k|`, `k` read as an integer of
/// either sign (a negative one is `p − |k|`: bellperson's `Boolean::Not`
/// adds `−2^e · v`), if `|k|` is below the field's capacity.
fn low_bit<S: PrimeField + PrimeFieldBits>(k: &S) -> Option<u16> {
    // Word-wise searches: a shape's table holds up to millions of
    // coefficients, and a bit-by-bit walk over each made this the planner's
    // largest cost.
    [*k, -*k].iter().find_map(|k| {
        let bits = k.to_le_bits();
        let top = bits.last_one()?;
        (top < S::CAPACITY as usize).then(|| bits.first_one().expect("a set bit exists") as u16)
    })
}

/// Per packed row of a plan, during one replay: the integer (modulo
/// `2^256`) of the operand terms added so far less the digits read so far,
/// and the next operand to add.
pub(super) struct Accumulators(Vec<([u64; 4], usize)>);

impl Accumulators {
    pub(super) fn new(plan: &PackedPlan) -> Self {
        Accumulators(vec![([0; 4], 0); plan.rows.len()])
    }
}

impl<S: PrimeField + PrimeFieldBits> RecordedShape<S> {
    /// Writes the digits `group` (`(aux variable, exponent)`, exponents
    /// increasing) of packed row `packed` of `plan`: for each digit, adds
    /// the operand terms up to its weight to the row's accumulator (all
    /// known by then), reads the digit off and subtracts it; the bits up to
    /// the top digit must then be clear.
    pub(super) fn replay_digits(
        &self,
        plan: &PackedPlan,
        acc: &mut Accumulators,
        packed: u32,
        group: &[(u32, u16)],
        inputs: &[S],
        aux: &mut [S],
    ) -> Result<(), SynthesisError> {
        let p = &plan.rows[packed as usize];
        let (sum, next) = &mut acc.0[packed as usize];
        // Digit by digit: a digit may be an operand of a later sum of the
        // same row, which the planner solved in a later segment that the
        // steps may place right after this one.
        for &(v, e) in group {
            while let Some(&(col, k, _)) = p.operands.get(*next).filter(|&&(_, _, low)| low <= e) {
                *next += 1;
                let x = match (col as usize).checked_sub(self.num_inputs) {
                    None => inputs[col as usize],
                    Some(j) => aux[j],
                };
                if x == S::ZERO {
                    continue;
                }
                let term = match x == S::ONE {
                    true => plan.limbs[k as usize],
                    false => signed_limbs(self.coeffs[k as usize] * x),
                };
                *sum = add_limbs(*sum, term);
            }
            let (word, bit) = (e as usize / 64, 1u64 << (e % 64));
            let set = sum[word] & bit != 0;
            sum[word] &= !bit;
            aux[v as usize] = if set { S::ONE } else { S::ZERO };
        }
        let top = group.last().map_or(0, |&(_, e)| e);
        let low = (0..=top as usize).any(|i| sum[i / 64] >> (i % 64) & 1 == 1);
        if low {
            return Err(SynthesisError::Replay(format!("row {}: the packed sum is not a sum of its digits", p.row)));
        }
        Ok(())
    }
}

/// A field element's integer as four little-endian 64-bit limbs (the low
/// 256 bits).
fn limbs<S: PrimeFieldBits>(x: &S) -> [u64; 4] {
    let mut out = [0u64; 4];
    for i in x.to_le_bits().iter_ones().take_while(|&i| i < 256) {
        out[i / 64] |= 1 << (i % 64);
    }
    out
}

/// The integer of `x` modulo `2^256`, reading an `x` at or above
/// `2^capacity` as the negative `x − p` (a `Boolean::Not` operand's term).
fn signed_limbs<S: PrimeField + PrimeFieldBits>(x: S) -> [u64; 4] {
    let v = limbs(&x);
    let negative = (S::CAPACITY as usize..256).any(|i| v[i / 64] >> (i % 64) & 1 == 1);
    match negative {
        // x − p = −(p − x) = −(−x).
        true => sub_limbs([0; 4], limbs(&-x)),
        false => v,
    }
}

/// `a + b` modulo `2^256`.
fn add_limbs(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut carry = false;
    for i in 0..4 {
        let (d, c1) = a[i].overflowing_add(b[i]);
        let (d, c2) = d.overflowing_add(carry as u64);
        out[i] = d;
        carry = c1 || c2;
    }
    out
}

/// `a − b` modulo `2^256`: `a` plus the two's complement of `b`.
fn sub_limbs(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    add_limbs(add_limbs(a, b.map(|x| !x)), [1, 0, 0, 0])
}
