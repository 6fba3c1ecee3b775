//! Recorded shapes and witnesses for the SpMV tests, shared by the host test
//! (the kernels' row code on the CPU) and the device test: random circuits
//! drawn by proptest, a shape with 32-bit coefficient indices, witnesses
//! that satisfy them or not, and the comparison with cuzk-synth's CPU
//! evaluation both use.

use blstrs::Scalar;
use cuzk_gpu::GpuError;
use cuzk_synth::recorded::CoeffIndexSlice;
use cuzk_synth::{Circuit, ConstraintSystem, LinearCombination, RecordedShape, SynthesisError, Variable, Witness};
use ff::Field;
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// A coefficient or a witness value as the strategies draw it: mostly the
/// values the kernels single out (zero, one, minus one).
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Zero,
    One,
    MinusOne,
    Small(u64),
    /// A full-width scalar: drawn from this seed for a coefficient (part of
    /// the shape), from the witness's stream for a value.
    Random(u64),
}

impl Value {
    fn coefficient(self) -> Scalar {
        match self {
            Value::Random(seed) => Scalar::random(ChaCha20Rng::seed_from_u64(seed)),
            other => other.value(&mut ChaCha20Rng::seed_from_u64(0)),
        }
    }

    fn value(self, rng: &mut ChaCha20Rng) -> Scalar {
        match self {
            Value::Zero => Scalar::ZERO,
            Value::One => Scalar::ONE,
            Value::MinusOne => -Scalar::ONE,
            Value::Small(v) => Scalar::from(v),
            Value::Random(_) => Scalar::random(rng),
        }
    }
}

/// A combination's terms: variables by position among those allocated so
/// far (modulo their number; position 0 is the constant one).
pub type Terms = Vec<(usize, Value)>;

/// `a · b = c + k · t` with `t` a fresh aux variable that makes it hold.
#[derive(Clone, Debug)]
pub struct Row {
    pub lcs: [Terms; 3],
    pub k: Value,
}

/// A circuit: inputs and aux variables of the given kinds, then the rows.
#[derive(Clone, Debug)]
pub struct Spec {
    pub inputs: Vec<Value>,
    pub aux: Vec<Value>,
    pub rows: Vec<Row>,
}

/// A circuit of `spec` whose witness values are drawn from `seed`.
#[derive(Clone, Debug)]
pub struct Random {
    pub spec: Spec,
    pub seed: u64,
}

impl Circuit<Scalar> for Random {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = ChaCha20Rng::seed_from_u64(self.seed);
        let mut vars: Vec<(Variable, Scalar)> = vec![(CS::one(), Scalar::ONE)];
        for kind in &self.spec.inputs {
            let v = kind.value(&mut rng);
            vars.push((cs.alloc_input(|| "input", || Ok(v))?, v));
        }
        for kind in &self.spec.aux {
            let v = kind.value(&mut rng);
            vars.push((cs.alloc(|| "aux", || Ok(v))?, v));
        }
        for row in &self.spec.rows {
            let picked = row.lcs.each_ref().map(|terms| {
                terms.iter().map(|&(i, c)| (vars[i % vars.len()], c.coefficient())).collect::<Vec<_>>()
            });
            let [va, vb, vc] = picked.each_ref().map(|t| t.iter().map(|((_, v), c)| *v * c).sum::<Scalar>());
            let k = row.k.coefficient();
            let t_value = (va * vb - vc) * k.invert().unwrap();
            let t = cs.alloc(|| "t", || Ok(t_value))?;
            vars.push((t, t_value));
            let add = |lc: LinearCombination<Scalar>, terms: &[((Variable, Scalar), Scalar)]| {
                terms.iter().fold(lc, |lc, &((var, _), c)| lc + (c, var))
            };
            let [a, b, c] = &picked;
            cs.enforce(|| "row", |lc| add(lc, a), |lc| add(lc, b), |lc| add(lc, c) + (k, t));
        }
        Ok(())
    }
}

/// Values drawn with these weights for zero, one, minus one, a small
/// integer and a random element.
fn weighted(w: [u32; 5]) -> impl Strategy<Value = Value> {
    prop_oneof![
        w[0] => Just(Value::Zero),
        w[1] => Just(Value::One),
        w[2] => Just(Value::MinusOne),
        w[3] => (2u64..6).prop_map(Value::Small),
        w[4] => any::<u64>().prop_map(Value::Random),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    weighted([3, 3, 1, 1, 2])
}

fn coefficient() -> impl Strategy<Value = Value> {
    weighted([1, 4, 3, 2, 2])
}

fn nonzero_coefficient() -> impl Strategy<Value = Value> {
    prop_oneof![Just(Value::One), Just(Value::MinusOne), (2u64..6).prop_map(Value::Small), any::<u64>().prop_map(Value::Random)]
}

/// Mostly a few terms; now and then a row of hundreds, as MultiEq packs.
fn terms() -> impl Strategy<Value = Terms> {
    prop_oneof![
        12 => prop::collection::vec((0usize..64, coefficient()), 0..6),
        1 => prop::collection::vec((0usize..64, coefficient()), 100..400),
    ]
}

fn row() -> impl Strategy<Value = Row> {
    (terms(), terms(), terms(), nonzero_coefficient()).prop_map(|(a, b, c, k)| Row { lcs: [a, b, c], k })
}

/// Random circuits of up to 3 inputs besides the one, 40 aux variables and 40 rows.
pub fn spec() -> impl Strategy<Value = Spec> {
    (prop::collection::vec(value(), 0..4), prop::collection::vec(value(), 0..40), prop::collection::vec(row(), 0..40))
        .prop_map(|(inputs, aux, rows)| Spec { inputs, aux, rows })
}

/// A circuit without constraints: the shape holds only the input rows.
pub fn inputs_only() -> Spec {
    Spec {
        inputs: vec![Value::Random(0), Value::One, Value::Zero],
        aux: vec![Value::One, Value::Zero, Value::Random(0)],
        rows: Vec::new(),
    }
}

/// y_i = k_i · x for `n` distinct k_i = i + 2: a coefficient table of n + 2
/// entries, so n ≥ 2^16 - 1 needs 32-bit indices.
#[derive(Clone, Debug)]
pub struct Scaled {
    pub n: u64,
    pub seed: u64,
}

impl Circuit<Scalar> for Scaled {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x_value = Scalar::random(ChaCha20Rng::seed_from_u64(self.seed));
        let x = cs.alloc(|| "x", || Ok(x_value))?;
        for i in 0..self.n {
            let k = Scalar::from(i + 2);
            let y = cs.alloc(|| "y", || Ok(k * x_value))?;
            cs.enforce(|| "y = k x", |lc| lc + (k, x), |lc| lc + CS::one(), |lc| lc + y);
        }
        Ok(())
    }
}

/// Records `circuit`; returns the shape and its witness.
pub fn record<C: Circuit<Scalar> + Send>(circuit: C) -> (RecordedShape<Scalar>, Witness<Scalar>) {
    let (shape, pa) = RecordedShape::record(circuit).unwrap();
    let witness = Witness { inputs: pa.input_assignment, aux: pa.aux_assignment };
    (shape, witness)
}

/// Whether the shape's coefficient indices are 32-bit.
pub fn is_wide(shape: &RecordedShape<Scalar>) -> bool {
    matches!(shape.a().coeff_indices(), CoeffIndexSlice::Wide(_))
}

/// The witness as given, all zeros, one aux value off by one (when there is
/// one), and every aux value a random bit: satisfying and unsatisfying
/// witnesses, the zero and bit fast paths.
pub fn variants(w: &Witness<Scalar>, rng: &mut ChaCha20Rng) -> Vec<(&'static str, Witness<Scalar>)> {
    let zero = Witness { inputs: vec![Scalar::ZERO; w.inputs.len()], aux: vec![Scalar::ZERO; w.aux.len()] };
    let mut tampered = w.clone();
    if !tampered.aux.is_empty() {
        let i = (rng.next_u64() % tampered.aux.len() as u64) as usize;
        tampered.aux[i] += Scalar::ONE;
    }
    let mut bits = w.clone();
    for v in &mut bits.aux {
        *v = Scalar::from(rng.next_u64() & 1);
    }
    vec![("given", w.clone()), ("zero", zero), ("tampered", tampered), ("bits", bits)]
}

/// Compares an evaluation with cuzk-synth's CPU one: equal a, b, c, or the
/// same lowest unsatisfied row as a typed error.
pub fn check(shape: &RecordedShape<Scalar>, w: &Witness<Scalar>, got: Result<[Vec<Scalar>; 3], GpuError>) -> Result<(), String> {
    match (shape.evaluate(w.clone()), got) {
        (Ok(pa), Ok([a, b, c])) => {
            for (name, want, got) in [("a", &pa.a, &a), ("b", &pa.b, &b), ("c", &pa.c, &c)] {
                if want != got {
                    let row = want.iter().zip(got).position(|(x, y)| x != y);
                    return Err(format!("{name} differs (lengths {} and {}, first row {row:?})", want.len(), got.len()));
                }
            }
            Ok(())
        }
        (Err(SynthesisError::UnsatisfiedConstraint(want)), Err(GpuError::UnsatisfiedConstraint { row })) if want == row => {
            Ok(())
        }
        (want, got) => Err(format!("the CPU gives {:?}, this {:?}", want.map(|_| "a, b, c"), got.map(|_| "a, b, c"))),
    }
}
