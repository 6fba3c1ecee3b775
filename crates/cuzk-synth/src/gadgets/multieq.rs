use ff::PrimeField;

use crate::{ConstraintSystem, LinearCombination, SynthesisError, Variable};

/// Packs many small equalities `lhs_i = rhs_i` into one constraint
/// `(Σ 2^{o_i}·lhs_i) · 1 = Σ 2^{o_i}·rhs_i`.
///
/// Each equality states that two `k_i`-bit quantities agree (an addition's
/// operand bits against its result bits). Shifting each by the bits already
/// used keeps them in disjoint bit ranges, so as long as the total stays below
/// the field's capacity no carry can pass from one to the next and the packed
/// constraint holds exactly when each one does. SHA-256 additions need about
/// 35 bits each, so seven share a constraint.
///
/// The pending constraint is written when it is full and when the `MultiEq`
/// is dropped. It is a constraint system itself (with itself as the root) so
/// that gadgets below it reach it through `cs.get_root()`.
///
/// Under a system that needs no constraints (see
/// [`ConstraintSystem::needs_constraints`]) it still counts bits and writes
/// its packed constraints at the same places, but [`MultiEq::reserve`] hands
/// out no slot, so no term is built.
pub struct MultiEq<S: PrimeField, CS: ConstraintSystem<S>> {
    cs: CS,
    /// `cs.needs_constraints()`, asked once.
    builds_terms: bool,
    ops: usize,
    bits_used: usize,
    lhs: LinearCombination<S>,
    rhs: LinearCombination<S>,
}

/// Where one equality's terms go: append `coeff · x` to `lhs` and `rhs`,
/// with coefficients starting at `base` (the equality's bit offset).
pub struct Slot<'a, S: PrimeField> {
    /// The left side of the packed equality.
    pub lhs: &'a mut LinearCombination<S>,
    /// The right side of the packed equality.
    pub rhs: &'a mut LinearCombination<S>,
    /// `2^offset`: multiply this equality's coefficients by it.
    pub base: S,
}

impl<S: PrimeField, CS: ConstraintSystem<S>> MultiEq<S, CS> {
    /// Starts packing equalities over `cs`.
    pub fn new(cs: CS) -> Self {
        MultiEq {
            builds_terms: cs.needs_constraints(),
            cs,
            ops: 0,
            bits_used: 0,
            lhs: LinearCombination::zero(),
            rhs: LinearCombination::zero(),
        }
    }

    fn accumulate(&mut self) {
        let ops = self.ops;
        let (lhs, rhs) = (&mut self.lhs, &mut self.rhs);
        // Swapping hands our full buffers to the system and keeps its empty
        // ones for the next packed equality, so nothing is reallocated.
        self.cs.enforce(
            || format!("multieq {ops}"),
            |lc| std::mem::replace(lhs, LinearCombination::from_buffer(lc.into_buffer())),
            |lc| lc + CS::one(),
            |lc| std::mem::replace(rhs, LinearCombination::from_buffer(lc.into_buffer())),
        );
        // A system that never calls the closures leaves the terms here.
        if !self.builds_terms {
            for side in [&mut self.lhs, &mut self.rhs] {
                *side = LinearCombination::from_buffer(std::mem::take(side).into_buffer());
            }
        }
        self.bits_used = 0;
        self.ops += 1;
    }

    /// Reserves `num_bits` for one more equality, writing the pending packed
    /// constraint first if they would not fit, and returns where to append
    /// its terms.
    pub fn slot(&mut self, num_bits: usize) -> Slot<'_, S> {
        let offset = self.advance(num_bits);
        let base = S::from(2).pow_vartime([offset as u64]);
        Slot { lhs: &mut self.lhs, rhs: &mut self.rhs, base }
    }

    /// Like [`MultiEq::slot`], but `None` when the system needs no
    /// constraints: the bits are still reserved, so the packed constraints
    /// fall where they would, and the caller skips building its terms.
    pub fn reserve(&mut self, num_bits: usize) -> Option<Slot<'_, S>> {
        if self.builds_terms {
            Some(self.slot(num_bits))
        } else {
            self.advance(num_bits);
            None
        }
    }

    /// Reserves `num_bits`, writing the pending constraint first if they
    /// would not fit; returns their offset.
    fn advance(&mut self, num_bits: usize) -> usize {
        let capacity = S::CAPACITY as usize;
        assert!(num_bits < capacity, "an equality of {num_bits} bits cannot be packed");
        if self.bits_used + num_bits >= capacity {
            self.accumulate();
        }
        let offset = self.bits_used;
        self.bits_used += num_bits;
        offset
    }

    /// Adds the equality `lhs = rhs` of two `num_bits`-bit quantities.
    pub fn enforce_equal(
        &mut self,
        num_bits: usize,
        lhs: &LinearCombination<S>,
        rhs: &LinearCombination<S>,
    ) {
        if let Some(slot) = self.reserve(num_bits) {
            slot.lhs.push_scaled(slot.base, lhs);
            slot.rhs.push_scaled(slot.base, rhs);
        }
    }
}

impl<S: PrimeField, CS: ConstraintSystem<S>> Drop for MultiEq<S, CS> {
    fn drop(&mut self) {
        if self.bits_used > 0 {
            self.accumulate();
        }
    }
}

impl<S: PrimeField, CS: ConstraintSystem<S>> ConstraintSystem<S> for MultiEq<S, CS> {
    type Root = Self;

    fn one() -> Variable {
        CS::one()
    }

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.cs.alloc(annotation, f)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.cs.alloc_input(annotation, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        self.cs.enforce(annotation, a, b, c)
    }

    fn push_namespace<NR, N>(&mut self, name_fn: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        self.cs.get_root().push_namespace(name_fn)
    }

    fn pop_namespace(&mut self) {
        self.cs.get_root().pop_namespace()
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_witness_generator(&self) -> bool {
        self.cs.is_witness_generator()
    }

    fn needs_constraints(&self) -> bool {
        self.builds_terms
    }
}
