//! The replay of a [`SolvePlan`]: a witness from the public inputs and the
//! plan's free values, each other value computed from its row as the plan
//! says (see the `solve` module).

use ff::{BatchInvert, PrimeField, PrimeFieldBits};

use super::packed::Accumulators;
use super::solve::{Rule, SolvePlan};
use super::{RecordedShape, Witness, MINUS_ONE, ONE};
use crate::SynthesisError;

impl<S: PrimeField + PrimeFieldBits> RecordedShape<S> {
    /// Computes the aux values by `plan` (from [`RecordedShape::solve_plan`]
    /// on this shape) from the public inputs (entry 0 the one) and the free
    /// values in increasing index order. The rows the plan solves by hold
    /// by construction; the others are checked where the witness is
    /// evaluated ([`RecordedShape::evaluate`] finds any row it violates).
    /// Errors name the row: a zero divisor, a packed sum that is not a sum
    /// of its digits; or the count of free values.
    pub fn replay(&self, plan: &SolvePlan, inputs: Vec<S>, free: &[S]) -> Result<Witness<S>, SynthesisError> {
        let inverses = self.inverses();
        let mut aux = vec![S::ZERO; self.num_aux];
        self.replay_into(plan, &inverses, &inputs, free, &mut aux)?;
        Ok(Witness { inputs, aux })
    }

    /// The inverse of every coefficient (zero for zero), by batch inversion:
    /// a 32 GiB PoRep shape has ~10^5 coefficients, an inversion each took
    /// longer than a challenge's replay.
    pub(crate) fn inverses(&self) -> Vec<S> {
        let mut inverses = self.coeffs.clone();
        inverses.iter_mut().batch_invert();
        inverses
    }

    /// [`RecordedShape::replay`] into `aux` (this shape's aux variables),
    /// with the inverse of every coefficient (zero for zero) computed once
    /// for many replays: a block's replay writes straight into its slice of
    /// the whole witness.
    pub(crate) fn replay_into(
        &self,
        plan: &SolvePlan,
        inverses: &[S],
        inputs: &[S],
        free: &[S],
        aux: &mut [S],
    ) -> Result<(), SynthesisError> {
        if inputs.len() != self.num_inputs {
            return Err(replay_error(format!("{} inputs given, the shape has {}", inputs.len(), self.num_inputs)));
        }
        if free.len() != plan.summary.free {
            return Err(replay_error(format!("{} free values given, the plan has {}", free.len(), plan.summary.free)));
        }
        if aux.len() != self.num_aux {
            return Err(replay_error(format!("room for {} aux values, the shape has {}", aux.len(), self.num_aux)));
        }
        let mut free = free.iter();
        let mut acc = Accumulators::new(&plan.packed);
        let mut group = Vec::new();
        let steps = &plan.steps;
        let mut i = 0;
        while i < steps.len() {
            let (v, rule) = steps[i];
            match rule {
                Rule::Unconstrained => aux[v as usize] = S::ZERO,
                Rule::Free => aux[v as usize] = *free.next().expect("free values counted above"),
                Rule::Linear { row, matrix } => {
                    let (rest, coeff) = self.needed(row, matrix, &[(v, 0)], inputs, aux)?;
                    aux[v as usize] = match coeff {
                        ONE => rest,
                        MINUS_ONE => -rest,
                        k => rest * inverses[k as usize],
                    };
                }
                Rule::Bit { row, matrix, .. } => {
                    let len = steps[i..].iter().take_while(|(_, r)| matches!(r, Rule::Bit { row: x, .. } if *x == row)).count();
                    let mut digits: Vec<(u32, u16)> = steps[i..i + len]
                        .iter()
                        .map(|&(v, r)| match r {
                            Rule::Bit { exponent, .. } => (v, exponent),
                            _ => unreachable!("taken while the rule is Bit"),
                        })
                        .collect();
                    digits.sort_unstable();
                    let (rest, unit) = self.needed(row, matrix, &digits, inputs, aux)?;
                    let bits = (rest * inverses[unit as usize]).to_le_bits();
                    let mut allowed = vec![false; bits.len()];
                    for &(v, e) in &digits {
                        allowed[e as usize] = true;
                        aux[v as usize] = if bits[e as usize] { S::ONE } else { S::ZERO };
                    }
                    if bits.iter().by_vals().zip(&allowed).any(|(bit, ok)| bit && !ok) {
                        return Err(replay_error(format!("row {row}: the packed sum is not a sum of its digits")));
                    }
                    i += len;
                    continue;
                }
                Rule::Digit { packed, .. } => {
                    group.clear();
                    group.extend(steps[i..].iter().map_while(|&(v, r)| match r {
                        Rule::Digit { packed: x, exponent } if x == packed => Some((v, exponent)),
                        _ => None,
                    }));
                    self.replay_digits(&plan.packed, &mut acc, packed, &group, inputs, aux)?;
                    i += group.len();
                    continue;
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// For row `row`, whose unknowns `digits` (sorted `(aux, exponent)`) all
    /// sit in `matrix`: what the unknowns' terms must sum to (what the row
    /// needs less its known terms), and the coefficient index of the
    /// unknown of exponent 0, by which the sum divides.
    fn needed(&self, row: u32, matrix: u8, digits: &[(u32, u16)], inputs: &[S], aux: &[S]) -> Result<(S, u32), SynthesisError> {
        let mut sums = [S::ZERO; 3];
        let mut unit = None;
        for (m, csr) in self.matrices.iter().enumerate() {
            for (c, k) in csr.row(row as usize) {
                let x = match (c as usize).checked_sub(self.num_inputs) {
                    None => inputs[c as usize],
                    Some(j) => {
                        if m == matrix as usize {
                            if let Ok(d) = digits.binary_search_by_key(&(j as u32), |&(v, _)| v) {
                                if digits[d].1 == 0 {
                                    unit = Some(k);
                                }
                                continue;
                            }
                        }
                        aux[j]
                    }
                };
                // Most values are bits: a zero adds nothing and a one its
                // coefficient, without a product.
                if x == S::ZERO {
                    continue;
                }
                sums[m] += match k {
                    ONE => x,
                    MINUS_ONE => -x,
                    k if x == S::ONE => self.coeffs[k as usize],
                    k => self.coeffs[k as usize] * x,
                };
            }
        }
        let unit = unit.ok_or_else(|| replay_error(format!("row {row} does not hold its planned unknown")))?;
        let [a, b, c] = sums;
        // A factor of one (a linear row, `lc · 1 = lc'`) needs no inversion.
        let divide = |x: S| match x == S::ONE {
            true => Ok(S::ONE),
            false => Option::<S>::from(x.invert()).ok_or_else(|| replay_error(format!("row {row}: a zero divisor"))),
        };
        let total = match matrix {
            0 => c * divide(b)?,
            1 => c * divide(a)?,
            // An XOR's or AND's product of bits, mostly: no product for a 0 or 1.
            _ if a == S::ZERO || b == S::ZERO => S::ZERO,
            _ if a == S::ONE => b,
            _ if b == S::ONE => a,
            _ => a * b,
        };
        Ok((total - sums[matrix as usize], unit))
    }
}

fn replay_error(message: String) -> SynthesisError {
    SynthesisError::Replay(message)
}
