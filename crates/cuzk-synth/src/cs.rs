use std::marker::PhantomData;

use ff::PrimeField;

use crate::{LinearCombination, SynthesisError, Variable};

/// A circuit: something that can lay out its constraints (and, when proving,
/// its witness) into any [`ConstraintSystem`].
pub trait Circuit<S: PrimeField> {
    /// Allocates the circuit's variables and enforces its constraints.
    fn synthesize<CS: ConstraintSystem<S>>(self, cs: &mut CS) -> Result<(), SynthesisError>;

    /// Cuts the circuit into at most `parts` circuits that synthesize on
    /// threads of their own, or gives it back whole (`Err`) when it cannot
    /// be cut: the default.
    ///
    /// A circuit that is a prefix followed by blocks that depend only on the
    /// prefix (a proof's challenges, a PoSt's sectors) overrides this.
    /// Recorded synthesis runs the parts in parallel and joins their
    /// witnesses (see [`Split`]); what it joins is checked against the
    /// recording like any witness (counts, allocation trace, every row), so a
    /// cut that does not hold is an error, never a wrong proof.
    fn split(self, parts: usize) -> Result<Split<Self>, Self>
    where
        Self: Sized,
    {
        let _ = parts;
        Err(self)
    }

    /// For a circuit that [`Circuit::split`]s into a prefix and blocks of
    /// one shape: each block's values that its recorded rows cannot
    /// determine, in block order, so that recorded synthesis computes the
    /// witness from the rows ([`crate::RecordedShape::witness`]) instead of
    /// running the gadgets. A circuit that does not split gives one block,
    /// itself: its inputs after the constant one and all its free values
    /// (more blocks are an error). `None` (the default) runs the gadgets. Taken,
    /// not copied (a 32 GiB WindowPoSt partition's are 53 MB): a circuit
    /// asked twice may answer `None`.
    ///
    /// The values come from the proof's own data (a Merkle path's siblings,
    /// a leaf); which ones the rows leave free is the recording's plan, so
    /// a circuit giving values must say them in the order the plan takes
    /// them (lowest aux index first). A wrong or misplaced value is never a
    /// wrong proof: the replayed witness is held to every row.
    fn take_block_values(&mut self) -> Option<Vec<BlockValues<S>>> {
        None
    }
}

/// One block's values for a replay ([`Circuit::take_block_values`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockValues<S> {
    /// The public inputs the block allocates, in order.
    pub inputs: Vec<S>,
    /// The aux values its rows leave free, in increasing aux index.
    pub free: Vec<S>,
}

/// A circuit cut for parallel witness generation by [`Circuit::split`].
///
/// The whole circuit allocates and enforces exactly what `prefix` does, then
/// what each part does after its own copy of the prefix, part after part.
pub struct Split<C> {
    /// The prefix alone: what the circuit allocates and enforces before its first block.
    pub prefix: C,
    /// In order, each the prefix followed by a run of the circuit's blocks;
    /// together they hold every block once.
    pub parts: Vec<C>,
}

impl<C> Split<C> {
    /// The same cut with every circuit passed through `f` (a wrapper's split).
    pub fn map<D>(self, f: impl Fn(C) -> D) -> Split<D> {
        Split { prefix: f(self.prefix), parts: self.parts.into_iter().map(f).collect() }
    }
}

/// A system of rank-1 constraints `A · B = C` over linear combinations of variables.
///
/// The same trait serves setup (no witness values), proving (values, no names)
/// and testing (values and names); implementations ignore what they do not need.
/// `Send` as in bellpepper-core, so a bellpepper circuit can run over any of
/// ours through an adapter that borrows it (see the `bellpepper` module).
pub trait ConstraintSystem<S: PrimeField>: Sized + Send {
    /// The constraint system at the root of any namespace stack.
    type Root: ConstraintSystem<S>;

    /// The constant-one variable (input 0).
    fn one() -> Variable {
        Variable::new_unchecked(crate::Index::Input(0))
    }

    /// Allocates a private variable whose value `f` computes (called only when
    /// the system needs values).
    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>;

    /// Allocates a public input.
    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>;

    /// Enforces `a · b = c`. Each closure receives an empty combination to
    /// build on; returning that same combination lets the system reuse its buffer.
    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>;

    /// Enters a namespace; only [`Namespace`] should call this. Systems that
    /// keep no names (proving, setup, recording) need not implement it.
    fn push_namespace<NR, N>(&mut self, _name_fn: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    /// Leaves a namespace; only [`Namespace`] should call this.
    fn pop_namespace(&mut self) {}

    /// The root constraint system.
    fn get_root(&mut self) -> &mut Self::Root;

    /// Opens a named scope that closes when the returned guard is dropped.
    fn namespace<NR, N>(&mut self, name_fn: N) -> Namespace<'_, S, Self::Root>
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        self.get_root().push_namespace(name_fn);
        Namespace(self.get_root(), PhantomData)
    }

    /// False when witness values are never computed (setup, shape recording),
    /// so gadgets may skip computing them.
    fn is_witness_generator(&self) -> bool {
        true
    }

    /// False when `enforce` never calls its closures (witness-only synthesis
    /// over a recorded shape), so gadgets may skip building the linear
    /// combinations they would only hand to `enforce`. Whatever a gadget
    /// skips, its allocations, their values and its `enforce` calls must stay
    /// exactly the same: the recording depends on their order.
    fn needs_constraints(&self) -> bool {
        true
    }
}

/// A scope guard over a constraint system; see [`ConstraintSystem::namespace`].
pub struct Namespace<'a, S: PrimeField, CS: ConstraintSystem<S>>(&'a mut CS, PhantomData<S>);

impl<S: PrimeField, CS: ConstraintSystem<S>> ConstraintSystem<S> for Namespace<'_, S, CS> {
    type Root = CS::Root;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.alloc(annotation, f)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.alloc_input(annotation, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        self.0.enforce(annotation, a, b, c)
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        panic!("only the root's push_namespace should be called");
    }

    fn pop_namespace(&mut self) {
        panic!("only the root's pop_namespace should be called");
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self.0.get_root()
    }

    fn is_witness_generator(&self) -> bool {
        self.0.is_witness_generator()
    }

    fn needs_constraints(&self) -> bool {
        self.0.needs_constraints()
    }
}

impl<S: PrimeField, CS: ConstraintSystem<S>> Drop for Namespace<'_, S, CS> {
    fn drop(&mut self) {
        self.get_root().pop_namespace()
    }
}

impl<S: PrimeField, CS: ConstraintSystem<S>> ConstraintSystem<S> for &mut CS {
    type Root = CS::Root;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        (**self).alloc(annotation, f)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        (**self).alloc_input(annotation, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        (**self).enforce(annotation, a, b, c)
    }

    fn push_namespace<NR, N>(&mut self, name_fn: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        (**self).push_namespace(name_fn)
    }

    fn pop_namespace(&mut self) {
        (**self).pop_namespace()
    }

    fn get_root(&mut self) -> &mut Self::Root {
        (**self).get_root()
    }

    fn is_witness_generator(&self) -> bool {
        (**self).is_witness_generator()
    }

    fn needs_constraints(&self) -> bool {
        (**self).needs_constraints()
    }
}
