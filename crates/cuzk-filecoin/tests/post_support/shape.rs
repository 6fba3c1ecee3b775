//! A constraint system that records only a circuit's shape, never asking for
//! values (so blank circuits synthesize), and hashes it in both test systems'
//! formats: cuzk's `TestConstraintSystem::hash` (SHA-256, scalars
//! little-endian) and bellpepper's (Blake2s, scalars big-endian). Both merge
//! like terms, drop zero ones and sort Input before Aux, then by index; the
//! same canonical constraint list feeds both hashes. It implements both
//! constraint-system traits, so filecoin-proofs' circuit can run through it
//! directly and cuzk's `FilecoinCircuit` through cuzk's bellpepper adapter.

use std::collections::BTreeMap;

use bellperson::{ConstraintSystem as BpCs, Index as BpIndex, LinearCombination as BpLc, SynthesisError as BpError};
use bellperson::Variable as BpVariable;
use blstrs::Scalar;
use cuzk_synth::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use ff::{Field, PrimeField};
use sha2::Digest;

/// Counts and the two hashes of one synthesized shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeSummary {
    /// Inputs, the constant one included.
    pub inputs: usize,
    /// Private variables.
    pub aux: usize,
    /// Constraints.
    pub constraints: usize,
    /// cuzk's `TestConstraintSystem::hash` format.
    pub cuzk_hash: String,
    /// bellpepper's `TestConstraintSystem::hash` format.
    pub bellpepper_hash: String,
}

/// A canonical term: (0 = input | 1 = aux, index).
type Key = (u8, usize);

/// The recorder behind both trait implementations.
#[derive(Default)]
pub struct ShapeCs {
    inputs: usize,
    aux: usize,
    constraints: Vec<[BTreeMap<Key, Scalar>; 3]>,
}

impl ShapeCs {
    /// A system holding only the constant one.
    pub fn new() -> Self {
        ShapeCs { inputs: 1, ..Default::default() }
    }

    /// The counts and both hashes.
    pub fn summary(&self) -> ShapeSummary {
        let mut sha = sha2::Sha256::new();
        let mut blake = blake2s_simd::State::new();
        for n in [self.inputs, self.aux, self.constraints.len()] {
            sha.update((n as u64).to_be_bytes());
            blake.update(&(n as u64).to_be_bytes());
        }
        for k in &self.constraints {
            for lc in k {
                sha.update((lc.len() as u64).to_be_bytes());
                blake.update(&(lc.len() as u64).to_be_bytes());
                for (&(tag, i), coeff) in lc {
                    let tag = if tag == 0 { b'I' } else { b'A' };
                    let le = coeff.to_repr();
                    let mut be = le;
                    be.reverse();
                    sha.update([tag]);
                    sha.update((i as u64).to_be_bytes());
                    sha.update(le);
                    blake.update(&[tag]);
                    blake.update(&(i as u64).to_be_bytes());
                    blake.update(&be);
                }
            }
        }
        ShapeSummary {
            inputs: self.inputs,
            aux: self.aux,
            constraints: self.constraints.len(),
            cuzk_hash: sha.finalize().iter().map(|b| format!("{b:02x}")).collect(),
            bellpepper_hash: blake.finalize().as_bytes().iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    fn record(&mut self, terms: [Vec<(Key, Scalar)>; 3]) {
        self.constraints.push(terms.map(|lc| {
            let mut merged = BTreeMap::new();
            for (key, coeff) in lc {
                *merged.entry(key).or_insert(Scalar::ZERO) += coeff;
            }
            merged.retain(|_, c| !bool::from(c.is_zero()));
            merged
        }));
    }
}

fn cuzk_terms(lc: &LinearCombination<Scalar>) -> Vec<(Key, Scalar)> {
    lc.iter()
        .map(|(v, c)| {
            let key = match v.get_unchecked() {
                Index::Input(i) => (0, i),
                Index::Aux(i) => (1, i),
            };
            (key, *c)
        })
        .collect()
}

fn bp_terms(lc: &BpLc<Scalar>) -> Vec<(Key, Scalar)> {
    lc.iter()
        .map(|(v, c)| {
            let key = match v.get_unchecked() {
                BpIndex::Input(i) => (0, i),
                BpIndex::Aux(i) => (1, i),
            };
            (key, *c)
        })
        .collect()
}

impl ConstraintSystem<Scalar> for ShapeCs {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let [a, b, c] = [a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero())];
        self.record([cuzk_terms(&a), cuzk_terms(&b), cuzk_terms(&c)]);
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_witness_generator(&self) -> bool {
        false
    }
}

/// The same recorder seen as a bellpepper system (a separate type, because
/// both traits name their methods alike).
#[derive(Default)]
pub struct BpShapeCs(pub ShapeCs);

impl BpShapeCs {
    /// A system holding only the constant one.
    pub fn new() -> Self {
        BpShapeCs(ShapeCs::new())
    }
}

impl BpCs<Scalar> for BpShapeCs {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<BpVariable, BpError>
    where
        F: FnOnce() -> Result<Scalar, BpError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.aux += 1;
        Ok(BpVariable::new_unchecked(BpIndex::Aux(self.0.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<BpVariable, BpError>
    where
        F: FnOnce() -> Result<Scalar, BpError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.inputs += 1;
        Ok(BpVariable::new_unchecked(BpIndex::Input(self.0.inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(BpLc<Scalar>) -> BpLc<Scalar>,
        LB: FnOnce(BpLc<Scalar>) -> BpLc<Scalar>,
        LC: FnOnce(BpLc<Scalar>) -> BpLc<Scalar>,
    {
        let [a, b, c] = [a(BpLc::zero()), b(BpLc::zero()), c(BpLc::zero())];
        self.0.record([bp_terms(&a), bp_terms(&b), bp_terms(&c)]);
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
