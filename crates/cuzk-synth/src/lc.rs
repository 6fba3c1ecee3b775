use std::ops::{Add, Sub};

use ff::PrimeField;

/// Where a variable lives: among the public inputs or the private (auxiliary) witness.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Index {
    /// Public input `i`; input 0 is the constant one.
    Input(usize),
    /// Auxiliary (private) variable `i`.
    Aux(usize),
}

/// A handle to an allocated variable of a constraint system.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variable(pub Index);

impl Variable {
    /// Wraps an index; used by constraint systems when they allocate.
    pub fn new_unchecked(idx: Index) -> Self {
        Variable(idx)
    }

    /// The index this variable refers to.
    pub fn get_unchecked(&self) -> Index {
        self.0
    }
}

/// A sum of `coefficient · variable` terms.
///
/// Terms are kept in insertion order and never merged: merging costs a search
/// per append, while evaluation is linear anyway. Gadgets build on the
/// combination they are handed (see `Boolean::add_to_lc`) so that the
/// buffer a constraint system lends is reused instead of reallocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearCombination<S: PrimeField>(Vec<(Variable, S)>);

impl<S: PrimeField> Default for LinearCombination<S> {
    fn default() -> Self {
        Self::zero()
    }
}

impl<S: PrimeField> LinearCombination<S> {
    /// The empty combination.
    pub fn zero() -> Self {
        LinearCombination(Vec::new())
    }

    /// An empty combination that reuses `buf`'s allocation.
    pub fn from_buffer(mut buf: Vec<(Variable, S)>) -> Self {
        buf.clear();
        LinearCombination(buf)
    }

    /// Gives the term buffer back so its allocation can be reused.
    pub fn into_buffer(self) -> Vec<(Variable, S)> {
        self.0
    }

    /// The terms, in insertion order.
    pub fn terms(&self) -> &[(Variable, S)] {
        &self.0
    }

    /// Iterates over the terms.
    pub fn iter(&self) -> std::slice::Iter<'_, (Variable, S)> {
        self.0.iter()
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the combination has no terms.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends `coeff · var` in place.
    pub fn push(&mut self, var: Variable, coeff: S) {
        self.0.push((var, coeff));
    }

    /// Appends every term of `other` scaled by `coeff` in place.
    pub fn push_scaled(&mut self, coeff: S, other: &LinearCombination<S>) {
        self.0.extend(other.0.iter().map(|(v, c)| (*v, *c * coeff)));
    }

    /// Evaluates the combination against an input and an aux assignment.
    pub fn eval(&self, inputs: &[S], aux: &[S]) -> S {
        let mut acc = S::ZERO;
        for (var, coeff) in &self.0 {
            let value = match var.0 {
                Index::Input(i) => inputs[i],
                Index::Aux(i) => aux[i],
            };
            if *coeff == S::ONE {
                acc += value;
            } else {
                acc += value * coeff;
            }
        }
        acc
    }
}

impl<S: PrimeField> AsRef<[(Variable, S)]> for LinearCombination<S> {
    fn as_ref(&self) -> &[(Variable, S)] {
        &self.0
    }
}

impl<S: PrimeField> Add<(S, Variable)> for LinearCombination<S> {
    type Output = Self;
    fn add(mut self, (coeff, var): (S, Variable)) -> Self {
        self.0.push((var, coeff));
        self
    }
}

impl<S: PrimeField> Sub<(S, Variable)> for LinearCombination<S> {
    type Output = Self;
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn sub(self, (coeff, var): (S, Variable)) -> Self {
        self + (-coeff, var)
    }
}

impl<S: PrimeField> Add<Variable> for LinearCombination<S> {
    type Output = Self;
    fn add(self, var: Variable) -> Self {
        self + (S::ONE, var)
    }
}

impl<S: PrimeField> Sub<Variable> for LinearCombination<S> {
    type Output = Self;
    fn sub(self, var: Variable) -> Self {
        self - (S::ONE, var)
    }
}

impl<'a, S: PrimeField> Add<&'a LinearCombination<S>> for LinearCombination<S> {
    type Output = Self;
    fn add(mut self, other: &'a LinearCombination<S>) -> Self {
        self.0.extend_from_slice(&other.0);
        self
    }
}

impl<'a, S: PrimeField> Sub<&'a LinearCombination<S>> for LinearCombination<S> {
    type Output = Self;
    fn sub(mut self, other: &'a LinearCombination<S>) -> Self {
        self.0.extend(other.0.iter().map(|(v, c)| (*v, -*c)));
        self
    }
}

impl<'a, S: PrimeField> Add<(S, &'a LinearCombination<S>)> for LinearCombination<S> {
    type Output = Self;
    fn add(mut self, (coeff, other): (S, &'a LinearCombination<S>)) -> Self {
        self.push_scaled(coeff, other);
        self
    }
}

impl<'a, S: PrimeField> Sub<(S, &'a LinearCombination<S>)> for LinearCombination<S> {
    type Output = Self;
    fn sub(mut self, (coeff, other): (S, &'a LinearCombination<S>)) -> Self {
        self.push_scaled(-coeff, other);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Scalar;

    fn check(lc: LinearCombination<Scalar>, inputs: &[u64], aux: &[u64], expected: i64) {
        let inputs: Vec<Scalar> = inputs.iter().map(|&v| Scalar::from(v)).collect();
        let aux: Vec<Scalar> = aux.iter().map(|&v| Scalar::from(v)).collect();
        let want = if expected < 0 {
            -Scalar::from(expected.unsigned_abs())
        } else {
            Scalar::from(expected as u64)
        };
        assert_eq!(lc.eval(&inputs, &aux), want);
    }

    #[test]
    fn operators_evaluate_like_their_algebra() {
        let one = Variable(Index::Input(0));
        let x = Variable(Index::Aux(0));
        let y = Variable(Index::Aux(1));
        let base = LinearCombination::<Scalar>::zero() + x + (Scalar::from(3), y);
        check(base.clone(), &[1], &[5, 7], 26);
        check(base.clone() - one, &[1], &[5, 7], 25);
        check(LinearCombination::zero() - &base, &[1], &[5, 7], -26);
        check(LinearCombination::zero() + (Scalar::from(2), &base), &[1], &[5, 7], 52);
        check(LinearCombination::zero() - (Scalar::from(2), &base) + &base, &[1], &[5, 7], -26);
        check(LinearCombination::zero() - (Scalar::from(4), y), &[1], &[5, 7], -28);
    }

    #[test]
    fn buffers_are_reused_and_cleared() {
        let x = Variable(Index::Aux(0));
        let lc = LinearCombination::<Scalar>::zero() + x + x;
        let buf = lc.into_buffer();
        let cap = buf.capacity();
        let lc = LinearCombination::from_buffer(buf);
        assert!(lc.is_empty());
        assert_eq!(lc.into_buffer().capacity(), cap);
    }
}
