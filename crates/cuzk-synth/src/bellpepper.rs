use std::marker::PhantomData;

use bellpepper_core as bp;
use ff::PrimeField;

use crate::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};

/// A circuit written against bellpepper-core 0.2 (bellperson 0.27's circuit
/// API), run unchanged as one of ours. Each allocation and constraint is
/// translated as it happens, so nothing is buffered and the result is exactly
/// what a native port of the circuit would produce.
#[derive(Clone, Debug)]
pub struct Bellpepper<C>(pub C);

impl<S: PrimeField, C: bp::Circuit<S>> Circuit<S> for Bellpepper<C> {
    fn synthesize<CS: ConstraintSystem<S>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.0.synthesize(&mut Adapter { cs, field: PhantomData }).map_err(|e| from_bp(&e))
    }
}

/// Our constraint system seen as a bellpepper-core one.
///
/// bellpepper's `is_witness_generator` means "keeps no constraints" (and
/// invites bulk witness calls such as `extend_aux`); ours never qualifies, so
/// the adapter keeps bellpepper's default `false`.
struct Adapter<'a, S: PrimeField, CS: ConstraintSystem<S>> {
    cs: &'a mut CS,
    field: PhantomData<S>,
}

fn to_bp_var(v: Variable) -> bp::Variable {
    bp::Variable::new_unchecked(match v.0 {
        Index::Input(i) => bp::Index::Input(i),
        Index::Aux(i) => bp::Index::Aux(i),
    })
}

fn from_bp_var(v: bp::Variable) -> Variable {
    Variable(match v.get_unchecked() {
        bp::Index::Input(i) => Index::Input(i),
        bp::Index::Aux(i) => Index::Aux(i),
    })
}

/// Our error for a bellpepper one; variants we lack keep their message.
fn from_bp(e: &bp::SynthesisError) -> SynthesisError {
    match e {
        bp::SynthesisError::AssignmentMissing => SynthesisError::AssignmentMissing,
        bp::SynthesisError::DivisionByZero => SynthesisError::DivisionByZero,
        bp::SynthesisError::Unsatisfiable => SynthesisError::Unsatisfiable,
        bp::SynthesisError::PolynomialDegreeTooLarge => SynthesisError::PolynomialDegreeTooLarge,
        bp::SynthesisError::UnexpectedIdentity => SynthesisError::UnexpectedIdentity,
        bp::SynthesisError::UnconstrainedVariable => SynthesisError::UnconstrainedVariable,
        other => SynthesisError::Circuit(other.to_string()),
    }
}

/// The bellpepper error for one of ours; variants it lacks keep their message.
fn to_bp(e: SynthesisError) -> bp::SynthesisError {
    match e {
        SynthesisError::AssignmentMissing => bp::SynthesisError::AssignmentMissing,
        SynthesisError::DivisionByZero => bp::SynthesisError::DivisionByZero,
        SynthesisError::Unsatisfiable => bp::SynthesisError::Unsatisfiable,
        SynthesisError::PolynomialDegreeTooLarge => bp::SynthesisError::PolynomialDegreeTooLarge,
        SynthesisError::UnexpectedIdentity => bp::SynthesisError::UnexpectedIdentity,
        SynthesisError::UnconstrainedVariable => bp::SynthesisError::UnconstrainedVariable,
        other => bp::SynthesisError::IoError(std::io::Error::other(other.to_string())),
    }
}

/// Appends the terms of a bellpepper combination to `lc`.
fn translate<S: PrimeField>(
    from: &bp::LinearCombination<S>,
    mut lc: LinearCombination<S>,
) -> LinearCombination<S> {
    for (var, coeff) in from.iter() {
        lc.push(from_bp_var(var), *coeff);
    }
    lc
}

impl<S: PrimeField, CS: ConstraintSystem<S>> bp::ConstraintSystem<S> for Adapter<'_, S, CS> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<bp::Variable, bp::SynthesisError>
    where
        F: FnOnce() -> Result<S, bp::SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        // The circuit gets its own error back unchanged when `f` fails.
        let mut failure = None;
        let result = self.cs.alloc(annotation, || {
            f().map_err(|e| {
                let ours = from_bp(&e);
                failure = Some(e);
                ours
            })
        });
        result.map(to_bp_var).map_err(|e| failure.unwrap_or_else(|| to_bp(e)))
    }

    fn alloc_input<F, A, AR>(
        &mut self,
        annotation: A,
        f: F,
    ) -> Result<bp::Variable, bp::SynthesisError>
    where
        F: FnOnce() -> Result<S, bp::SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        // The circuit gets its own error back unchanged when `f` fails.
        let mut failure = None;
        let result = self.cs.alloc_input(annotation, || {
            f().map_err(|e| {
                let ours = from_bp(&e);
                failure = Some(e);
                ours
            })
        });
        result.map(to_bp_var).map_err(|e| failure.unwrap_or_else(|| to_bp(e)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(bp::LinearCombination<S>) -> bp::LinearCombination<S>,
        LB: FnOnce(bp::LinearCombination<S>) -> bp::LinearCombination<S>,
        LC: FnOnce(bp::LinearCombination<S>) -> bp::LinearCombination<S>,
    {
        self.cs.enforce(
            annotation,
            |lc| translate(&a(bp::LinearCombination::zero()), lc),
            |lc| translate(&b(bp::LinearCombination::zero()), lc),
            |lc| translate(&c(bp::LinearCombination::zero()), lc),
        );
    }

    fn push_namespace<NR, N>(&mut self, name_fn: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        self.cs.get_root().push_namespace(name_fn);
    }

    fn pop_namespace(&mut self) {
        self.cs.get_root().pop_namespace();
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
