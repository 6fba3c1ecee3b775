use ff::PrimeField;

use crate::{ConstraintSystem, SynthesisError, Variable};

/// A private variable holding an arbitrary field element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocatedNum<S: PrimeField> {
    value: Option<S>,
    variable: Variable,
}

impl<S: PrimeField> AllocatedNum<S> {
    /// Allocates a private number computed by `value` (no constraint).
    pub fn alloc<CS, F>(mut cs: CS, value: F) -> Result<Self, SynthesisError>
    where
        CS: ConstraintSystem<S>,
        F: FnOnce() -> Result<S, SynthesisError>,
    {
        let mut known = None;
        let variable = cs.alloc(
            || "num",
            || {
                let v = value()?;
                known = Some(v);
                Ok(v)
            },
        )?;
        Ok(AllocatedNum { value: known, variable })
    }

    /// Allocates a public input computed by `value` (no constraint).
    pub fn alloc_input<CS, F>(mut cs: CS, value: F) -> Result<Self, SynthesisError>
    where
        CS: ConstraintSystem<S>,
        F: FnOnce() -> Result<S, SynthesisError>,
    {
        let mut known = None;
        let variable = cs.alloc_input(
            || "input num",
            || {
                let v = value()?;
                known = Some(v);
                Ok(v)
            },
        )?;
        Ok(AllocatedNum { value: known, variable })
    }

    /// The value, when known.
    pub fn get_value(&self) -> Option<S> {
        self.value
    }

    /// The variable holding the number.
    pub fn get_variable(&self) -> Variable {
        self.variable
    }

    /// Copies the number into a new public input: `input · 1 = self`.
    pub fn inputize<CS: ConstraintSystem<S>>(&self, mut cs: CS) -> Result<(), SynthesisError> {
        let input = cs.alloc_input(
            || "input variable",
            || self.value.ok_or(SynthesisError::AssignmentMissing),
        )?;
        cs.enforce(
            || "enforce input is correct",
            |lc| lc + input,
            |lc| lc + CS::one(),
            |lc| lc + self.variable,
        );
        Ok(())
    }

    /// `self · other`, one constraint.
    pub fn mul<CS: ConstraintSystem<S>>(
        &self,
        mut cs: CS,
        other: &Self,
    ) -> Result<Self, SynthesisError> {
        let value = self.value.zip(other.value).map(|(a, b)| a * b);
        let variable =
            cs.alloc(|| "product num", || value.ok_or(SynthesisError::AssignmentMissing))?;
        cs.enforce(
            || "multiplication constraint",
            |lc| lc + self.variable,
            |lc| lc + other.variable,
            |lc| lc + variable,
        );
        Ok(AllocatedNum { value, variable })
    }

    /// `self²`, one constraint.
    pub fn square<CS: ConstraintSystem<S>>(&self, mut cs: CS) -> Result<Self, SynthesisError> {
        let value = self.value.map(|a| a.square());
        let variable =
            cs.alloc(|| "squared num", || value.ok_or(SynthesisError::AssignmentMissing))?;
        cs.enforce(
            || "squaring constraint",
            |lc| lc + self.variable,
            |lc| lc + self.variable,
            |lc| lc + variable,
        );
        Ok(AllocatedNum { value, variable })
    }
}
