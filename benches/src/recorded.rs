//! cuzk's recorded synthesis as the comparisons run it: witness-only
//! synthesis, then the sparse products a = A·w, b = B·w, c = C·w, each timed,
//! and the result checked equal to classic synthesis of the same circuit.
//! Without the check a recorded figure could time a wrong answer: the row
//! checks of the products catch a witness that violates the shape, not a
//! satisfying witness of some other instance.

use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk_synth::{Circuit, DensityTracker, ProvingAssignment, RecordedShape};

use crate::error::BenchError;

/// One recorded synthesis: its two halves' times.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RecordedRun {
    /// Witness-only synthesis.
    pub witness: Duration,
    /// The sparse products with their row checks.
    pub products: Duration,
}

/// Runs recorded synthesis of `circuit` against `shape` and checks the
/// assignment against `classic` (classic synthesis of the same circuit).
/// The assignment is dropped after the clocks stop.
pub fn run_checked<C: Circuit<Scalar> + Send>(
    shape: &RecordedShape<Scalar>,
    circuit: C,
    classic: &ProvingAssignment<Scalar>,
) -> Result<RecordedRun, BenchError> {
    let start = Instant::now();
    let witness = shape.witness(circuit)?;
    let witness_time = start.elapsed();
    let start = Instant::now();
    let recorded = shape.evaluate(witness)?;
    let products = start.elapsed();
    same_assignment(classic, &recorded)?;
    Ok(RecordedRun { witness: witness_time, products })
}

/// Ok when `recorded` equals `classic` in every evaluation, input, aux value
/// and density bit; otherwise the first field and index that differ.
pub fn same_assignment(
    classic: &ProvingAssignment<Scalar>,
    recorded: &ProvingAssignment<Scalar>,
) -> Result<(), BenchError> {
    let vectors: [(&'static str, &[Scalar], &[Scalar]); 5] = [
        ("a", &classic.a, &recorded.a),
        ("b", &classic.b, &recorded.b),
        ("c", &classic.c, &recorded.c),
        ("inputs", &classic.input_assignment, &recorded.input_assignment),
        ("aux", &classic.aux_assignment, &recorded.aux_assignment),
    ];
    for (field, ours, theirs) in vectors {
        if let Some(index) = first_difference(ours, theirs) {
            return Err(BenchError::RecordedMismatch { field, index });
        }
    }
    let densities: [(&'static str, &DensityTracker, &DensityTracker); 3] = [
        ("a_aux_density", &classic.a_aux_density, &recorded.a_aux_density),
        ("b_input_density", &classic.b_input_density, &recorded.b_input_density),
        ("b_aux_density", &classic.b_aux_density, &recorded.b_aux_density),
    ];
    for (field, ours, theirs) in densities {
        if ours != theirs {
            let bits = |d: &DensityTracker| d.iter().collect::<Vec<bool>>();
            let index = first_difference(&bits(ours), &bits(theirs)).unwrap_or(0);
            return Err(BenchError::RecordedMismatch { field, index });
        }
    }
    Ok(())
}

/// The first index where the slices differ, or the shorter length when one
/// is a prefix of the other.
pub(crate) fn first_difference<T: PartialEq>(ours: &[T], theirs: &[T]) -> Option<usize> {
    ours.iter()
        .zip(theirs)
        .position(|(x, y)| x != y)
        .or((ours.len() != theirs.len()).then(|| ours.len().min(theirs.len())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::workloads::Workload;

    fn sha256(seed: u64) -> cuzk_synth::WorkloadCircuit<Scalar> {
        Workload::Sha256.circuit(1, seed).unwrap()
    }

    #[test]
    fn recorded_synthesis_of_the_same_circuit_passes() {
        let (shape, classic) = RecordedShape::record(sha256(1)).unwrap();
        let run = run_checked(&shape, sha256(1), &classic).unwrap();
        assert!(run.witness > Duration::ZERO && run.products > Duration::ZERO);
    }

    /// A wrong witness that satisfies every row of the shape (another
    /// instance's) passes the products' own checks; only the comparison
    /// with classic synthesis catches it.
    #[test]
    fn a_satisfying_witness_of_another_instance_fails_the_check() {
        let (shape, classic) = RecordedShape::record(sha256(1)).unwrap();
        assert!(shape.synthesize(sha256(2)).is_ok(), "the other instance satisfies the shape");
        let err = run_checked(&shape, sha256(2), &classic).unwrap_err();
        assert!(matches!(err, BenchError::RecordedMismatch { .. }), "{err}");
    }

    #[test]
    fn every_field_is_compared() {
        let (_, classic) = RecordedShape::record(sha256(3)).unwrap();
        let check = |edit: &dyn Fn(&mut ProvingAssignment<Scalar>), field: &str, index: usize| {
            let mut edited = classic.clone();
            edit(&mut edited);
            match same_assignment(&classic, &edited) {
                Err(BenchError::RecordedMismatch { field: f, index: i }) => {
                    assert_eq!((f, i), (field, index))
                }
                other => panic!("{field}: {other:?}"),
            }
        };
        let one = Scalar::from(1u64);
        check(&|pa| pa.a[7] += one, "a", 7);
        check(&|pa| pa.b[0] += one, "b", 0);
        let last = classic.c.len() - 1;
        check(&|pa| pa.c[last] += one, "c", last);
        check(&|pa| pa.input_assignment[1] += one, "inputs", 1);
        check(&|pa| pa.aux_assignment[3] += one, "aux", 3);
        check(&|pa| { pa.c.pop(); }, "c", last);
        check(&|pa| pa.b_aux_density.add_element(), "b_aux_density", classic.b_aux_density.len());
        assert!(same_assignment(&classic, &classic.clone()).is_ok());
    }

    #[test]
    fn first_differences() {
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(first_difference(&[1, 2, 3], &[1, 5, 3]), Some(1));
        assert_eq!(first_difference(&[1, 2], &[1, 2, 3]), Some(2));
        assert_eq!(first_difference::<u8>(&[], &[]), None);
    }
}
