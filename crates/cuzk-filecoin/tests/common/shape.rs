//! One canonical form for constraint systems on both sides, so that cuzk's
//! circuits can be compared with filecoin-proofs' constraint for constraint:
//! the input, aux and constraint counts as u64 big-endian, then each
//! constraint's A, B and C with like terms merged, zero terms dropped and
//! variables sorted (inputs first, then by index), each term as an `I`/`A`
//! tag, the index as u64 big-endian and the coefficient. cuzk's
//! `TestConstraintSystem::hash` is SHA-256 of it with coefficients as `to_repr`
//! (little-endian); bellpepper's `TestConstraintSystem::hash` is Blake2s of it
//! with coefficients big-endian. bellperson's constraints (its test system's,
//! or `MetricCS`'s for blank circuits) are hashed here in either form; blank
//! cuzk circuits (no values, which cuzk's test system would refuse to
//! evaluate) go through a value-free system that hashes in cuzk's form.

use std::collections::BTreeMap;

use blstrs::Scalar;
use cuzk_synth::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, TestConstraintSystem, Variable};
use ff::{Field, PrimeField};
use sha2::Digest;

/// Input, aux and constraint counts (the constant one counted as an input)
/// and the hash in cuzk's form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub inputs: usize,
    pub aux: usize,
    pub constraints: usize,
    pub hash: String,
}

impl Shape {
    /// What cuzk's own test system says of the circuit it synthesized.
    pub fn of_test_cs(cs: &TestConstraintSystem<Scalar>) -> Shape {
        Shape { inputs: cs.num_inputs(), aux: cs.num_aux(), constraints: cs.num_constraints(), hash: cs.hash() }
    }
}

/// Which test system's hash the canonical form is written for.
#[derive(Clone, Copy)]
pub enum Format {
    /// cuzk's: SHA-256, coefficients little-endian.
    Cuzk,
    /// bellpepper's: Blake2s, coefficients big-endian.
    Bellpepper,
}

enum Hasher {
    Sha256(sha2::Sha256),
    Blake2s(blake2s_simd::State),
}

/// Hashes a system in the canonical form, counts first.
struct Canonical(Hasher);

impl Canonical {
    fn new(format: Format, inputs: usize, aux: usize, constraints: usize) -> Self {
        let mut h = Canonical(match format {
            Format::Cuzk => Hasher::Sha256(sha2::Sha256::new()),
            Format::Bellpepper => Hasher::Blake2s(blake2s_simd::State::new()),
        });
        for n in [inputs, aux, constraints] {
            h.update(&(n as u64).to_be_bytes());
        }
        h
    }

    fn update(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Blake2s(h) => {
                h.update(bytes);
            }
        }
    }

    /// One linear combination's terms.
    fn lc(&mut self, terms: impl IntoIterator<Item = (Index, Scalar)>) {
        let mut merged: BTreeMap<Index, Scalar> = BTreeMap::new();
        for (index, coeff) in terms {
            *merged.entry(index).or_insert(Scalar::ZERO) += coeff;
        }
        merged.retain(|_, c| !bool::from(c.is_zero()));
        self.update(&(merged.len() as u64).to_be_bytes());
        for (index, coeff) in merged {
            let (tag, i) = match index {
                Index::Input(i) => (b'I', i),
                Index::Aux(i) => (b'A', i),
            };
            self.update(&[tag]);
            self.update(&(i as u64).to_be_bytes());
            let mut repr = coeff.to_repr();
            if matches!(self.0, Hasher::Blake2s(_)) {
                repr.reverse();
            }
            self.update(&repr);
        }
    }

    fn finish(self) -> String {
        let digest = match self.0 {
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Blake2s(h) => h.finalize().as_bytes().to_vec(),
        };
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A bellpepper linear combination's terms, with cuzk's index type.
fn bellpepper_terms(lc: &bellperson::LinearCombination<Scalar>) -> impl Iterator<Item = (Index, Scalar)> + '_ {
    lc.iter().map(|(var, coeff)| {
        let index = match var.get_unchecked() {
            bellperson::Index::Input(i) => Index::Input(i),
            bellperson::Index::Aux(i) => Index::Aux(i),
        };
        (index, *coeff)
    })
}

/// bellpepper constraints (from its `TestConstraintSystem` or bellperson's
/// `MetricCS`; both keep `(a, b, c, name)` tuples) hashed in `format`.
pub fn bellpepper_hash(
    format: Format,
    inputs: usize,
    aux: usize,
    constraints: &[bellpepper_core::Constraint<Scalar>],
) -> String {
    let mut h = Canonical::new(format, inputs, aux, constraints.len());
    for (a, b, c, _) in constraints {
        for lc in [a, b, c] {
            h.lc(bellpepper_terms(lc));
        }
    }
    h.finish()
}

/// The canonical shape of bellpepper constraints, in cuzk's form.
pub fn bellpepper_shape(inputs: usize, aux: usize, constraints: &[bellpepper_core::Constraint<Scalar>]) -> Shape {
    let hash = bellpepper_hash(Format::Cuzk, inputs, aux, constraints);
    Shape { inputs, aux, constraints: constraints.len(), hash }
}

/// The canonical shape of a cuzk circuit without evaluating a single value:
/// one pass to count, one to hash (the counts come first in the form), so
/// that no constraint is held in memory.
pub fn cuzk_blank_shape<C: Circuit<Scalar>>(make: impl Fn() -> C) -> Result<Shape, SynthesisError> {
    let mut counter = BlankCs::new(None);
    make().synthesize(&mut counter)?;
    let (inputs, aux, constraints) = (counter.inputs, counter.aux, counter.constraints);
    let mut hasher = BlankCs::new(Some(Canonical::new(Format::Cuzk, inputs, aux, constraints)));
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

    fn is_witness_generator(&self) -> bool {
        false
    }
}
