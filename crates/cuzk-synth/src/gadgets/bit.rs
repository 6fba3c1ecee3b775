use ff::PrimeField;

use crate::{ConstraintSystem, SynthesisError, Variable};

/// A private variable constrained to be 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocatedBit {
    variable: Variable,
    value: Option<bool>,
}

/// The field element of a bit, or `AssignmentMissing` when it is unknown.
pub(crate) fn bit_scalar<S: PrimeField>(value: Option<bool>) -> Result<S, SynthesisError> {
    match value {
        Some(true) => Ok(S::ONE),
        Some(false) => Ok(S::ZERO),
        None => Err(SynthesisError::AssignmentMissing),
    }
}

fn both(a: Option<bool>, b: Option<bool>, f: impl FnOnce(bool, bool) -> bool) -> Option<bool> {
    Some(f(a?, b?))
}

impl AllocatedBit {
    /// The bit's value, when the witness is known.
    pub fn get_value(&self) -> Option<bool> {
        self.value
    }

    /// The variable holding the bit.
    pub fn get_variable(&self) -> Variable {
        self.variable
    }

    /// Allocates `value` and enforces `(1 − x) · x = 0`.
    pub fn alloc<S, CS>(mut cs: CS, value: Option<bool>) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let var = cs.alloc(|| "boolean", || bit_scalar(value))?;
        cs.enforce(|| "boolean constraint", |lc| lc + CS::one() - var, |lc| lc + var, |lc| lc);
        Ok(AllocatedBit { variable: var, value })
    }

    /// Allocates the result of a two-input gate, then lets `constrain`
    /// enforce its one constraint on the new variable.
    fn gate<S, CS>(
        mut cs: CS,
        name: &'static str,
        value: Option<bool>,
        constrain: impl FnOnce(&mut CS, Variable),
    ) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let var = cs.alloc(|| name, || bit_scalar(value))?;
        constrain(&mut cs, var);
        Ok(AllocatedBit { variable: var, value })
    }

    /// `a XOR b`, enforced as `2a · b = a + b − c`.
    pub fn xor<S, CS>(cs: CS, a: &Self, b: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let (a, b) = (*a, *b);
        Self::gate(cs, "xor result", both(a.value, b.value, |x, y| x ^ y), |cs, c| {
            cs.enforce(
                || "xor constraint",
                |lc| lc + a.variable + a.variable,
                |lc| lc + b.variable,
                |lc| lc + a.variable + b.variable - c,
            )
        })
    }

    /// `a AND b`, enforced as `a · b = c`.
    pub fn and<S, CS>(cs: CS, a: &Self, b: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let (a, b) = (*a, *b);
        Self::gate(cs, "and result", both(a.value, b.value, |x, y| x & y), |cs, c| {
            cs.enforce(|| "and constraint", |lc| lc + a.variable, |lc| lc + b.variable, |lc| lc + c)
        })
    }

    /// `a AND NOT b`, enforced as `a · (1 − b) = c`.
    pub fn and_not<S, CS>(cs: CS, a: &Self, b: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let (a, b) = (*a, *b);
        Self::gate(cs, "and not result", both(a.value, b.value, |x, y| x & !y), |cs, c| {
            cs.enforce(
                || "and not constraint",
                |lc| lc + a.variable,
                |lc| lc + CS::one() - b.variable,
                |lc| lc + c,
            )
        })
    }

    /// `NOT a AND NOT b`, enforced as `(1 − a) · (1 − b) = c`.
    pub fn nor<S, CS>(cs: CS, a: &Self, b: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let (a, b) = (*a, *b);
        Self::gate(cs, "nor result", both(a.value, b.value, |x, y| !x & !y), |cs, c| {
            cs.enforce(
                || "nor constraint",
                |lc| lc + CS::one() - a.variable,
                |lc| lc + CS::one() - b.variable,
                |lc| lc + c,
            )
        })
    }

    /// Allocates a bit holding `value` without constraining it: the caller
    /// (`sha256_ch`, `sha256_maj`) writes the one constraint that pins it
    /// down together with its operands.
    pub(crate) fn alloc_unconstrained<S, CS>(
        cs: &mut CS,
        name: &'static str,
        value: Option<bool>,
    ) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let var = cs.alloc(|| name, || bit_scalar(value))?;
        Ok(AllocatedBit { variable: var, value })
    }
}
