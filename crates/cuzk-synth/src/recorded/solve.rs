//! A witness from the recorded rows: which aux variables the rows of a
//! [`RecordedShape`] determine once a few others (the "free" ones: data the
//! circuit allocates from outside, such as Merkle siblings and labels) are
//! given, in what order, and by which rule; then the replay of that plan.
//!
//! Why: a 32 GiB PoRep partition's witness costs ~190 core-seconds in the
//! gadgets (bellperson's SHA-256, neptune's Poseidon), nine tenths of it
//! building linear combinations that recorded synthesis never uses
//! (docs/PERF.md, the 2026-12-02 runs of 9c248fe). The rows already say how each value follows
//! from earlier ones: a bit's XOR is the one unknown of `2a · b = a + b − c`,
//! an S-box power the one unknown of `x · x = x²`, a sum's bits the binary
//! digits of a packed equality. Replaying those rules is a few field
//! operations per constraint, and every row is still checked afterwards, so
//! a plan can make a proof fail but never makes a wrong one.
//!
//! The rules, tried on each row once its other variables are known:
//! - *linear*: one variable is unknown and appears in one of A, B, C only;
//!   it is the quotient of what the row still needs by its coefficient;
//! - *boolean*: `v · (1 − v) = 0` (either factor order) marks `v` boolean,
//!   its value still unknown;
//! - *bits*: every unknown is boolean, all in one matrix, with coefficients
//!   `k · 2^e` for distinct `e` (a packed sum, bellperson's `MultiEq`, a
//!   number's bit decomposition): they are the binary digits of the rest;
//! - *digits*: in a packed row whose operands are not all known yet, the
//!   digits below the lowest unknown operand's weight (the `packed`
//!   module): how a SHA-256 compression's sums are solved.
//!
//! Variables no rule reaches are free, chosen lowest index first (circuits
//! allocate their data before computing with it); one that no row mentions
//! is free too and may be anything (zero).
//!
//! The engine replays circuits that give their free values
//! ([`crate::Circuit::take_block_values`]), block by block (`blocks`).

use ff::{PrimeField, PrimeFieldBits};

use super::packed::{Known, PackedPlan, PackedRows};
use super::powers::Powers;
use super::RecordedShape;

/// How one aux variable gets its value in a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Given from outside, in increasing index order.
    Free,
    /// No row mentions it: any value satisfies the rows.
    Unconstrained,
    /// The one unknown of its row.
    Linear {
        /// The row.
        row: u32,
        /// The matrix that holds the unknown: 0 A, 1 B, 2 C.
        matrix: u8,
    },
    /// A binary digit of a packed sum; the row's digits are consecutive
    /// steps.
    Bit {
        /// The row.
        row: u32,
        /// The matrix that holds the digits: 0 A, 1 B, 2 C.
        matrix: u8,
        /// Its weight, `2^exponent` times the smallest digit's coefficient.
        exponent: u16,
    },
    /// A digit of a packed row (in C, weight `2^exponent`) solved with the
    /// others below the row's lowest unknown operand; a segment's digits
    /// are consecutive steps.
    Digit {
        /// The packed row, as an index into the plan's `packed`.
        packed: u32,
        /// Its weight's exponent.
        exponent: u16,
    },
}

/// What [`RecordedShape::solve_plan`] found, by rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanSummary {
    /// Aux variables given from outside.
    pub free: usize,
    /// Of them, ones a booleanity row declared boolean.
    pub free_booleans: usize,
    /// Aux variables that no row mentions.
    pub unconstrained: usize,
    /// Aux variables solved as the one unknown of a row.
    pub linear: usize,
    /// Aux variables solved as binary digits (of a whole packed sum or of
    /// a packed row's segment).
    pub bits: usize,
    /// Rows that solve something (linear or bits).
    pub solving_rows: usize,
    /// Nonzeros of the solving rows: the replay's work.
    pub solving_nonzeros: usize,
}

/// The order in which a witness can be computed from the rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvePlan {
    /// `(aux index, rule)` in an order where each rule only reads variables
    /// that are free or come earlier.
    pub steps: Vec<(u32, Rule)>,
    /// Counts by rule.
    pub summary: PlanSummary,
    /// The packed rows that solve [`Rule::Digit`]s.
    pub packed: PackedPlan,
}

const UNKNOWN: u8 = 0;
const BOOLEAN: u8 = 1;
const KNOWN: u8 = 2;

/// One unknown of a row: aux index, which matrices hold it, its coefficient
/// index in each.
#[derive(Clone, Copy)]
struct Unknown {
    var: u32,
    mask: u8,
    coeff: [u32; 3],
}

struct Planner<'a, S: PrimeField> {
    shape: &'a RecordedShape<S>,
    state: Vec<u8>,
    row_done: Vec<bool>,
    /// Rows in which each aux variable appears: `rows_of[var_ptr[v]..var_ptr[v + 1]]`.
    var_ptr: Vec<u32>,
    rows_of: Vec<u32>,
    /// Per row, its aux terms whose variable is not known yet, and of them
    /// those not known to be boolean: a row is looked at again only when
    /// one rule could fit it (at most two such terms, or all boolean), so
    /// a packed row of hundreds of bits is not rescanned for each bit.
    unknown_terms: Vec<u32>,
    unsure_terms: Vec<u32>,
    /// Exponent e of each coefficient table entry c with c = 2^e, and of −2^e as e + 512.
    power: Powers,
    packed: PackedRows,
    steps: Vec<(u32, Rule)>,
    summary: PlanSummary,
    work: Vec<u32>,
    scratch: Vec<Unknown>,
}

impl<S: PrimeField + PrimeFieldBits> RecordedShape<S> {
    /// Plans this shape's witness from its rows (see the module doc). Costs
    /// about one pass over the nonzeros plus one per variable made known,
    /// and memory for a transposed index of the nonzeros.
    pub fn solve_plan(&self) -> SolvePlan {
        let mut p = Planner::new(self);
        for r in 0..self.num_constraints() {
            p.work.push(r as u32);
            p.drain();
        }
        // Free variables, lowest first, each followed by what it unlocks.
        for v in 0..self.num_aux {
            if p.state[v] == KNOWN {
                continue;
            }
            let mentioned = p.var_ptr[v] != p.var_ptr[v + 1];
            if !mentioned {
                p.summary.unconstrained += 1;
                p.known(v as u32, Rule::Unconstrained);
                continue;
            }
            p.summary.free += 1;
            if p.state[v] == BOOLEAN {
                p.summary.free_booleans += 1;
            }
            p.known(v as u32, Rule::Free);
            p.drain();
        }
        let packed = p.packed.into_plan(self);
        SolvePlan { steps: p.steps, summary: p.summary, packed }
    }
}

impl<'a, S: PrimeField + PrimeFieldBits> Planner<'a, S> {
    fn new(shape: &'a RecordedShape<S>) -> Self {
        let n = shape.num_aux;
        let ni = shape.num_inputs as u32;
        let mut count = vec![0u32; n + 1];
        for m in &shape.matrices {
            for &c in m.cols() {
                if c >= ni {
                    count[(c - ni) as usize + 1] += 1;
                }
            }
        }
        for v in 0..n {
            count[v + 1] += count[v];
        }
        let var_ptr = count.clone();
        let mut fill = count;
        let mut rows_of = vec![0u32; var_ptr[n] as usize];
        let mut unknown_terms = vec![0u32; shape.num_constraints()];
        for (r, terms) in unknown_terms.iter_mut().enumerate() {
            for m in &shape.matrices {
                for (c, _) in m.row(r) {
                    if c >= ni {
                        let v = (c - ni) as usize;
                        // A row that holds v in two matrices is listed twice:
                        // once per term, as the term counts count.
                        rows_of[fill[v] as usize] = r as u32;
                        fill[v] += 1;
                        *terms += 1;
                    }
                }
            }
        }
        let power = Powers::of(&shape.coeffs);
        Planner {
            shape,
            state: vec![UNKNOWN; n],
            row_done: vec![false; shape.num_constraints()],
            var_ptr,
            rows_of,
            unsure_terms: unknown_terms.clone(),
            unknown_terms,
            power,
            packed: PackedRows::new(shape.num_constraints()),
            // One step per aux variable: grown by doubling, a large shape's
            // steps were copied several times over.
            steps: Vec::with_capacity(n),
            summary: PlanSummary::default(),
            work: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn known(&mut self, v: u32, rule: Rule) {
        let was_boolean = self.state[v as usize] == BOOLEAN;
        self.state[v as usize] = KNOWN;
        for i in self.rows_of_var(v) {
            let r = self.rows_of[i] as usize;
            self.unknown_terms[r] -= 1;
            if !was_boolean {
                self.unsure_terms[r] -= 1;
            }
        }
        self.steps.push((v, rule));
        self.wake(v);
    }

    /// Where the rows of aux variable `v` sit in `rows_of`.
    fn rows_of_var(&self, v: u32) -> std::ops::Range<usize> {
        self.var_ptr[v as usize] as usize..self.var_ptr[v as usize + 1] as usize
    }

    fn wake(&mut self, v: u32) {
        let rows = &self.rows_of[self.rows_of_var(v)];
        self.work.extend(rows.iter().filter(|&&r| !self.row_done[r as usize]));
    }

    fn drain(&mut self) {
        while let Some(r) = self.work.pop() {
            if !self.row_done[r as usize] {
                self.try_row(r);
            }
        }
    }

    /// Applies the first rule that fits row `r`, if any.
    fn try_row(&mut self, r: u32) {
        let state = &self.state;
        let known = |v: u32| match state[v as usize] {
            KNOWN => Known::Yes,
            BOOLEAN => Known::Boolean,
            _ => Known::No,
        };
        let (digits, packed) = self.packed.advance(self.shape, &self.power, known, r);
        if !digits.is_empty() {
            self.summary.solving_rows += 1;
            self.summary.solving_nonzeros += digits.len();
            self.summary.bits += digits.len();
            for (v, exponent) in digits {
                self.known(v, Rule::Digit { packed, exponent });
            }
            return;
        }
        if self.unknown_terms[r as usize] > 2 && self.unsure_terms[r as usize] > 0 {
            return;
        }
        let ni = self.shape.num_inputs as u32;
        let mut unknowns = std::mem::take(&mut self.scratch);
        unknowns.clear();
        for (m, matrix) in self.shape.matrices.iter().enumerate() {
            for (c, k) in matrix.row(r as usize) {
                if c < ni || self.state[(c - ni) as usize] == KNOWN {
                    continue;
                }
                let var = c - ni;
                match unknowns.iter_mut().find(|u| u.var == var) {
                    Some(u) => {
                        u.mask |= 1 << m;
                        u.coeff[m] = k;
                    }
                    None => {
                        let mut coeff = [0; 3];
                        coeff[m] = k;
                        unknowns.push(Unknown { var, mask: 1 << m, coeff });
                    }
                }
            }
        }
        let r_us = r as usize;
        match unknowns.as_slice() {
            [] => self.row_done[r_us] = true,
            [u] if u.mask.count_ones() == 1 => {
                self.row_done[r_us] = true;
                self.solved_by(r_us);
                self.summary.linear += 1;
                let matrix = u.mask.trailing_zeros() as u8;
                self.known(u.var, Rule::Linear { row: r, matrix });
            }
            [u] if u.mask == 0b011 && self.is_booleanity(r_us, u) => {
                self.row_done[r_us] = true;
                if self.state[u.var as usize] == UNKNOWN {
                    self.state[u.var as usize] = BOOLEAN;
                    for i in self.rows_of_var(u.var) {
                        self.unsure_terms[self.rows_of[i] as usize] -= 1;
                    }
                    self.wake(u.var);
                }
            }
            us if us.len() > 1 => {
                if let Some(exponents) = self.packed_bits(us) {
                    self.row_done[r_us] = true;
                    self.solved_by(r_us);
                    self.summary.bits += us.len();
                    let matrix = us[0].mask.trailing_zeros() as u8;
                    for (u, exponent) in us.iter().zip(exponents) {
                        self.known(u.var, Rule::Bit { row: r, matrix, exponent });
                    }
                }
            }
            _ => {}
        }
        self.scratch = unknowns;
    }

    fn solved_by(&mut self, r: usize) {
        self.summary.solving_rows += 1;
        self.summary.solving_nonzeros += self.shape.matrices.iter().map(|m| m.row(r).count()).sum::<usize>();
    }

    /// `v · (1 − v) = 0` up to scaling of either factor: one factor is `α·v`,
    /// the other `β·1 − β·v`, and C is empty.
    fn is_booleanity(&self, r: usize, u: &Unknown) -> bool {
        let [a, b, c] = &self.shape.matrices;
        if c.row(r).next().is_some() {
            return false;
        }
        let ni = self.shape.num_inputs as u32;
        let var_col = u.var + ni;
        let single = |m: &super::Csr| {
            let mut it = m.row(r);
            matches!((it.next(), it.next()), (Some((col, _)), None) if col == var_col)
        };
        let one_minus = |m: &super::Csr| {
            let mut it = m.row(r);
            match (it.next(), it.next(), it.next()) {
                (Some((0, k1)), Some((col, k2)), None) if col == var_col => {
                    self.shape.coeffs[k1 as usize] == -self.shape.coeffs[k2 as usize]
                }
                _ => false,
            }
        };
        (single(a) && one_minus(b)) || (single(b) && one_minus(a))
    }

    /// The exponents of the unknowns if they are all boolean, all in the
    /// same single matrix, with coefficients `±2^e` of one sign and
    /// distinct `e` (relative to the smallest).
    fn packed_bits(&self, us: &[Unknown]) -> Option<Vec<u16>> {
        let mask = us[0].mask;
        if mask.count_ones() != 1 || us.iter().any(|u| u.mask != mask || self.state[u.var as usize] != BOOLEAN) {
            return None;
        }
        let m = mask.trailing_zeros() as usize;
        let mut exps = Vec::with_capacity(us.len());
        for u in us {
            exps.push(self.power.get(u.coeff[m])?);
        }
        let sign = exps[0] & 512;
        if exps.iter().any(|e| e & 512 != sign) {
            return None;
        }
        let low = exps.iter().map(|e| e & 511).min()?;
        let rel: Vec<u16> = exps.iter().map(|e| (e & 511) - low).collect();
        let mut sorted = rel.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        Some(rel)
    }
}

#[cfg(test)]
mod tests {
    use blstrs::Scalar;
    use ff::Field;

    use super::Rule;
    use crate::gadgets::{AllocatedBit, Boolean};
    use crate::workloads::sha256_chain::Sha256Chain;
    use crate::workloads::MulChain;
    use crate::{Circuit, ConstraintSystem, RecordedShape, SynthesisError, Witness};

    /// The free values a plan takes, read from a witness.
    fn free_values(steps: &[(u32, Rule)], w: &Witness<Scalar>) -> Vec<Scalar> {
        steps.iter().filter(|(_, r)| *r == Rule::Free).map(|&(v, _)| w.aux[v as usize]).collect()
    }

    /// Plans `circuit`'s shape, replays it from the witness's free values,
    /// and checks every aux value against the witness the circuit computes.
    fn replays<C: Circuit<Scalar> + Send + Clone>(circuit: C) -> super::PlanSummary {
        let shape = RecordedShape::<Scalar>::record_shape(circuit.clone()).unwrap();
        let plan = shape.solve_plan();
        assert_eq!(plan.steps.len(), shape.num_aux(), "every aux variable once");
        let w = shape.witness(circuit).unwrap();
        let replayed = shape.replay(&plan, w.inputs.clone(), &free_values(&plan.steps, &w)).unwrap();
        let mismatch = (0..w.aux.len()).find(|&i| {
            let unconstrained = plan.steps.iter().any(|&(v, r)| v as usize == i && r == Rule::Unconstrained);
            !unconstrained && replayed.aux[i] != w.aux[i]
        });
        assert_eq!(mismatch, None, "first aux value the replay got wrong");
        shape.evaluate(replayed).unwrap();
        plan.summary
    }

    #[test]
    fn a_sha256_chain_replays_from_its_free_bits() {
        for n in [1, 3] {
            let s = replays(Sha256Chain::new(n, 7 + n as u64));
            // Only the first block's 512 bits and each sibling's 256: every
            // sum's digits follow from the rows, the packed rows' a segment
            // at a time.
            assert_eq!(s.free, 512 + 256 * (n - 1), "{s:?}");
            assert_eq!(s.free_booleans, s.free, "only bits are free: {s:?}");
            assert!(s.bits > 0 && s.linear > 0, "{s:?}");
        }
    }

    #[test]
    fn a_mul_chain_needs_only_its_start() {
        let s = replays(MulChain::new(64, 3));
        assert!(s.free <= 2, "{s:?}");
    }

    /// x free, its inverse (x · inv = 1: the unknown in B), x's low byte as
    /// eight bits packed into a public input, one unused variable.
    #[derive(Clone)]
    struct Inverse(u64);

    impl Circuit<Scalar> for Inverse {
        fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            let x = Scalar::from(self.0);
            let xv = cs.alloc(|| "x", || Ok(x))?;
            let inv = cs.alloc(|| "inv", || Option::from(x.invert()).ok_or(SynthesisError::DivisionByZero))?;
            cs.enforce(|| "x inv", |lc| lc + xv, |lc| lc + inv, |lc| lc + CS::one());
            let bits: Vec<Boolean> = (0..8)
                .map(|i| AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(self.0 >> i & 1 == 1)).map(Boolean::from))
                .collect::<Result<_, _>>()?;
            let byte = cs.alloc_input(|| "byte", || Ok(Scalar::from(self.0 & 0xff)))?;
            cs.enforce(
                || "pack",
                |mut lc| {
                    let mut coeff = Scalar::ONE;
                    for b in &bits {
                        lc = lc + &b.lc(CS::one(), coeff);
                        coeff = coeff.double();
                    }
                    lc
                },
                |lc| lc + CS::one(),
                |lc| lc + byte,
            );
            cs.alloc(|| "unused", || Ok(Scalar::from(5u64)))?;
            Ok(())
        }
    }

    #[test]
    fn rules_for_an_inverse_a_bit_decomposition_and_an_unused_variable() {
        let s = replays(Inverse(0x1234_5677));
        assert_eq!((s.free, s.linear, s.bits, s.unconstrained), (1, 1, 8, 1), "{s:?}");
    }

    #[test]
    fn a_zero_divisor_and_a_wrong_packed_sum_are_errors_naming_the_row() {
        let shape = RecordedShape::<Scalar>::record_shape(Inverse(9)).unwrap();
        let plan = shape.solve_plan();
        let inputs = vec![Scalar::ONE, Scalar::from(9u64)];
        let err = shape.replay(&plan, inputs.clone(), &[Scalar::ZERO]).unwrap_err();
        assert!(err.to_string().contains("row 0: a zero divisor"), "{err}");
        // A byte input of 256 has no 8-bit decomposition.
        let err = shape.replay(&plan, vec![Scalar::ONE, Scalar::from(256u64)], &[Scalar::from(9u64)]).unwrap_err();
        assert!(err.to_string().contains("not a sum of its digits"), "{err}");
        let err = shape.replay(&plan, inputs, &[]).unwrap_err();
        assert!(err.to_string().contains("0 free values given, the plan has 1"), "{err}");
    }

    #[test]
    fn a_wrong_free_value_is_caught_by_the_rows() {
        let chain = Sha256Chain::new(2, 11);
        let shape = RecordedShape::<Scalar>::record_shape(chain.clone()).unwrap();
        let plan = shape.solve_plan();
        let w = shape.witness(chain).unwrap();
        let mut free = free_values(&plan.steps, &w);
        free[100] = Scalar::ONE - free[100];
        // Caught by the replay (a packed sum the digits cannot spell) or by
        // the rows the plan did not solve by.
        match shape.replay(&plan, w.inputs.clone(), &free) {
            Err(e) => assert!(matches!(e, SynthesisError::Replay(_)), "{e}"),
            Ok(replayed) => {
                assert!(matches!(shape.evaluate(replayed), Err(SynthesisError::UnsatisfiedConstraint(_))))
            }
        }
    }
}
