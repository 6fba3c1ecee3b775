//! Witnesses and recordings computed in parts (`Circuit::split`) against
//! the same circuit in one piece: equal witnesses, traces and recordings for
//! any cut and any number of threads, and a wrong cut caught by name, never
//! joined.

use blstrs::Scalar;
use cuzk_synth::{Circuit, ConstraintSystem, ProvingAssignment, RecordedShape, Split, SynthesisError};
use ff::Field;
use proptest::prelude::*;

/// A prefix (a public seed x, y = x², z = x³) and blocks that use only the
/// prefix's y or z: block i allocates `sizes[i]` values in a chain from
/// y + i (z + i for odd i, so that some parts use a prefix variable the
/// first part does not), each squared plus one, and makes the last one
/// public.
#[derive(Clone, Debug)]
struct Blocks {
    seed: u64,
    sizes: Vec<usize>,
    /// Where the blocks begin counting (a part's first block's index).
    first: usize,
    /// How the circuit cuts itself.
    cut: Cut,
}

#[derive(Clone, Copy, Debug)]
enum Cut {
    /// Runs of consecutive blocks, as a circuit should.
    Runs,
    /// The same, but each part's prefix starts from another seed.
    ForeignPrefix,
    /// Runs with the last block left out.
    DropsLast,
    /// Never cuts.
    Whole,
}

impl Circuit<Scalar> for Blocks {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x_val = Scalar::from(self.seed);
        let x = cs.alloc_input(|| "x", || Ok(x_val))?;
        let y_val = x_val.square();
        let y = cs.alloc(|| "y", || Ok(y_val))?;
        cs.enforce(|| "y = x^2", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        let z_val = y_val * x_val;
        let z = cs.alloc(|| "z", || Ok(z_val))?;
        cs.enforce(|| "z = y x", |lc| lc + y, |lc| lc + x, |lc| lc + z);
        for (i, &size) in self.sizes.iter().enumerate() {
            let offset = Scalar::from((self.first + i) as u64);
            let (base, base_val) = if (self.first + i) % 2 == 1 { (z, z_val) } else { (y, y_val) };
            let (mut v, mut v_val) = (cs.alloc(|| "start", || Ok(base_val + offset))?, base_val + offset);
            cs.enforce(|| "start = base + i", |lc| lc + base + (offset, CS::one()), |lc| lc + CS::one(), |lc| lc + v);
            for _ in 1..size {
                let next_val = v_val.square() + Scalar::ONE;
                let next = cs.alloc(|| "next", || Ok(next_val))?;
                cs.enforce(|| "next = v^2 + 1", |lc| lc + v, |lc| lc + v, |lc| lc + next - CS::one());
                (v, v_val) = (next, next_val);
            }
            let out = cs.alloc_input(|| "out", || Ok(v_val))?;
            cs.enforce(|| "out = v", |lc| lc + v, |lc| lc + CS::one(), |lc| lc + out);
        }
        Ok(())
    }

    fn split(self, parts: usize) -> Result<Split<Self>, Self> {
        if matches!(self.cut, Cut::Whole) || parts < 2 {
            return Err(self);
        }
        let n = self.sizes.len();
        let per = n.div_ceil(parts).max(1);
        let end = if matches!(self.cut, Cut::DropsLast) { n.saturating_sub(1) } else { n };
        let seed = |k: usize| if matches!(self.cut, Cut::ForeignPrefix) && k > 0 { self.seed + 1 } else { self.seed };
        let parts = (0..end)
            .step_by(per)
            .enumerate()
            .map(|(k, start)| Blocks {
                seed: seed(k),
                sizes: self.sizes[start..(start + per).min(end)].to_vec(),
                first: start,
                cut: Cut::Whole,
            })
            .collect();
        Ok(Split { prefix: Blocks { seed: self.seed, sizes: Vec::new(), first: 0, cut: Cut::Whole }, parts })
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

fn circuit(seed: u64, sizes: &[usize], cut: Cut) -> Blocks {
    Blocks { seed, sizes: sizes.to_vec(), first: 0, cut }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Recorded whole, witnessed in parts on 1 to 6 threads: the same
    /// witness as classic synthesis, the recording's trace, every row held.
    #[test]
    fn parts_join_into_the_whole_witness(
        sizes in proptest::collection::vec(1usize..6, 0..12),
        threads in 1usize..7,
        seed in 2u64..1000,
    ) {
        let (shape, _) = RecordedShape::record(circuit(1, &sizes, Cut::Whole)).unwrap();
        let classic = ProvingAssignment::synthesize(circuit(seed, &sizes, Cut::Whole)).unwrap();
        let witness = pool(threads).install(|| shape.witness(circuit(seed, &sizes, Cut::Runs))).unwrap();
        prop_assert_eq!(&witness.inputs, &classic.input_assignment);
        prop_assert_eq!(&witness.aux, &classic.aux_assignment);
        prop_assert_eq!(shape.evaluate(witness).unwrap(), classic);
    }

    /// Recorded in parts on 1 to 6 threads: byte for byte the recording
    /// taken in one piece (matrices, coefficient table, densities, trace),
    /// and the classic assignment.
    #[test]
    fn parts_record_the_whole_shape(
        sizes in proptest::collection::vec(1usize..6, 0..12),
        threads in 1usize..7,
        seed in 2u64..1000,
    ) {
        let (whole, _) = RecordedShape::record(circuit(seed, &sizes, Cut::Whole)).unwrap();
        let (parts, assignment) = pool(threads).install(|| RecordedShape::record(circuit(seed, &sizes, Cut::Runs))).unwrap();
        prop_assert_eq!(parts.densities(), whole.densities());
        prop_assert_eq!(parts.coefficients(), whole.coefficients());
        prop_assert_eq!(parts.digest(), whole.digest());
        prop_assert_eq!(assignment, ProvingAssignment::synthesize(circuit(seed, &sizes, Cut::Whole)).unwrap());
    }
}

#[test]
fn a_recording_part_with_another_prefix_is_named() {
    let err = pool(4).install(|| RecordedShape::record(circuit(5, &[2, 3, 1, 4], Cut::ForeignPrefix))).unwrap_err();
    assert_eq!(err, SynthesisError::SplitMismatch { part: 1 });
}

#[test]
fn a_part_with_another_prefix_is_named() {
    let (shape, _) = RecordedShape::record(circuit(1, &[2, 3, 1, 4], Cut::Whole)).unwrap();
    let err = pool(4).install(|| shape.witness(circuit(5, &[2, 3, 1, 4], Cut::ForeignPrefix))).unwrap_err();
    assert_eq!(err, SynthesisError::SplitMismatch { part: 1 });
}

#[test]
fn a_cut_that_loses_a_block_fails_the_recording_checks() {
    let (shape, _) = RecordedShape::record(circuit(1, &[2, 3, 1, 4], Cut::Whole)).unwrap();
    let err = pool(4).install(|| shape.witness(circuit(5, &[2, 3, 1, 4], Cut::DropsLast))).unwrap_err();
    assert!(matches!(err, SynthesisError::ShapeMismatch { what: "the number of public inputs", .. }), "{err:?}");
}

#[test]
fn blocks_moved_between_parts_change_the_trace() {
    // Two blocks of sizes (1, 3) recorded; witnessed as (3, 1) the counts
    // agree but the allocations fall elsewhere between the constraints.
    let (shape, _) = RecordedShape::record(circuit(1, &[1, 3], Cut::Whole)).unwrap();
    let err = pool(2).install(|| shape.witness(circuit(5, &[3, 1], Cut::Runs))).unwrap_err();
    assert!(matches!(err, SynthesisError::ShapeMismatch { what: "the allocation trace", .. }), "{err:?}");
}
