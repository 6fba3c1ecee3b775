//! Witnesses replayed from the rows block by block (`Circuit::take_block_values`)
//! against the gadgets' witness of the same circuit: equal on any pool, and
//! wrong or missing block values caught, never proved.

use std::sync::Arc;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk_synth::gadgets::{multipack, AllocatedBit, Boolean};
use cuzk_synth::{BlockValues, Circuit, ConstraintSystem, RecordedShape, Split, SynthesisError, WitnessPass};
use ff::Field;
use proptest::prelude::*;

/// A prefix (a public seed x, y = x²) and blocks of one shape: block i has
/// a free value s (its "sibling"), t = s · y, u = t² + x, the low byte of
/// its index as eight bits packed into a public input, and u public.
#[derive(Clone, Debug)]
struct Sectors {
    seed: u64,
    /// One free value per block.
    siblings: Vec<u64>,
    /// The index of the first block (a part's).
    first: usize,
    /// What `take_block_values` says.
    values: Values,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Values {
    /// None: the gadgets run.
    None,
    /// The right values.
    Right,
    /// Block 1's free value off by one.
    WrongFree,
    /// Block 0 without its free value.
    MissingFree,
    /// One block too few.
    MissingBlock,
}

impl Sectors {
    fn new(seed: u64, siblings: &[u64], values: Values) -> Self {
        Sectors { seed, siblings: siblings.to_vec(), first: 0, values }
    }

    fn x(&self) -> Scalar {
        Scalar::from(self.seed)
    }

    /// Block i's public inputs and u.
    fn outputs(&self, i: usize, s: u64) -> (Scalar, Scalar) {
        let t = Scalar::from(s) * self.x().square();
        (Scalar::from(((self.first + i) & 0xff) as u64), t.square() + self.x())
    }
}

impl Circuit<Scalar> for Sectors {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x_val = self.x();
        let x = cs.alloc_input(|| "x", || Ok(x_val))?;
        let y = cs.alloc(|| "y", || Ok(x_val.square()))?;
        cs.enforce(|| "y = x^2", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        for (i, &s_val) in self.siblings.iter().enumerate() {
            let s = cs.alloc(|| "s", || Ok(Scalar::from(s_val)))?;
            let t_val = Scalar::from(s_val) * x_val.square();
            let t = cs.alloc(|| "t", || Ok(t_val))?;
            cs.enforce(|| "t = s y", |lc| lc + s, |lc| lc + y, |lc| lc + t);
            let (_, u_val) = self.outputs(i, s_val);
            let u = cs.alloc(|| "u", || Ok(u_val))?;
            cs.enforce(|| "u = t^2 + x", |lc| lc + t, |lc| lc + t, |lc| lc + u - x);
            let index = (self.first + i) as u64;
            let bits: Vec<Boolean> = (0..8)
                .map(|b| AllocatedBit::alloc(cs.namespace(|| format!("bit {b}")), Some(index >> b & 1 == 1)).map(Boolean::from))
                .collect::<Result<_, _>>()?;
            // The byte's input is allocated by the packing, as filecoin-proofs packs a challenge.
            multipack::pack_into_inputs(cs.namespace(|| "byte"), &bits)?;
            let out = cs.alloc_input(|| "u", || Ok(u_val))?;
            cs.enforce(|| "out = u", |lc| lc + u, |lc| lc + CS::one(), |lc| lc + out);
        }
        Ok(())
    }

    fn split(self, parts: usize) -> Result<Split<Self>, Self> {
        let n = self.siblings.len();
        let per = n.div_ceil(parts.max(1)).max(1);
        let part = |start: usize| Sectors {
            siblings: self.siblings[start..(start + per).min(n)].to_vec(),
            first: start,
            values: Values::None,
            ..self.clone()
        };
        let parts = (0..n).step_by(per).map(part).collect();
        Ok(Split { prefix: Sectors { siblings: Vec::new(), values: Values::None, ..self.clone() }, parts })
    }

    fn take_block_values(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        let mut blocks: Vec<BlockValues<Scalar>> = self
            .siblings
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let (byte, u) = self.outputs(i, s);
                BlockValues { inputs: vec![byte, u], free: vec![Scalar::from(s)] }
            })
            .collect();
        match self.values {
            Values::None => return None,
            Values::Right => {}
            Values::WrongFree => blocks[1].free[0] += Scalar::ONE,
            Values::MissingFree => blocks[0].free.clear(),
            Values::MissingBlock => drop(blocks.pop()),
        }
        Some(blocks)
    }
}

/// The same circuit as one that does not cut: it gives its values as one
/// block, the seed and each block's inputs, then every free value.
#[derive(Clone, Debug)]
struct Whole(Sectors);

impl Circuit<Scalar> for Whole {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.0.synthesize(cs)
    }

    fn take_block_values(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        let mut whole = BlockValues { inputs: vec![self.0.x()], free: Vec::new() };
        for block in self.0.take_block_values()? {
            whole.inputs.extend(block.inputs);
            whole.free.extend(block.free);
        }
        Some(vec![whole])
    }
}

/// A circuit that does not cut but gives its values as blocks.
struct Uncut(Sectors);

impl Circuit<Scalar> for Uncut {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.0.synthesize(cs)
    }

    fn take_block_values(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        self.0.take_block_values()
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Replayed on 1 to 6 threads: the gadgets' witness, every row held.
    #[test]
    fn blocks_replay_to_the_gadgets_witness(
        siblings in proptest::collection::vec(0u64..1 << 40, 1..40),
        seed in 2u64..1000,
        threads in 1usize..7,
    ) {
        let shape = RecordedShape::record_shape(Sectors::new(1, &siblings, Values::None)).unwrap();
        let (gadgets, how) = shape.witness_pass(Sectors::new(seed, &siblings, Values::None)).unwrap();
        prop_assert_eq!(how, WitnessPass::Gadgets);
        let (replayed, how) = pool(threads).install(|| shape.witness_pass(Sectors::new(seed, &siblings, Values::Right))).unwrap();
        prop_assert_eq!(how, WitnessPass::Replay);
        prop_assert_eq!(&replayed, &gadgets);
        shape.evaluate(replayed).unwrap();
    }

    /// The circuit as one uncut block, replayed on 1 to 6 threads (it
    /// takes one): the gadgets' witness, every row held.
    #[test]
    fn an_uncut_circuit_replays_as_one_block(
        siblings in proptest::collection::vec(0u64..1 << 40, 0..40),
        seed in 2u64..1000,
        threads in 1usize..7,
    ) {
        let whole = |values| Whole(Sectors::new(seed, &siblings, values));
        let shape = RecordedShape::record_shape(Whole(Sectors::new(1, &siblings, Values::None))).unwrap();
        let (gadgets, how) = shape.witness_pass(whole(Values::None)).unwrap();
        prop_assert_eq!(how, WitnessPass::Gadgets);
        let (replayed, how) = pool(threads).install(|| shape.witness_pass(whole(Values::Right))).unwrap();
        prop_assert_eq!(how, WitnessPass::Replay);
        prop_assert_eq!(&replayed, &gadgets);
        shape.evaluate(replayed).unwrap();
    }
}

/// Shared by the partitions, an uncut circuit's shape does not hold the
/// first witness back for its plan: that witness runs the gadgets while a
/// thread of its own makes the plan, and a later one replays; all equal.
#[test]
fn a_shared_uncut_shape_plans_aside() {
    let siblings: Vec<u64> = (1..300).collect();
    let whole = |values| Whole(Sectors::new(9, &siblings, values));
    let shape = Arc::new(RecordedShape::record_shape(whole(Values::None)).unwrap());
    let (want, _) = shape.witness_pass(whole(Values::None)).unwrap();
    let (first, how) = shape.shared_witness_pass(whole(Values::Right)).unwrap();
    assert_eq!(how, WitnessPass::Gadgets);
    assert_eq!(first, want);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (w, how) = shape.shared_witness_pass(whole(Values::Right)).unwrap();
        assert_eq!(w, want);
        if how == WitnessPass::Replay {
            break;
        }
        assert!(Instant::now() < deadline, "the plan made aside was not ready within a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
    // A shape that is not shared waits for its plan (made already here).
    assert_eq!(shape.witness_pass(whole(Values::Right)).unwrap().1, WitnessPass::Replay);
}

#[test]
fn an_uncut_circuit_with_wrong_values_fails() {
    let siblings = [3, 5, 7];
    let whole = |values| Whole(Sectors::new(9, &siblings, values));
    let shape = RecordedShape::record_shape(whole(Values::None)).unwrap();
    let w = shape.witness(whole(Values::WrongFree)).unwrap();
    assert!(matches!(shape.evaluate(w), Err(SynthesisError::UnsatisfiedConstraint(_))));
    let err = shape.witness(whole(Values::MissingFree)).unwrap_err();
    assert!(err.to_string().contains("block 0: 2 free values given, the plan has 3"), "{err}");
    let err = shape.witness(whole(Values::MissingBlock)).unwrap_err();
    assert!(err.to_string().contains("block 0 gives 5 inputs, its rows have 7"), "{err}");
    let err = shape.witness(Uncut(Sectors::new(9, &siblings, Values::Right))).unwrap_err();
    assert!(err.to_string().contains("a circuit that does not cut gives its values as one block, not 3"), "{err}");
}

#[test]
fn a_wrong_free_value_fails_the_rows() {
    let siblings = [3, 5, 7];
    let shape = RecordedShape::record_shape(Sectors::new(1, &siblings, Values::None)).unwrap();
    let w = shape.witness(Sectors::new(9, &siblings, Values::WrongFree)).unwrap();
    assert!(matches!(shape.evaluate(w), Err(SynthesisError::UnsatisfiedConstraint(_))));
}

#[test]
fn missing_values_are_named() {
    let siblings = [3, 5, 7];
    let shape = RecordedShape::record_shape(Sectors::new(1, &siblings, Values::None)).unwrap();
    let err = shape.witness(Sectors::new(9, &siblings, Values::MissingFree)).unwrap_err();
    assert!(err.to_string().contains("block 0: 0 free values given, the plan has 1"), "{err}");
    let err = shape.witness(Sectors::new(9, &siblings, Values::MissingBlock)).unwrap_err();
    assert!(err.to_string().contains("do not make 2 equal blocks"), "{err}");
}
