//! The CPU prover's proofs verify, singly and in batches; bad inputs are typed errors.

mod common;

use blstrs::Scalar;
use common::{tampered, CuzkDemo, Demo};
use cuzk_groth16::{
    create_random_proofs, generate_random_parameters, prepare_verifying_key, prove, prove_timed, verify_proof,
    verify_proofs_batch, Error,
};
use cuzk_synth::{synthesize_batch, Circuit, ConstraintSystem, ProvingAssignment, SynthesisError};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const STEPS: usize = 300;

#[test]
fn batches_of_one_and_three_verify() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let params = generate_random_parameters(CuzkDemo(Demo::new(0, STEPS)), &mut rng, None).unwrap();
    let pvk = prepare_verifying_key(&params.vk).unwrap();
    for batch in [1u64, 3] {
        let demos: Vec<Demo> = (0..batch).map(|i| Demo::new(100 + i, STEPS)).collect();
        let proofs = create_random_proofs(demos.iter().cloned().map(CuzkDemo).collect(), &params, &mut rng).unwrap();
        let inputs: Vec<Vec<Scalar>> = demos.iter().map(Demo::public_inputs).collect();
        for (proof, x) in proofs.iter().zip(&inputs) {
            assert!(verify_proof(&pvk, proof, x).unwrap());
            assert!(!verify_proof(&pvk, proof, &tampered(x)).unwrap());
        }
        assert!(verify_proofs_batch(&pvk, &mut rng, &proofs, &inputs).unwrap());
        let mut bad = inputs.clone();
        bad[batch as usize - 1] = tampered(&bad[batch as usize - 1]);
        assert!(!verify_proofs_batch(&pvk, &mut rng, &proofs, &bad).unwrap());
    }
}

#[test]
fn timed_and_untimed_provers_agree_and_randomness_is_used() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let params = generate_random_parameters(CuzkDemo(Demo::new(0, STEPS)), &mut rng, None).unwrap();
    let pas = synthesize_batch(vec![CuzkDemo(Demo::new(5, STEPS)), CuzkDemo(Demo::new(6, STEPS))]).unwrap();
    let rs = [(Scalar::from(3u64), Scalar::from(4u64)), (Scalar::from(3u64), Scalar::from(9u64))];
    let plain = prove(&params, &pas, &rs).unwrap();
    let (timed, _) = prove_timed(&params, &pas, &rs).unwrap();
    assert_eq!(plain, timed);
    let again = prove(&params, &pas[..1], &[(Scalar::from(8u64), Scalar::from(4u64))]).unwrap();
    assert_ne!(again[0].a, plain[0].a);
    assert_eq!(again[0].b, plain[0].b, "B depends on s only");
}

#[test]
fn provers_called_from_rayon_workers_agree_with_a_lone_call() {
    // More concurrent batches than rayon has workers: the prover's own
    // concurrency must not wait on the pool in a way that starves it.
    use rayon::prelude::*;
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let params = generate_random_parameters(CuzkDemo(Demo::new(0, STEPS)), &mut rng, None).unwrap();
    let pas = synthesize_batch(vec![CuzkDemo(Demo::new(7, STEPS)), CuzkDemo(Demo::new(8, STEPS))]).unwrap();
    let rs = [(Scalar::from(5u64), Scalar::from(6u64)), (Scalar::from(7u64), Scalar::from(2u64))];
    let alone = prove(&params, &pas, &rs).unwrap();
    let jobs = 2 * rayon::current_num_threads() + 1;
    let together: Vec<_> = (0..jobs).into_par_iter().map(|_| prove(&params, &pas, &rs).unwrap()).collect();
    assert!(together.iter().all(|proofs| *proofs == alone));
}

#[test]
fn circuit_params_mismatch_names_both_sizes() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    // 20 and 21 steps share a 64-point domain; the private variables differ by one.
    let params = generate_random_parameters(CuzkDemo(Demo::new(0, 20)), &mut rng, None).unwrap();
    let pa = ProvingAssignment::synthesize(CuzkDemo(Demo::new(0, 21))).unwrap();
    let err = prove(&params, &[pa], &[(Scalar::ONE, Scalar::ONE)]).unwrap_err();
    assert!(matches!(err, Error::Mismatch { have: 38, need: 39, .. }), "{err}");
    assert!(err.to_string().contains("l bases"), "{err}");
}

#[test]
fn verifier_input_counts_are_checked() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let demo = Demo::new(1, 5);
    let params = generate_random_parameters(CuzkDemo(demo.clone()), &mut rng, None).unwrap();
    let pvk = prepare_verifying_key(&params.vk).unwrap();
    let proof = create_random_proofs(vec![CuzkDemo(demo.clone())], &params, &mut rng).unwrap()[0];
    let short = &demo.public_inputs()[..1];
    assert!(matches!(verify_proof(&pvk, &proof, short), Err(Error::PublicInputCount { expected: 2, got: 1 })));
    assert!(matches!(
        verify_proofs_batch(&pvk, &mut rng, &[proof], &[]),
        Err(Error::BatchLength { proofs: 1, inputs: 0 })
    ));
    assert!(verify_proofs_batch(&pvk, &mut rng, &[], &[]).unwrap());
}

/// Allocates a variable no constraint uses.
struct Unconstrained;

impl Circuit<Scalar> for Unconstrained {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        cs.alloc(|| "loose", || Ok(Scalar::ONE))?;
        Ok(())
    }
}

/// Fails if setup asks for a witness value.
struct NoWitnessAtSetup;

impl Circuit<Scalar> for NoWitnessAtSetup {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Err(SynthesisError::AssignmentMissing))?;
        cs.enforce(|| "x*x=x", |lc| lc + x, |lc| lc + x, |lc| lc + x);
        Ok(())
    }
}

#[test]
fn setup_rejects_unconstrained_variables_and_never_evaluates_witnesses() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let err = generate_random_parameters(Unconstrained, &mut rng, None).unwrap_err();
    assert!(matches!(err, Error::Synthesis(SynthesisError::UnconstrainedVariable)), "{err}");
    let progress_calls = std::cell::Cell::new(0);
    let report = |_: &str, done: u64, total: u64| {
        assert!(done <= total);
        progress_calls.set(progress_calls.get() + 1);
    };
    let params = generate_random_parameters(NoWitnessAtSetup, &mut rng, Some(&report)).unwrap();
    assert_eq!((params.l.len(), params.vk.ic.len()), (1, 1));
    assert!(progress_calls.get() > 0);
    let err = create_random_proofs(vec![NoWitnessAtSetup], &params, &mut rng).unwrap_err();
    assert!(matches!(err, Error::Synthesis(SynthesisError::AssignmentMissing)));
}
