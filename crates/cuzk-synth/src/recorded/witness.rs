//! Witness-only synthesis: the circuit allocates and computes its values as
//! usual, but `enforce` never calls its closures, so no linear combination
//! is built or evaluated. Per constraint it only folds the allocation
//! counts into a [`Trace`], which the recording also holds.

use ff::PrimeField;

use crate::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};

/// A witness without its constraint evaluations: what the matrices multiply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Witness<S: PrimeField> {
    /// Public inputs; entry 0 is the constant one.
    pub inputs: Vec<S>,
    /// Private variables.
    pub aux: Vec<S>,
}

/// A cheap fingerprint of the order in which a circuit allocates and
/// enforces: the number of circuit constraints and a polynomial hash of the
/// (inputs, aux) counts at each `enforce`.
///
/// It catches circuits whose allocations moved between constraints while
/// the totals stayed equal (a gadget reordered, one variable allocated
/// earlier, a branch taken differently). It cannot see the terms or the
/// coefficients of a constraint: those are checked by the evaluation, which
/// finds any row the witness does not satisfy.
///
/// The hash is Horner's rule over points linear in the counts, so the trace
/// of a circuit synthesized in parts can be put together from the parts'
/// traces ([`Trace::after`], [`Trace::then`]) and equals the trace of the
/// same circuit synthesized in one piece.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trace {
    pub(crate) constraints: usize,
    pub(crate) hash: u64,
}

/// The hash's radix: odd, so that multiplying by its powers loses nothing mod 2^64.
const RADIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// A constraint's point: the counts when it was enforced, packed linearly
/// (wrapping), so that shifting the counts shifts the point by a constant.
#[inline]
fn point(inputs: usize, aux: usize) -> u64 {
    (aux as u64).wrapping_add((inputs as u64).wrapping_shl(40))
}

/// RADIX^m and 1 + RADIX + … + RADIX^(m-1), mod 2^64, in O(log m).
fn powers(m: usize) -> (u64, u64) {
    match m {
        0 => (1, 0),
        m if m % 2 == 1 => {
            let (p, g) = powers(m - 1);
            (p.wrapping_mul(RADIX), g.wrapping_mul(RADIX).wrapping_add(1))
        }
        m => {
            let (p, g) = powers(m / 2);
            (p.wrapping_mul(p), g.wrapping_mul(p.wrapping_add(1)))
        }
    }
}

impl Trace {
    /// One constraint enforced when `inputs` inputs and `aux` aux variables exist.
    #[inline]
    pub(crate) fn fold(&mut self, inputs: usize, aux: usize) {
        self.hash = self.hash.wrapping_mul(RADIX).wrapping_add(point(inputs, aux));
        self.constraints += 1;
    }

    /// The trace of what `self` enforced after `prefix`, which it began
    /// with; `None` when it has fewer constraints than the prefix.
    pub(crate) fn after(self, prefix: Trace) -> Option<Trace> {
        let m = self.constraints.checked_sub(prefix.constraints)?;
        let hash = self.hash.wrapping_sub(prefix.hash.wrapping_mul(powers(m).0));
        Some(Trace { constraints: m, hash })
    }

    /// `self` followed by `next`, whose constraints were enforced with
    /// `inputs` fewer inputs and `aux` fewer aux variables than they have here.
    pub(crate) fn then(self, next: Trace, inputs: usize, aux: usize) -> Trace {
        let (p, g) = powers(next.constraints);
        let shift = point(inputs, aux).wrapping_mul(g);
        Trace {
            constraints: self.constraints + next.constraints,
            hash: self.hash.wrapping_mul(p).wrapping_add(next.hash).wrapping_add(shift),
        }
    }
}

/// The constraint system of the witness-only pass.
pub(crate) struct WitnessCs<S: PrimeField> {
    pub(crate) witness: Witness<S>,
    pub(crate) trace: Trace,
}

impl<S: PrimeField> WitnessCs<S> {
    /// Sized for the recorded counts, so a matching circuit never reallocates.
    pub(crate) fn with_capacity(inputs: usize, aux: usize) -> Self {
        WitnessCs {
            witness: Witness { inputs: Vec::with_capacity(inputs), aux: Vec::with_capacity(aux) },
            trace: Trace::default(),
        }
    }
}

impl<S: PrimeField> ConstraintSystem<S> for WitnessCs<S> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.witness.aux.push(f()?);
        Ok(Variable(Index::Aux(self.witness.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.witness.inputs.push(f()?);
        Ok(Variable(Index::Input(self.witness.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        self.trace.fold(self.witness.inputs.len(), self.witness.aux.len());
    }


    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn needs_constraints(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_tells_apart_moved_allocations_with_equal_totals() {
        let trace = |at: &[(usize, usize)]| {
            let mut t = Trace::default();
            for &(i, a) in at {
                t.fold(i, a);
            }
            t
        };
        let base = trace(&[(1, 1), (1, 2), (2, 2)]);
        assert_eq!(base, trace(&[(1, 1), (1, 2), (2, 2)]));
        assert_ne!(base, trace(&[(1, 2), (1, 2), (2, 2)]));
        assert_ne!(base, trace(&[(1, 1), (2, 1), (2, 2)]));
        assert_ne!(base.hash, trace(&[(1, 1), (1, 2), (2, 2), (2, 2)]).hash);
        assert_eq!(base.constraints, 3);
    }

    proptest::proptest! {
        /// A trace cut anywhere and put together again, its second half
        /// counted from any shift, equals the trace taken in one piece.
        #[test]
        fn traces_compose(
            steps in proptest::collection::vec((0usize..3, 0usize..50), 0..60),
            cut in 0usize..60,
            shift in (0usize..1000, 0usize..100_000),
        ) {
            let cut = cut.min(steps.len());
            let mut counts = Vec::new();
            let (mut i, mut a) = (1, 0);
            for &(di, da) in &steps {
                i += di;
                a += da;
                counts.push((i, a));
            }
            let fold = |points: &[(usize, usize)], (si, sa): (usize, usize)| {
                let mut t = Trace::default();
                for &(i, a) in points {
                    t.fold(i + si, a + sa);
                }
                t
            };
            let prefix = fold(&counts[..cut], (0, 0));
            let part = fold(&counts, (0, 0));
            let block = part.after(prefix).unwrap();
            proptest::prop_assert_eq!(block.constraints, counts.len() - cut);
            // The whole circuit: the prefix, something else, then the block shifted.
            let middle = fold(&counts[..cut], (0, 7));
            let mut whole_points: Vec<(usize, usize)> = counts[..cut].to_vec();
            whole_points.extend(counts[..cut].iter().map(|&(i, a)| (i, a + 7)));
            whole_points.extend(counts[cut..].iter().map(|&(i, a)| (i + shift.0, a + shift.1)));
            let joined = prefix.then(middle, 0, 0).then(block, shift.0, shift.1);
            proptest::prop_assert_eq!(joined, fold(&whole_points, (0, 0)));
            proptest::prop_assert_eq!(prefix.after(part).is_none(), cut < counts.len());
        }
    }

    #[test]
    fn powers_match_repeated_multiplication() {
        let (mut p, mut g) = (1u64, 0u64);
        for m in 0..200 {
            assert_eq!(powers(m), (p, g), "m = {m}");
            g = g.wrapping_add(p);
            p = p.wrapping_mul(RADIX);
        }
    }
}
