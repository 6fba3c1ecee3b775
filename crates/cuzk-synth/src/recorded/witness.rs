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
/// enforces: the number of circuit constraints and a running hash of the
/// (inputs, aux) counts at each `enforce`.
///
/// It catches circuits whose allocations moved between constraints while
/// the totals stayed equal (a gadget reordered, one variable allocated
/// earlier, a branch taken differently). It cannot see the terms or the
/// coefficients of a constraint: those are checked by the evaluation, which
/// finds any row the witness does not satisfy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trace {
    pub(crate) constraints: usize,
    pub(crate) hash: u64,
}

impl Trace {
    /// One constraint enforced when `inputs` inputs and `aux` aux variables exist.
    #[inline]
    pub(crate) fn fold(&mut self, inputs: usize, aux: usize) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let x = aux as u64 ^ (inputs as u64).rotate_left(40);
        self.hash = (self.hash.rotate_left(23) ^ x).wrapping_mul(K);
        self.constraints += 1;
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
}
