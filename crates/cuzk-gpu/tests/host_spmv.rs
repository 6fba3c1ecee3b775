//! The SpMV kernels' checks and row code (cuda/spmv/row.hpp, cuda/util/r1cs.hpp),
//! compiled for the host and run through the bridge's test hook, against
//! cuzk-synth's CPU evaluation: random circuits (with long rows and every
//! kind of coefficient and value), both workloads, a shape of input rows
//! only, 32-bit coefficient indices, zero, bit and tampered witnesses (the
//! same lowest unsatisfied row); and malformed shapes rejected by name.

mod circuits;

use blstrs::Scalar;
use circuits::{check, inputs_only, is_wide, record, variants, Random, Scaled};
use cuzk_ffi::ffi::R1csMatrix;
use cuzk_gpu::hooks::spmv::{evaluate_matrices_on_host, evaluate_on_host};
use cuzk_gpu::GpuError;
use cuzk_synth::workloads::Workload;
use cuzk_synth::{RecordedShape, Witness};
use ff::Field;
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn check_all(shape: &RecordedShape<Scalar>, w: &Witness<Scalar>, seed: u64) -> Result<(), String> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    for (what, w) in variants(w, &mut rng) {
        check(shape, &w, evaluate_on_host(shape, &w)).map_err(|e| format!("{what} witness: {e}"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_circuits_match_the_cpu(spec in circuits::spec(), seed in any::<u64>()) {
        let (shape, _) = record(Random { spec: spec.clone(), seed: 0 });
        let (_, w) = record(Random { spec, seed });
        check_all(&shape, &w, seed).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn workloads_match_the_cpu() {
    for (workload, size) in [(Workload::Sha256, 1), (Workload::MulChain, 1000)] {
        let (shape, _) = record(workload.circuit::<Scalar>(size, 1).unwrap());
        let w = shape.witness(workload.circuit::<Scalar>(size, 2).unwrap()).unwrap();
        check_all(&shape, &w, 3).unwrap_or_else(|e| panic!("{workload} {size}: {e}"));
    }
}

#[test]
fn a_shape_of_input_rows_only_matches_the_cpu() {
    let (shape, w) = record(Random { spec: inputs_only(), seed: 4 });
    assert_eq!(shape.num_constraints(), 4);
    check_all(&shape, &w, 5).unwrap();
}

#[test]
fn wide_coefficient_indices_match_the_cpu() {
    let (shape, _) = record(Scaled { n: 1 << 16, seed: 6 });
    assert!(is_wide(&shape), "{} coefficients should need 32-bit indices", shape.coefficients().len());
    let w = shape.witness(Scaled { n: 1 << 16, seed: 7 }).unwrap();
    check_all(&shape, &w, 8).unwrap();
    let (shape, w) = record(Scaled { n: 100, seed: 9 });
    assert!(!is_wide(&shape));
    check_all(&shape, &w, 10).unwrap();
}

#[test]
fn witnesses_of_the_wrong_length_are_rejected_before_the_bridge() {
    let (shape, mut w) = record(Scaled { n: 3, seed: 11 });
    w.aux.pop();
    assert!(matches!(evaluate_on_host(&shape, &w), Err(GpuError::InvalidInput(m)) if m.contains("aux")));
}

/// A one-row, two-variable shape for the malformed cases: x · one = x.
struct Raw {
    row_ptr: [Vec<u32>; 3],
    cols: [Vec<u32>; 3],
    narrow: [Vec<u16>; 3],
    wide: [Vec<u32>; 3],
    table: Vec<Scalar>,
}

impl Raw {
    fn valid() -> Raw {
        Raw {
            row_ptr: [vec![0, 1], vec![0, 1], vec![0, 1]],
            cols: [vec![1], vec![0], vec![1]],
            narrow: [vec![0], vec![0], vec![2]],
            wide: [vec![], vec![], vec![]],
            table: vec![Scalar::ONE, -Scalar::ONE, Scalar::ONE.double()],
        }
    }

    /// The host hook's answer for the witness (one, x = 3).
    fn run(&self) -> Result<(), GpuError> {
        let m = |i: usize| R1csMatrix {
            row_ptr: &self.row_ptr[i],
            cols: &self.cols[i],
            narrow: &self.narrow[i],
            wide: &self.wide[i],
        };
        let (inputs, aux) = ([Scalar::ONE], [Scalar::from(3u64)]);
        evaluate_matrices_on_host([&m(0), &m(1), &m(2)], &self.table, &inputs, &aux).map(|_| ())
    }
}

/// What the error must mention, and how to break the valid shape.
type Breakage = (&'static str, fn(&mut Raw));

#[test]
fn malformed_shapes_are_rejected_by_name() {
    // The valid shape: 3 · 1 = 2 · 3 fails, naming row 0.
    assert_eq!(Raw::valid().run(), Err(GpuError::UnsatisfiedConstraint { row: 0 }));
    let mut fixed = Raw::valid();
    fixed.narrow[2] = vec![0];
    assert_eq!(fixed.run(), Ok(()));
    let cases: [Breakage; 9] = [
        ("start at 0", |r| r.row_ptr[0] = vec![1, 1]),
        ("decrease", |r| {
            r.row_ptr[1] = vec![0, 2, 1];
            r.cols[1] = vec![0, 0];
            r.narrow[1] = vec![0, 0];
        }),
        ("end at", |r| r.row_ptr[2] = vec![0, 0]),
        ("beyond the 2 variables", |r| r.cols[0] = vec![2]),
        ("beyond the table", |r| r.narrow[1] = vec![3]),
        ("rows", |r| {
            r.row_ptr[2] = vec![0, 1, 1];
        }),
        ("one and minus one", |r| r.table.swap(0, 1)),
        ("coefficient indices", |r| r.wide[0] = vec![0]),
        ("no row pointers", |r| r.row_ptr[1] = vec![]),
    ];
    for (expected, break_it) in cases {
        let mut raw = Raw::valid();
        break_it(&mut raw);
        match raw.run() {
            Err(GpuError::InvalidInput(m)) => assert!(m.contains(expected), "expected {expected:?} in {m:?}"),
            other => panic!("{expected}: expected an invalid_input error, got {other:?}"),
        }
    }
}
