use ff::PrimeField;

use super::bit::AllocatedBit;
use crate::{ConstraintSystem, LinearCombination, SynthesisError, Variable};

/// A bit that is a constant, an allocated bit, or the negation of one.
///
/// Constants and negations cost no constraints: they fold into the linear
/// combinations of whatever consumes them, which is why SHA-256's rotations
/// and its constant initial state are free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boolean {
    /// The allocated bit itself.
    Is(AllocatedBit),
    /// One minus the allocated bit.
    Not(AllocatedBit),
    /// A constant.
    Constant(bool),
}

impl From<AllocatedBit> for Boolean {
    fn from(b: AllocatedBit) -> Self {
        Boolean::Is(b)
    }
}

impl Boolean {
    /// A constant bit.
    pub fn constant(b: bool) -> Self {
        Boolean::Constant(b)
    }

    /// True for `Constant`.
    pub fn is_constant(&self) -> bool {
        matches!(self, Boolean::Constant(_))
    }

    /// The negation; never costs a constraint.
    pub fn not(&self) -> Self {
        match *self {
            Boolean::Constant(c) => Boolean::Constant(!c),
            Boolean::Is(v) => Boolean::Not(v),
            Boolean::Not(v) => Boolean::Is(v),
        }
    }

    /// The value, when known.
    pub fn get_value(&self) -> Option<bool> {
        match self {
            Boolean::Constant(c) => Some(*c),
            Boolean::Is(v) => v.get_value(),
            Boolean::Not(v) => v.get_value().map(|b| !b),
        }
    }

    /// Appends `coeff · self` to `lc` (`one` stands for the constant one).
    pub fn add_to_lc<S: PrimeField>(
        &self,
        one: Variable,
        coeff: S,
        mut lc: LinearCombination<S>,
    ) -> LinearCombination<S> {
        match self {
            Boolean::Constant(false) => {}
            Boolean::Constant(true) => lc.push(one, coeff),
            Boolean::Is(v) => lc.push(v.get_variable(), coeff),
            Boolean::Not(v) => {
                lc.push(one, coeff);
                lc.push(v.get_variable(), -coeff);
            }
        }
        lc
    }

    /// Appends `−coeff · self` to `lc`.
    pub fn sub_from_lc<S: PrimeField>(
        &self,
        one: Variable,
        coeff: S,
        lc: LinearCombination<S>,
    ) -> LinearCombination<S> {
        self.add_to_lc(one, -coeff, lc)
    }

    /// `coeff · self` as a new combination; prefer [`add_to_lc`](Self::add_to_lc).
    pub fn lc<S: PrimeField>(&self, one: Variable, coeff: S) -> LinearCombination<S> {
        self.add_to_lc(one, coeff, LinearCombination::zero())
    }

    /// Enforces `a = b` with one constraint (none if both are constants;
    /// `Unsatisfiable` if they are different constants).
    pub fn enforce_equal<S, CS>(mut cs: CS, a: &Self, b: &Self) -> Result<(), SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let one = CS::one();
        match (*a, *b) {
            (Boolean::Constant(x), Boolean::Constant(y)) => {
                if x == y {
                    Ok(())
                } else {
                    Err(SynthesisError::Unsatisfiable)
                }
            }
            (Boolean::Constant(true), x) | (x, Boolean::Constant(true)) => {
                cs.enforce(
                    || "enforce equal to one",
                    |lc| lc,
                    |lc| lc,
                    |lc| x.sub_from_lc(one, S::ONE, lc + one),
                );
                Ok(())
            }
            (Boolean::Constant(false), x) | (x, Boolean::Constant(false)) => {
                cs.enforce(
                    || "enforce equal to zero",
                    |lc| lc,
                    |lc| lc,
                    |lc| x.add_to_lc(one, S::ONE, lc),
                );
                Ok(())
            }
            (x, y) => {
                cs.enforce(
                    || "enforce equal",
                    |lc| lc,
                    |lc| lc,
                    |lc| y.sub_from_lc(one, S::ONE, x.add_to_lc(one, S::ONE, lc)),
                );
                Ok(())
            }
        }
    }

    /// `a XOR b`: at most one constraint, none when either side is constant.
    pub fn xor<S, CS>(cs: CS, a: &Self, b: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        Ok(match (*a, *b) {
            (Boolean::Constant(false), x) | (x, Boolean::Constant(false)) => x,
            (Boolean::Constant(true), x) | (x, Boolean::Constant(true)) => x.not(),
            // a XOR NOT b = NOT (a XOR b)
            (Boolean::Is(x), Boolean::Not(y)) | (Boolean::Not(y), Boolean::Is(x)) => {
                Boolean::Is(AllocatedBit::xor(cs, &x, &y)?).not()
            }
            // NOT a XOR NOT b = a XOR b
            (Boolean::Is(x), Boolean::Is(y)) | (Boolean::Not(x), Boolean::Not(y)) => {
                Boolean::Is(AllocatedBit::xor(cs, &x, &y)?)
            }
        })
    }

    /// `a AND b`: at most one constraint, none when either side is constant.
    pub fn and<S, CS>(cs: CS, a: &Self, b: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        Ok(match (*a, *b) {
            (Boolean::Constant(false), _) | (_, Boolean::Constant(false)) => {
                Boolean::Constant(false)
            }
            (Boolean::Constant(true), x) | (x, Boolean::Constant(true)) => x,
            (Boolean::Is(x), Boolean::Not(y)) | (Boolean::Not(y), Boolean::Is(x)) => {
                Boolean::Is(AllocatedBit::and_not(cs, &x, &y)?)
            }
            (Boolean::Not(x), Boolean::Not(y)) => Boolean::Is(AllocatedBit::nor(cs, &x, &y)?),
            (Boolean::Is(x), Boolean::Is(y)) => Boolean::Is(AllocatedBit::and(cs, &x, &y)?),
        })
    }

    /// SHA-256's choice `(a AND b) XOR (NOT a AND c)`: one constraint,
    /// `(b − c) · a = ch − c`, or a cheaper form when an operand is constant.
    pub fn sha256_ch<S, CS>(
        mut cs: CS,
        a: &Self,
        b: &Self,
        c: &Self,
    ) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let value = match (a.get_value(), b.get_value(), c.get_value()) {
            (Some(a), Some(b), Some(c)) => Some((a & b) ^ (!a & c)),
            _ => None,
        };
        match (*a, *b, *c) {
            (Boolean::Constant(_), Boolean::Constant(_), Boolean::Constant(_)) => {
                return Ok(Boolean::Constant(value.unwrap_or_default()))
            }
            (Boolean::Constant(false), _, c) => return Ok(c),
            (a, Boolean::Constant(false), c) => return Boolean::and(cs, &a.not(), &c),
            (a, b, Boolean::Constant(false)) => return Boolean::and(cs, &a, &b),
            // (a AND b) XOR NOT a = NOT (a AND NOT b)
            (a, b, Boolean::Constant(true)) => return Ok(Boolean::and(cs, &a, &b.not())?.not()),
            // a XOR (NOT a AND c) = NOT (NOT a AND NOT c)
            (a, Boolean::Constant(true), c) => {
                return Ok(Boolean::and(cs, &a.not(), &c.not())?.not())
            }
            // a = 1 leaves b, which the general constraint below handles.
            _ => {}
        }
        let ch = AllocatedBit::alloc_unconstrained(&mut cs, "ch", value)?;
        let one = CS::one();
        cs.enforce(
            || "ch computation",
            |lc| c.sub_from_lc(one, S::ONE, b.add_to_lc(one, S::ONE, lc)),
            |lc| a.add_to_lc(one, S::ONE, lc),
            |lc| c.sub_from_lc(one, S::ONE, lc + ch.get_variable()),
        );
        Ok(Boolean::Is(ch))
    }

    /// SHA-256's majority `(a AND b) XOR (a AND c) XOR (b AND c)`: two
    /// constraints, `b · c = bc` and `(2bc − b − c) · a = bc − maj`, or a
    /// single AND when an operand is constant.
    pub fn sha256_maj<S, CS>(
        mut cs: CS,
        a: &Self,
        b: &Self,
        c: &Self,
    ) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let value = match (a.get_value(), b.get_value(), c.get_value()) {
            (Some(a), Some(b), Some(c)) => Some((a & b) ^ (a & c) ^ (b & c)),
            _ => None,
        };
        match (*a, *b, *c) {
            (Boolean::Constant(_), Boolean::Constant(_), Boolean::Constant(_)) => {
                return Ok(Boolean::Constant(value.unwrap_or_default()))
            }
            (Boolean::Constant(false), b, c) => return Boolean::and(cs, &b, &c),
            (a, Boolean::Constant(false), c) => return Boolean::and(cs, &a, &c),
            (a, b, Boolean::Constant(false)) => return Boolean::and(cs, &a, &b),
            // With one operand true, maj is the OR of the other two.
            (a, b, Boolean::Constant(true)) => {
                return Ok(Boolean::and(cs, &a.not(), &b.not())?.not())
            }
            (a, Boolean::Constant(true), c) => {
                return Ok(Boolean::and(cs, &a.not(), &c.not())?.not())
            }
            (Boolean::Constant(true), b, c) => {
                return Ok(Boolean::and(cs, &b.not(), &c.not())?.not())
            }
            _ => {}
        }
        let maj = AllocatedBit::alloc_unconstrained(&mut cs, "maj", value)?;
        let bc = Boolean::and(cs.namespace(|| "b and c"), b, c)?;
        let one = CS::one();
        let two = S::ONE.double();
        cs.enforce(
            || "maj computation",
            |lc| c.sub_from_lc(one, S::ONE, b.sub_from_lc(one, S::ONE, bc.add_to_lc(one, two, lc))),
            |lc| a.add_to_lc(one, S::ONE, lc),
            |lc| bc.add_to_lc(one, S::ONE, lc) - maj.get_variable(),
        );
        Ok(Boolean::Is(maj))
    }
}
