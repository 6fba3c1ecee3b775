//! One canonical form for constraint systems on both sides: the form of
//! cuzk's `TestConstraintSystem::hash` (SHA-256 of the input, aux and
//! constraint counts as u64 big-endian, then each constraint's A, B and C
//! with like terms merged, zeros dropped and variables sorted: term count,
//! `I`/`A` tag, index as u64 big-endian, coefficient repr). bellpepper's own
//! `hash` uses Blake2s over a different encoding, so bellperson's constraints
//! are hashed here in cuzk's form and compared with cuzk's `hash()`; blank
//! circuits (no values, which both test systems would refuse to evaluate) go
//! through value-free systems that hash in the same form.

use std::collections::BTreeMap;

use blstrs::Scalar;
use cuzk_synth::sha256_native::Sha256;
use cuzk_synth::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use ff::{Field, PrimeField};

/// Input, aux and constraint counts (the constant one counted as an input) and the canonical hash.
#[derive(Debug, PartialEq, Eq)]
pub struct Shape {
    pub inputs: usize,
    pub aux: usize,
    pub constraints: usize,
    pub hash: String,
}

/// Hashes a system in the canonical form, counts first.
pub struct Canonical(Sha256);

impl Canonical {
    pub fn new(inputs: usize, aux: usize, constraints: usize) -> Self {
        let mut h = Sha256::new();
        for n in [inputs, aux, constraints] {
            h.update(&(n as u64).to_be_bytes());
        }
        Canonical(h)
    }

    /// One linear combination's terms.
    pub fn lc(&mut self, terms: impl IntoIterator<Item = (Index, Scalar)>) {
        let mut merged: BTreeMap<Index, Scalar> = BTreeMap::new();
        for (index, coeff) in terms {
            *merged.entry(index).or_insert(Scalar::ZERO) += coeff;
        }
        merged.retain(|_, c| !bool::from(c.is_zero()));
        self.0.update(&(merged.len() as u64).to_be_bytes());
        for (index, coeff) in merged {
            let (tag, i) = match index {
                Index::Input(i) => (b'I', i),
                Index::Aux(i) => (b'A', i),
            };
            self.0.update(&[tag]);
            self.0.update(&(i as u64).to_be_bytes());
            self.0.update(coeff.to_repr().as_ref());
        }
    }

    pub fn finish(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A bellpepper linear combination's terms, with cuzk's index type.
pub fn bellpepper_terms(lc: &bellperson::LinearCombination<Scalar>) -> impl Iterator<Item = (Index, Scalar)> + '_ {
    lc.iter().map(|(var, coeff)| {
        let index = match var.get_unchecked() {
            bellperson::Index::Input(i) => Index::Input(i),
            bellperson::Index::Aux(i) => Index::Aux(i),
        };
        (index, *coeff)
    })
}

/// The canonical shape of bellpepper constraints (from its `TestConstraintSystem`
/// or bellperson's `MetricCS`; both keep `(a, b, c, name)` tuples).
pub fn bellpepper_shape(inputs: usize, aux: usize, constraints: &[bellpepper_core::Constraint<Scalar>]) -> Shape {
    let mut h = Canonical::new(inputs, aux, constraints.len());
    for (a, b, c, _) in constraints {
        for lc in [a, b, c] {
            h.lc(bellpepper_terms(lc));
        }
    }
    Shape { inputs, aux, constraints: constraints.len(), hash: h.finish() }
}

/// The canonical shape of a cuzk circuit without evaluating a single value:
/// one pass to count, one to hash (the counts come first in the form).
pub fn cuzk_blank_shape<C: Circuit<Scalar>>(make: impl Fn() -> C) -> Result<Shape, SynthesisError> {
    let mut counter = BlankCs::new(None);
    make().synthesize(&mut counter)?;
    let (inputs, aux, constraints) = (counter.inputs, counter.aux, counter.constraints);
    let mut hasher = BlankCs::new(Some(Canonical::new(inputs, aux, constraints)));
    make().synthesize(&mut hasher)?;
    assert_eq!((hasher.inputs, hasher.aux, hasher.constraints), (inputs, aux, constraints));
    let hash = hasher.hash.map(Canonical::finish).unwrap_or_default();
    Ok(Shape { inputs, aux, constraints, hash })
}

/// A cuzk constraint system that never calls a value closure.
struct BlankCs {
    inputs: usize,
    aux: usize,
    constraints: usize,
    hash: Option<Canonical>,
}

impl BlankCs {
    fn new(hash: Option<Canonical>) -> Self {
        BlankCs { inputs: 1, aux: 0, constraints: 0, hash }
    }
}

impl ConstraintSystem<Scalar> for BlankCs {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux += 1;
        Ok(Variable(Index::Aux(self.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs += 1;
        Ok(Variable(Index::Input(self.inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        self.constraints += 1;
        if let Some(h) = &mut self.hash {
            for lc in [a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero())] {
                h.lc(lc.iter().map(|(var, coeff)| (var.0, *coeff)));
            }
        }
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
