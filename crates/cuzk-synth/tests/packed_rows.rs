//! The solver's packed-row rule (`MultiEq` rows solved a segment at a time)
//! against the gadgets, on random chains of 32-bit additions that share
//! one `MultiEq`: later sums add XORs, rotations, complements (`Not` bits:
//! negative coefficients) and the earlier sums themselves, as SHA-256 does.
//! The plan must free only the allocated words' bits, and its replay must
//! equal the gadgets' witness; a flipped free bit must not prove.

use blstrs::Scalar;
use cuzk_synth::gadgets::{MultiEq, UInt32};
use cuzk_synth::recorded::Rule;
use cuzk_synth::{Circuit, ConstraintSystem, RecordedShape, SynthesisError, Witness};
use proptest::prelude::*;

/// How a step's operand is made from earlier words.
#[derive(Clone, Copy, Debug)]
enum Operand {
    Word(usize),
    Xor(usize, usize),
    Rotr(usize, usize),
    Complement(usize),
    Constant(u32),
}

#[derive(Clone, Debug)]
struct Sums {
    words: Vec<u32>,
    /// Each step adds its operands into a new word.
    steps: Vec<Vec<Operand>>,
}

impl Circuit<Scalar> for Sums {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut words = Vec::new();
        for (i, &w) in self.words.iter().enumerate() {
            words.push(UInt32::alloc(cs.namespace(|| format!("word {i}")), Some(w))?);
        }
        let mut meq = MultiEq::new(cs.namespace(|| "sums"));
        for (s, step) in self.steps.iter().enumerate() {
            let mut operands = Vec::new();
            for (k, op) in step.iter().enumerate() {
                let mut cs = meq.namespace(|| format!("step {s} operand {k}"));
                let pick = |i: usize| &words[i % words.len()];
                operands.push(match *op {
                    Operand::Word(i) => *pick(i),
                    Operand::Xor(i, j) => pick(i).xor(&mut cs, pick(j))?,
                    Operand::Rotr(i, by) => pick(i).rotr(by % 32),
                    Operand::Complement(i) => pick(i).xor(&mut cs, &UInt32::constant(u32::MAX))?,
                    Operand::Constant(c) => UInt32::constant(c),
                });
            }
            let sum = UInt32::addmany(meq.namespace(|| format!("step {s}")), &operands)?;
            words.push(sum);
        }
        Ok(())
    }
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        (0usize..64).prop_map(Operand::Word),
        (0usize..64, 0usize..64).prop_map(|(i, j)| Operand::Xor(i, j)),
        (0usize..64, 0usize..32).prop_map(|(i, by)| Operand::Rotr(i, by)),
        (0usize..64).prop_map(Operand::Complement),
        any::<u32>().prop_map(Operand::Constant),
    ]
}

fn sums() -> impl Strategy<Value = Sums> {
    (
        proptest::collection::vec(any::<u32>(), 1..4),
        // Two to six operands, so a sum is never only constants.
        proptest::collection::vec((0usize..64, proptest::collection::vec(operand(), 1..6)), 1..12),
    )
        .prop_map(|(words, steps)| Sums {
            words,
            steps: steps.into_iter().map(|(w, mut ops)| {
                ops.insert(0, Operand::Word(w));
                ops
            }).collect(),
        })
}

fn free_values(steps: &[(u32, Rule)], w: &Witness<Scalar>) -> Vec<Scalar> {
    steps.iter().filter(|(_, r)| *r == Rule::Free).map(|&(v, _)| w.aux[v as usize]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn packed_sums_replay_from_the_words_bits(circuit in sums(), flip in any::<prop::sample::Index>()) {
        let shape = RecordedShape::<Scalar>::record_shape(circuit.clone()).unwrap();
        let plan = shape.solve_plan();
        prop_assert_eq!(plan.summary.free, 32 * circuit.words.len(), "{:?}", plan.summary);
        let w = shape.witness(circuit).unwrap();
        let mut free = free_values(&plan.steps, &w);
        let replayed = shape.replay(&plan, w.inputs.clone(), &free).unwrap();
        prop_assert!(replayed == w, "the replay differs from the gadgets' witness");
        shape.evaluate(replayed).unwrap();

        let i = flip.index(free.len());
        free[i] = Scalar::from(1u64) - free[i];
        // A flipped bit changes the words, so the witness differs; it may
        // still satisfy every row (the words are free), but it must never
        // equal the gadgets' witness, and a packed sum it breaks is an error.
        match shape.replay(&plan, w.inputs.clone(), &free) {
            Err(e) => prop_assert!(matches!(e, SynthesisError::Replay(_)), "{}", e),
            Ok(other) => prop_assert!(other != w),
        }
    }
}

