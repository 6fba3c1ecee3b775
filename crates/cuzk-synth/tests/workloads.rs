//! The benchmark workloads: exact constraint counts, pinned shapes, natively
//! computed public inputs, and agreement between the test and proving systems.

use blstrs::Scalar;
use cuzk_synth::workloads::{MulChain, Sha256Chain};
use cuzk_synth::{Circuit, ProvingAssignment, SynthesisError, TestConstraintSystem, Workload};

fn check_against_proving_assignment<C: Circuit<Scalar> + Clone>(circuit: C) -> TestConstraintSystem<Scalar> {
    let cs = TestConstraintSystem::synthesize(circuit.clone()).unwrap();
    let pa = ProvingAssignment::synthesize(circuit).unwrap();
    assert_eq!(pa.input_assignment, cs.scalar_inputs());
    assert_eq!(pa.aux_assignment, cs.scalar_aux());
    assert_eq!(pa.num_constraints(), cs.num_constraints() + cs.num_inputs());
    assert!(cs.is_satisfied(), "unsatisfied: {:?}", cs.which_is_unsatisfied());
    assert!(cs.naming_errors().is_empty(), "{:?}", cs.naming_errors());
    cs
}

#[test]
fn sha256_chain_has_the_published_constraint_count_and_shape() {
    let mut hashes = Vec::new();
    for n in 1..=3 {
        let chain = Sha256Chain::new(n, 7);
        let cs = check_against_proving_assignment(chain.clone());
        assert_eq!(cs.num_constraints(), 26_096 * n + 258);
        assert_eq!(cs.num_constraints(), Workload::Sha256.expected_constraints(n));
        assert_eq!(cs.num_inputs(), 3);
        assert!(cs.verify(&chain.public_inputs::<Scalar>()));
        hashes.push(cs.hash());
    }
    println!("{hashes:?}");
}
