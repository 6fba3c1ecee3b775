//! Recorded synthesis against classic synthesis: equal assignments on random
//! circuits and on both workloads, file round trips and every kind of bad
//! file, and circuits or witnesses that do not fit their recording.

use blstrs::Scalar;
use cuzk_synth::gadgets::{MultiEq, UInt32};
use cuzk_synth::recorded::{MAGIC, VERSION};
use cuzk_synth::workloads::{MulChain, Sha256Chain};
use cuzk_synth::{
    Circuit, ConstraintSystem, LinearCombination, ProvingAssignment, RecordedShape, SynthesisError, Variable,
};
use ff::Field;
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};

/// Records `make(0)`, then checks against classic synthesis: the recording
/// pass's own assignment, the recorded path for other witnesses, both halves
/// apart, and the same after a file round trip.
fn check_equivalent<C: Circuit<Scalar> + Send>(make: impl Fn(u64) -> C) -> RecordedShape<Scalar> {
    let (shape, recorded) = RecordedShape::record(make(0)).unwrap();
    assert_eq!(recorded, ProvingAssignment::synthesize(make(0)).unwrap());
    assert_eq!(shape.num_constraints(), recorded.num_constraints());
    assert_eq!((shape.num_inputs(), shape.num_aux()), (recorded.num_inputs(), recorded.num_aux()));
    let mut file = Vec::new();
    shape.write_to(&mut file).unwrap();
    let read = RecordedShape::<Scalar>::read_from(&file[..]).unwrap();
    assert_eq!(read.digest(), shape.digest());
    for seed in 1..3 {
        let classic = ProvingAssignment::synthesize(make(seed)).unwrap();
        assert_eq!(shape.synthesize(make(seed)).unwrap(), classic);
        let witness = read.witness(make(seed)).unwrap();
        assert_eq!((&witness.inputs, &witness.aux), (&classic.input_assignment, &classic.aux_assignment));
        assert_eq!(read.evaluate(witness).unwrap(), classic);
    }
    shape
}

/// A coefficient as the strategy draws it: the special values and others.
#[derive(Clone, Debug)]
enum Coeff {
    Zero,
    One,
    MinusOne,
    Small(u64),
    Random(u64),
}

impl Coeff {
    fn value(&self) -> Scalar {
        match self {
            Coeff::Zero => Scalar::ZERO,
            Coeff::One => Scalar::ONE,
            Coeff::MinusOne => -Scalar::ONE,
            Coeff::Small(v) => Scalar::from(*v),
            Coeff::Random(seed) => Scalar::random(ChaCha20Rng::seed_from_u64(*seed)),
        }
    }
}

/// Terms name variables by position among those allocated so far (modulo
/// their number; position 0 is the constant one).
type Terms = Vec<(usize, Coeff)>;

#[derive(Clone, Debug)]
enum Op {
    Aux,
    Input,
    /// `a · b = c + k · t`, with `t` a fresh aux variable that makes it hold.
    Enforce { a: Terms, b: Terms, c: Terms, k: Coeff },
}

/// A random circuit whose shape is `ops` and whose witness is drawn from `seed`.
#[derive(Clone, Debug)]
struct RandomCircuit {
    ops: Vec<Op>,
    seed: u64,
}

impl Circuit<Scalar> for RandomCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = ChaCha20Rng::seed_from_u64(self.seed);
        let mut vars = vec![(CS::one(), Scalar::ONE)];
        let lc_of = |terms: &Terms, vars: &[(Variable, Scalar)]| {
            let picked: Vec<(Variable, Scalar, Scalar)> = terms
                .iter()
                .map(|(i, c)| (vars[i % vars.len()].0, vars[i % vars.len()].1, c.value()))
                .collect();
            let value = picked.iter().map(|(_, v, c)| *v * c).sum::<Scalar>();
            (picked, value)
        };
        for op in &self.ops {
            match op {
                Op::Aux => {
                    let v = Scalar::random(&mut rng);
                    vars.push((cs.alloc(|| "aux", || Ok(v))?, v));
                }
                Op::Input => {
                    let v = Scalar::random(&mut rng);
                    vars.push((cs.alloc_input(|| "input", || Ok(v))?, v));
                }
                Op::Enforce { a, b, c, k } => {
                    let ((a, va), (b, vb), (c, vc)) = (lc_of(a, &vars), lc_of(b, &vars), lc_of(c, &vars));
                    let k = k.value();
                    let t_value = (va * vb - vc) * k.invert().unwrap();
                    let t = cs.alloc(|| "t", || Ok(t_value))?;
                    vars.push((t, t_value));
                    let build = |terms: Vec<(Variable, Scalar, Scalar)>| {
                        move |lc: cuzk_synth::LinearCombination<Scalar>| {
                            terms.iter().fold(lc, |lc, &(var, _, coeff)| lc + (coeff, var))
                        }
                    };
                    let c_build = build(c);
                    cs.enforce(|| "random", build(a), build(b), |lc| c_build(lc) + (k, t));
                }
            }
        }
        Ok(())
    }
}

fn coeff() -> impl Strategy<Value = Coeff> {
    prop_oneof![
        2 => Just(Coeff::Zero),
        4 => Just(Coeff::One),
        3 => Just(Coeff::MinusOne),
        2 => (2u64..6).prop_map(Coeff::Small),
        2 => any::<u64>().prop_map(Coeff::Random),
    ]
}

fn nonzero_coeff() -> impl Strategy<Value = Coeff> {
    prop_oneof![Just(Coeff::One), Just(Coeff::MinusOne), (2u64..6).prop_map(Coeff::Small)]
}

fn terms() -> impl Strategy<Value = Terms> {
    // Few positions, so variables repeat within a combination.
    prop::collection::vec((0usize..8, coeff()), 0..6)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Aux),
        1 => Just(Op::Input),
        4 => (terms(), terms(), terms(), nonzero_coeff()).prop_map(|(a, b, c, k)| Op::Enforce { a, b, c, k }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_circuits_synthesize_as_the_classic_path(ops in prop::collection::vec(op(), 0..40)) {
        check_equivalent(|seed| RandomCircuit { ops: ops.clone(), seed });
    }
}

/// Sums of words packed into one `MultiEq`, enough to fill several packed
/// constraints, and a caller equality: the witness-only pass builds none of
/// their terms, yet must allocate and enforce exactly where classic
/// synthesis does. Which words are constants is the shape; the values of
/// the others are the witness.
#[derive(Clone, Debug)]
struct Sums {
    constant: Vec<bool>,
    rounds: usize,
    seed: u64,
}

impl Circuit<Scalar> for Sums {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = ChaCha20Rng::seed_from_u64(self.seed);
        let mut words = Vec::with_capacity(self.constant.len());
        for (i, &constant) in self.constant.iter().enumerate() {
            words.push(if constant {
                UInt32::constant(0x9e37_79b9u32.wrapping_mul(i as u32 + 1))
            } else {
                UInt32::alloc(cs.namespace(|| format!("word {i}")), Some(rng.next_u32()))?
            });
        }
        let x_value = Scalar::from(rng.next_u64());
        let x = cs.alloc(|| "x", || Ok(x_value))?;
        let mut meq = MultiEq::new(cs.namespace(|| "sums"));
        for r in 0..self.rounds {
            let sum = UInt32::addmany(meq.namespace(|| format!("sum {r}")), &words)?;
            words.rotate_left(1);
            words[0] = sum;
        }
        let lhs = LinearCombination::zero() + x + x;
        let rhs = LinearCombination::zero() + (Scalar::from(2), x);
        meq.enforce_equal(66, &lhs, &rhs);
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn packed_sums_synthesize_as_the_classic_path(
        constant in prop::collection::vec(any::<bool>(), 2..=10),
        rounds in 1usize..12,
    ) {
        check_equivalent(|seed| Sums { constant: constant.clone(), rounds, seed });
    }
}

#[test]
fn workloads_synthesize_as_the_classic_path() {
    for n in 1..=2 {
        let shape = check_equivalent(|seed| Sha256Chain::new(n, seed));
        println!("sha256 N={n}: {shape:?}, {} heap bytes", shape.heap_bytes());
    }
    let shape = check_equivalent(|seed| MulChain::<Scalar>::new(1 << 8, seed));
    // Three one-term rows and B's two terms per step, plus the input rows.
    assert_eq!(shape.nnz(), 4 * 256 + 2);
    assert_eq!(shape.coefficients().len(), 3);
}

fn small_file() -> Vec<u8> {
    let (shape, _) = RecordedShape::record(MulChain::<Scalar>::new(4, 1)).unwrap();
    let mut file = Vec::new();
    shape.write_to(&mut file).unwrap();
    file
}

fn read(bytes: &[u8]) -> Result<RecordedShape<Scalar>, SynthesisError> {
    RecordedShape::read_from(bytes)
}

/// Replaces the checksum with the right one for the (altered) contents.
fn resum(file: &mut [u8]) {
    let n = file.len() - 32;
    let sum: [u8; 32] = Sha256::digest(&file[..n]).into();
    file[n..].copy_from_slice(&sum);
}

#[test]
fn files_round_trip_through_save_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mul-chain-4.rcs");
    let (shape, _) = RecordedShape::record(MulChain::<Scalar>::new(4, 1)).unwrap();
    shape.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), small_file());
    let loaded = RecordedShape::<Scalar>::load(&path).unwrap();
    assert_eq!(loaded.digest(), shape.digest());
    let circuit = MulChain::<Scalar>::new(4, 9);
    assert_eq!(loaded.synthesize(circuit.clone()).unwrap(), ProvingAssignment::synthesize(circuit).unwrap());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
    assert!(matches!(
        RecordedShape::<Scalar>::load(&dir.path().join("absent")),
        Err(SynthesisError::RecordingIo(_))
    ));
}

#[test]
fn a_killed_saves_temporary_is_removed_and_a_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mul-chain-4.rcs");
    // What a save killed midway leaves: `.NAME.PID.tmp` of a gone process.
    let dead = dir.path().join(format!(".mul-chain-4.rcs.{}.tmp", u32::MAX - 1));
    let live = dir.path().join(format!(".mul-chain-4.rcs.{}.tmp", std::process::id()));
    let other = dir.path().join(format!(".other.rcs.{}.tmp", u32::MAX - 1));
    for f in [&dead, &other] {
        std::fs::write(f, b"partial").unwrap();
    }
    let (shape, _) = RecordedShape::record(MulChain::<Scalar>::new(4, 1)).unwrap();
    shape.save(&path).unwrap();
    assert!(!dead.exists() && other.exists(), "the save removes its own name's stale temporary only");
    std::fs::write(&dead, b"partial").unwrap();
    std::fs::write(&live, b"being written").unwrap();
    RecordedShape::<Scalar>::load(&path).unwrap();
    assert!(!dead.exists() && live.exists(), "a load removes it too, and keeps a running process's");
}

#[test]
fn files_are_checked_by_their_header_before_their_body_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.rcs");
    let load = |p: &std::path::Path| RecordedShape::<Scalar>::load(p);
    // A 4 GiB sparse file of zeros: refused by its magic, without reading it.
    let junk = std::fs::File::create(&path).unwrap();
    junk.set_len(4 << 30).unwrap();
    let start = std::time::Instant::now();
    assert!(matches!(load(&path), Err(SynthesisError::RecordingBadMagic)));
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "the body was read: {:?}", start.elapsed());
    // A header that promises more than the file holds, and a file that
    // holds more than its header says.
    let file = small_file();
    std::fs::write(&path, &file[..file.len() - 1]).unwrap();
    assert!(matches!(load(&path), Err(SynthesisError::RecordingTruncated { found, .. }) if found == file.len() as u64 - 1));
    let mut longer = file.clone();
    longer.push(0);
    std::fs::write(&path, &longer).unwrap();
    assert!(matches!(load(&path), Err(SynthesisError::RecordingMalformed(m)) if m.contains("after the checksum")));
    // Not regular files: refused, never read.
    let fifo = dir.path().join("r.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for p in [fifo.as_path(), dir.path(), std::path::Path::new("/dev/zero")] {
        let err = load(p).unwrap_err();
        assert!(matches!(&err, SynthesisError::RecordingIo(m) if m.contains("not a regular file")), "{}: {err}", p.display());
    }
}

#[test]
fn truncated_files_are_reported_as_truncated() {
    let file = small_file();
    for len in [0, 3, 8, 12, 19, 20, 21, file.len() / 2, file.len() - 32, file.len() - 1] {
        assert!(
            matches!(read(&file[..len]), Err(SynthesisError::RecordingTruncated { found, .. }) if found == len as u64),
            "length {len}: {:?}",
            read(&file[..len]).err()
        );
    }
}

#[test]
fn every_flipped_byte_is_caught() {
    let file = small_file();
    for at in 0..file.len() {
        let mut bad = file.clone();
        bad[at] ^= 0x10;
        let err = read(&bad).unwrap_err();
        let expected = match at {
            0..8 => matches!(err, SynthesisError::RecordingBadMagic),
            8..12 => matches!(err, SynthesisError::RecordingVersion { supported: VERSION, .. }),
            12..20 => matches!(
                err,
                SynthesisError::RecordingTruncated { .. } | SynthesisError::RecordingMalformed(_)
            ),
            _ => matches!(err, SynthesisError::RecordingChecksum),
        };
        assert!(expected, "byte {at}: {err:?}");
    }
}

#[test]
fn wrong_magic_version_field_and_trailing_bytes_are_named() {
    let file = small_file();
    assert_eq!(&file[..8], &MAGIC);
    assert_eq!(read(b"PK\x03\x04 not a recording").err(), Some(SynthesisError::RecordingBadMagic));
    for other in [1, VERSION + 1] {
        let mut old = file.clone();
        old[8..12].copy_from_slice(&other.to_le_bytes());
        resum(&mut old);
        assert_eq!(read(&old).err(), Some(SynthesisError::RecordingVersion { found: other, supported: VERSION }));
    }
    // A consistent checksum over a foreign field's modulus.
    let mut foreign = file.clone();
    foreign[24] ^= 1;
    resum(&mut foreign);
    assert!(matches!(read(&foreign), Err(SynthesisError::RecordingMalformed(m)) if m.contains("modulus")));
    let mut longer = file.clone();
    longer.push(0);
    assert!(matches!(read(&longer), Err(SynthesisError::RecordingMalformed(m)) if m.contains("after the checksum")));
}

/// `x_{i+1} = x_i · (x_i + c_i)` for three steps; `lie` makes the value of
/// step `lie` off by one.
#[derive(Clone)]
struct Steps {
    c: [u64; 3],
    lie: Option<usize>,
}

impl Circuit<Scalar> for Steps {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut v = Scalar::from(5);
        let mut x = cs.alloc(|| "x0", || Ok(v))?;
        for (i, c) in self.c.into_iter().map(Scalar::from).enumerate() {
            v *= v + c;
            let shown = if self.lie == Some(i) { v + Scalar::ONE } else { v };
            let next = cs.alloc(|| "x", || Ok(shown))?;
            cs.enforce(|| "step", |lc| lc + x, |lc| lc + x + (c, CS::one()), |lc| lc + next);
            x = next;
        }
        Ok(())
    }
}

#[test]
fn a_changed_coefficient_or_a_wrong_witness_names_its_row() {
    let (shape, _) = RecordedShape::record(Steps { c: [1, 2, 3], lie: None }).unwrap();
    let changed = Steps { c: [1, 2, 4], lie: None };
    assert!(ProvingAssignment::synthesize(changed.clone()).is_ok());
    assert_eq!(shape.synthesize(changed).err(), Some(SynthesisError::UnsatisfiedConstraint(2)));
    let lying = Steps { c: [1, 2, 3], lie: Some(1) };
    // Row 1 is the first the lie breaks (row 2 uses the wrong value consistently).
    assert_eq!(shape.synthesize(lying).err(), Some(SynthesisError::UnsatisfiedConstraint(1)));
}

/// Four constraints `x · x = x`; one more aux variable is allocated before constraint `at`.
struct Interleaved {
    at: usize,
}

impl Circuit<Scalar> for Interleaved {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(Scalar::ONE))?;
        for i in 0..4 {
            if i == self.at {
                cs.alloc(|| "extra", || Ok(Scalar::ONE))?;
            }
            cs.enforce(|| "x*x=x", |lc| lc + x, |lc| lc + x, |lc| lc + x);
        }
        Ok(())
    }
}

#[test]
fn circuits_of_another_shape_are_rejected_before_evaluation() {
    let (shape, _) = RecordedShape::record(MulChain::<Scalar>::new(1 << 8, 1)).unwrap();
    assert!(matches!(
        shape.witness(MulChain::<Scalar>::new(1 << 9, 1)),
        Err(SynthesisError::ShapeMismatch { what, recorded: 256, found: 512 }) if what.contains("aux")
    ));
    let (shape, _) = RecordedShape::record(Interleaved { at: 1 }).unwrap();
    assert!(shape.synthesize(Interleaved { at: 1 }).is_ok());
    assert!(matches!(
        shape.witness(Interleaved { at: 2 }),
        Err(SynthesisError::ShapeMismatch { what, .. }) if what.contains("trace")
    ));
    let mut witness = shape.witness(Interleaved { at: 1 }).unwrap();
    witness.aux.pop();
    assert!(matches!(shape.evaluate(witness), Err(SynthesisError::ShapeMismatch { .. })));
}
