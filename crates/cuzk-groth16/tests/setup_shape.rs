//! The setup from a recorded shape against the setup from the circuit:
//! the same scalars and byte-identical parameters for the same toxic waste,
//! over random small circuits (proptest prints the failing case), and the
//! edges: inputs only, no constraint of the circuit's own, a variable in no
//! A or B entry (its a or b point omitted), terms that cancel, an
//! unconstrained variable (both paths refuse it alike).

use blstrs::Scalar;
use cuzk_groth16::{
    generate_parameters, generate_parameters_from_shape, CpuFixedBase, Parameters, SetupScalars, ToxicWaste,
};
use cuzk_synth::recorded::RecordedShape;
use cuzk_synth::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use ff::Field;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A variable of [`Random`]: the one, an input or a private variable (indices
/// taken modulo the counts, so any index is valid).
#[derive(Clone, Copy, Debug)]
enum Var {
    One,
    Input(usize),
    Aux(usize),
}

/// A coefficient of [`Random`]: the kinds a recording treats apart.
#[derive(Clone, Copy, Debug)]
enum Coeff {
    Zero,
    One,
    MinusOne,
    Small(u64),
    Random(u64),
}

impl Coeff {
    fn value(self) -> Scalar {
        match self {
            Coeff::Zero => Scalar::ZERO,
            Coeff::One => Scalar::ONE,
            Coeff::MinusOne => -Scalar::ONE,
            Coeff::Small(v) => Scalar::from(v),
            Coeff::Random(seed) => Scalar::random(ChaCha8Rng::seed_from_u64(seed)),
        }
    }
}

type Terms = Vec<(Var, Coeff)>;

/// A circuit of random constraints; each private variable has an anchor
/// constraint putting it in A, B or C alone (or nowhere), so most draws are
/// constrained and the edges are drawn often.
#[derive(Clone, Debug)]
struct Random {
    inputs: usize,
    aux: usize,
    anchors: Vec<u8>,
    constraints: Vec<[Terms; 3]>,
}

impl Circuit<Scalar> for Random {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let inputs: Vec<Variable> =
            (0..self.inputs).map(|i| cs.alloc_input(|| "in", || Ok(Scalar::from(i as u64 + 2)))).collect::<Result<_, _>>()?;
        let aux: Vec<Variable> =
            (0..self.aux).map(|i| cs.alloc(|| "aux", || Ok(Scalar::from(i as u64 + 9)))).collect::<Result<_, _>>()?;
        let var = |v: Var| match v {
            Var::One => Some(CS::one()),
            Var::Input(i) => (!inputs.is_empty()).then(|| inputs[i % inputs.len()]),
            Var::Aux(i) => (!aux.is_empty()).then(|| aux[i % aux.len()]),
        };
        let add = |mut lc: LinearCombination<Scalar>, terms: &Terms| {
            for &(v, c) in terms {
                if let Some(v) = var(v) {
                    lc = lc + (c.value(), v);
                }
            }
            lc
        };
        for [a, b, c] in &self.constraints {
            cs.enforce(|| "random", |lc| add(lc, a), |lc| add(lc, b), |lc| add(lc, c));
        }
        for (x, anchor) in aux.iter().zip(&self.anchors) {
            let x = *x;
            match anchor % 4 {
                0 => cs.enforce(|| "in A", |lc| lc + x, |lc| lc + CS::one(), |lc| lc),
                1 => cs.enforce(|| "in B", |lc| lc + CS::one(), |lc| lc + x, |lc| lc),
                2 => cs.enforce(|| "in C", |lc| lc, |lc| lc, |lc| lc + x),
                _ => {}
            }
        }
        Ok(())
    }
}

fn var() -> impl Strategy<Value = Var> {
    prop_oneof![Just(Var::One), (0..8usize).prop_map(Var::Input), (0..32usize).prop_map(Var::Aux)]
}

fn coeff() -> impl Strategy<Value = Coeff> {
    prop_oneof![
        1 => Just(Coeff::Zero),
        3 => Just(Coeff::One),
        2 => Just(Coeff::MinusOne),
        2 => (2..5u64).prop_map(Coeff::Small),
        2 => any::<u64>().prop_map(Coeff::Random),
    ]
}

fn terms() -> impl Strategy<Value = Terms> {
    prop::collection::vec((var(), coeff()), 0..4)
}

fn circuit() -> impl Strategy<Value = Random> {
    (0..4usize, 0..12usize, prop::collection::vec([terms(), terms(), terms()], 0..24)).prop_flat_map(
        |(inputs, aux, constraints)| {
            // Mostly anchored (0..=2), sometimes left out (3): unconstrained
            // unless a random constraint uses it.
            let anchors = prop::collection::vec(prop_oneof![12 => 0..3u8, 1 => Just(3u8)], aux);
            (Just(inputs), Just(aux), anchors, Just(constraints))
        },
    )
    .prop_map(|(inputs, aux, anchors, constraints)| Random { inputs, aux, anchors, constraints })
}

fn bytes(p: &Parameters) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).unwrap();
    out
}

fn toxic(seed: u64) -> ToxicWaste {
    ToxicWaste::random(&mut ChaCha8Rng::seed_from_u64(seed))
}

/// Both paths' parameters, or both errors, as comparable values.
fn both(circuit: Random, t: &ToxicWaste) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let shape = RecordedShape::record_shape(circuit.clone()).unwrap();
    let from_circuit = generate_parameters(circuit, t, None).map(|p| bytes(&p)).map_err(|e| e.to_string());
    let from_shape =
        generate_parameters_from_shape(&shape, t, &CpuFixedBase, None).map(|p| bytes(&p)).map_err(|e| e.to_string());
    (from_circuit, from_shape)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn shape_setup_equals_circuit_setup(circuit in circuit(), seed in any::<u64>()) {
        let (from_circuit, from_shape) = both(circuit, &toxic(seed));
        prop_assert_eq!(from_circuit, from_shape);
    }

    #[test]
    fn shape_scalars_equal_circuit_scalars(circuit in circuit(), seed in any::<u64>()) {
        let t = toxic(seed);
        let shape = RecordedShape::record_shape(circuit.clone()).unwrap();
        let from_circuit = SetupScalars::from_circuit(circuit, &t).map_err(|e| e.to_string());
        let from_shape = SetupScalars::from_shape(&shape, &t).map_err(|e| e.to_string());
        prop_assert_eq!(from_circuit, from_shape);
    }
}

fn check(circuit: Random, expect_ok: bool) -> Vec<u8> {
    let (from_circuit, from_shape) = both(circuit.clone(), &toxic(7));
    assert_eq!(from_circuit, from_shape, "{circuit:?}");
    assert_eq!(from_circuit.is_ok(), expect_ok, "{from_circuit:?}");
    from_circuit.unwrap_or_default()
}

fn counts(bytes: Vec<u8>) -> cuzk_groth16::BaseCounts {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    Parameters::read(file.path(), cuzk_groth16::PointChecks::Subgroup).unwrap().counts()
}

#[test]
fn inputs_only() {
    let c = Random { inputs: 3, aux: 0, anchors: vec![], constraints: vec![] };
    let n = counts(check(c, true));
    // 4 rows (the one and 3 inputs) in a domain of 4: h has 3 points; each input is in A once.
    assert_eq!((n.h, n.l, n.a, n.b), (3, 0, 4, 0));
}

#[test]
fn variables_in_no_a_or_b_entry_have_no_a_or_b_point() {
    // aux 0 in A only, aux 1 in B only, aux 2 in C only.
    let c = Random { inputs: 1, aux: 3, anchors: vec![0, 1, 2], constraints: vec![] };
    let n = counts(check(c, true));
    // A: the one, the input (their input rows) and aux 0; B: the one (aux 1's anchor) and aux 1.
    assert_eq!((n.l, n.a, n.b), (3, 3, 2));
}

#[test]
fn cancelling_terms_are_a_zero_polynomial() {
    let cancel = vec![(Var::Aux(0), Coeff::One), (Var::Aux(0), Coeff::MinusOne)];
    let merge = vec![(Var::Aux(0), Coeff::Small(3)), (Var::Aux(0), Coeff::Small(2))];
    let c = Random { inputs: 0, aux: 1, anchors: vec![2], constraints: vec![[cancel.clone(), cancel, merge]] };
    let n = counts(check(c, true));
    // aux 0 cancels in A and B: only the one's input row is in A, nothing in B.
    assert_eq!((n.a, n.b), (1, 0));
}

#[test]
fn unconstrained_variables_are_refused_by_both() {
    let c = Random { inputs: 1, aux: 2, anchors: vec![0, 3], constraints: vec![] };
    check(c, false);
}
