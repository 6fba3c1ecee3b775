//! The sizes a circuit asks of its parameters, counted without evaluating a
//! witness or a linear combination, so a mismatched parameter file is caught
//! in well under a second instead of by an assertion inside supraseal.

use bellpepper_core::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;

/// What bellperson's prover will hand supraseal for one circuit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Public inputs, the constant one included.
    pub inputs: usize,
    /// Private (auxiliary) variables.
    pub aux: usize,
    /// Constraints of the circuit, before the prover adds one per input.
    pub constraints: usize,
}

impl Shape {
    /// The shape of `circuit` as bellperson's prover sees it.
    pub fn of<C: bellpepper_core::Circuit<Scalar>>(circuit: C) -> Result<Self, SynthesisError> {
        let mut counter = Counter(Shape {
            inputs: 1,
            aux: 0,
            constraints: 0,
        });
        circuit.synthesize(&mut counter)?;
        Ok(counter.0)
    }

    /// The evaluation domain: constraints plus the prover's one per input,
    /// rounded up to a power of two.
    pub fn domain(&self) -> usize {
        (self.constraints + self.inputs).next_power_of_two()
    }
}

/// Counts allocations and constraints; never calls a value or LC closure.
struct Counter(Shape);

impl ConstraintSystem<Scalar> for Counter {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.0.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.0.inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        self.0.constraints += 1;
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
