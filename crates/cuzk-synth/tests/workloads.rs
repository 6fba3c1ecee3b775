//! The benchmark workloads: exact constraint counts, pinned shapes, natively
//! computed public inputs, and agreement between the test and proving systems.

use blstrs::Scalar;
use cuzk_synth::workloads::{MulChain, Sha256Chain, WorkloadCircuit};
use cuzk_synth::{Circuit, ProvingAssignment, SynthesisError, TestConstraintSystem, Workload};

/// Synthesizes `circuit` into both systems, checks they hold the same
/// witness, and returns the test system.
fn synthesize_both<C: Circuit<Scalar> + Clone>(circuit: C) -> TestConstraintSystem<Scalar> {
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
fn sha256_chain_has_the_published_constraint_count_and_pinned_shape() {
    let pins = [
        "25190aedc5e66d60a4ded8b2eec0d2fe3027fe1cda9bfbdcf2d546dd150bbf6b",
        "e2d9492fb592240b918d8c70ad4975a1eb5553e44d350dbec163d6a8c6beffd0",
        "8da57f57893a3370091f544cdbb45977be85e881129a39bd5d38fbc8c84802ae",
    ];
    for (n, pin) in (1..=3).zip(pins) {
        let chain = Sha256Chain::new(n, 7);
        let cs = synthesize_both(chain.clone());
        assert_eq!(cs.num_constraints(), 26_096 * n + 258);
        assert_eq!(cs.num_constraints(), Workload::Sha256.expected_constraints(n));
        assert_eq!(cs.num_inputs(), 3);
        assert!(cs.verify(&chain.public_inputs::<Scalar>()));
        assert_eq!(cs.hash(), pin, "n = {n}");
    }
}

#[test]
fn sha256_chain_shape_does_not_depend_on_the_witness() {
    let a = TestConstraintSystem::<Scalar>::synthesize(Sha256Chain::new(2, 1)).unwrap();
    let b = TestConstraintSystem::<Scalar>::synthesize(Sha256Chain::new(2, 2)).unwrap();
    assert_eq!(a.hash(), b.hash());
    assert_ne!(a.scalar_inputs(), b.scalar_inputs());
}

#[test]
fn sha256_chain_digest_is_the_chained_sha256_compression() {
    // With one link, the digest is the compression of one block; with a
    // padded 32-byte message as the sibling half it is a real SHA-256.
    let mut sibling = [0u8; 32];
    sibling[0] = 0x80;
    sibling[30] = 0x01; // bit length 256 = 0x0100
    let chain = Sha256Chain::from_witness([0x61; 64], vec![sibling]);
    let d1 = Sha256Chain::from_witness([0x61; 64], vec![]).digest();
    assert_eq!(chain.digest(), cuzk_synth::sha256_native::sha256(&d1));
    assert_eq!(chain.len(), 2);
}

#[test]
fn tampered_sha256_witness_names_the_broken_constraint() {
    let mut cs = TestConstraintSystem::<Scalar>::synthesize(Sha256Chain::new(1, 3)).unwrap();
    let input = cs.get("digest/input 0").unwrap();
    cs.set("digest/input 0", input + Scalar::from(1));
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("digest/packing constraint 0"));
}

#[test]
fn mul_chain_is_one_constraint_per_step() {
    for n in [1, 2, 5, 64] {
        let chain = MulChain::<Scalar>::new(n, 9);
        let cs = synthesize_both(chain.clone());
        assert_eq!(cs.num_constraints(), n);
        assert_eq!(cs.num_constraints(), Workload::MulChain.expected_constraints(n));
        assert_eq!((cs.num_inputs(), cs.num_aux()), (2, n));
        assert!(cs.verify(&chain.public_inputs()));
    }
    let cs = TestConstraintSystem::<Scalar>::synthesize(MulChain::<Scalar>::new(4, 9)).unwrap();
    assert_eq!(cs.hash(), "56136828a10f0862d25163f4989340fe42018dc4eb53863922dc84d162881aa5");
}

/// Parameters are made for a circuit's shape; a witness from another seed must
/// have the same shape or its proofs cannot verify.
#[test]
fn workload_shapes_do_not_depend_on_the_witness_seed() {
    for w in Workload::ALL {
        let hash = |seed| {
            TestConstraintSystem::<Scalar>::synthesize(w.circuit::<Scalar>(3, seed).unwrap())
                .unwrap()
                .hash()
        };
        assert_eq!(hash(1), hash(2), "{w}");
    }
}

#[test]
fn mul_chain_steps_follow_the_recurrence() {
    let chain = MulChain::<Scalar>::new(3, 5);
    let (x0, c) = (chain.x0(), chain.constant());
    assert_ne!(x0, c);
    let x1 = x0 * (x0 + c);
    let x2 = x1 * (x1 + c);
    assert_eq!(chain.public_inputs(), vec![x2 * (x2 + c)]);
    let mut cs = TestConstraintSystem::synthesize(chain).unwrap();
    cs.set("x 1", x1 + Scalar::from(1));
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("step 1"));
}

#[test]
fn workloads_parse_build_and_report_inputs() {
    for w in Workload::ALL {
        assert_eq!(w.name().parse::<Workload>().unwrap(), w);
        assert_eq!(w.to_string(), w.name());
        let circuit: WorkloadCircuit<Scalar> = w.circuit(2, 4).unwrap();
        let inputs = circuit.public_inputs();
        assert_eq!(w.public_inputs::<Scalar>(2, 4).unwrap(), inputs);
        let cs = synthesize_both(circuit);
        assert_eq!(cs.num_constraints(), w.expected_constraints(2));
        assert!(cs.verify(&inputs));
        assert_ne!(w.public_inputs::<Scalar>(2, 5).unwrap(), inputs);
    }
    assert!(matches!("sha512".parse::<Workload>(), Err(SynthesisError::InvalidWorkload(_))));
    for w in Workload::ALL {
        for size in [0, w.max_size() + 1, 1 << 40, usize::MAX] {
            assert!(matches!(w.circuit::<Scalar>(size, 1), Err(SynthesisError::InvalidWorkload(_))), "{w} {size}");
        }
        assert!(w.circuit::<Scalar>(w.max_size(), 1).is_ok(), "{w}: the largest size builds (the circuit is not synthesized here)");
        assert!(w.expected_constraints(w.max_size()) <= 1 << 31);
        assert!(w.expected_constraints(w.max_size() + 1) > 1 << 31 || w == Workload::MulChain);
    }
}

#[test]
fn a_wrong_value_fails_its_own_step_first_and_keeps_the_shape() {
    let honest = MulChain::<Scalar>::new(6, 3);
    let cs = TestConstraintSystem::<Scalar>::synthesize(honest.clone().with_wrong_value_at(4)).unwrap();
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("step 4"));
    let good = TestConstraintSystem::<Scalar>::synthesize(honest).unwrap();
    assert!(good.is_satisfied());
    assert_eq!(cs.hash(), good.hash(), "the same constraint system, only the witness differs");
}
