//! The benchmark workloads (DESIGN §7) written against bellperson 0.27's own
//! circuit API and gadgets, so that bellperson proves exactly the circuit cuzk
//! proves: the same constraints in the same order, the same witness (taken from
//! the very workload value cuzk synthesizes) and therefore the same parameter
//! file. A peer figure on any other circuit would compare nothing.

use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use bellperson::gadgets::{multipack, sha256::sha256_block_no_padding};
use blstrs::Scalar;
use cuzk_synth::workloads::{MulChain, Sha256Chain};
use cuzk_synth::WorkloadCircuit;

/// A workload circuit seen through bellperson's API.
#[derive(Clone, Debug)]
pub struct PeerCircuit(pub WorkloadCircuit<Scalar>);

impl Circuit<Scalar> for PeerCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self.0 {
            WorkloadCircuit::Sha256(chain) => sha256_chain(cs, &chain),
            WorkloadCircuit::MulChain(chain) => mul_chain(cs, &chain),
        }
    }
}

/// The bits of `bytes`, most significant first, each a private witness bit.
fn alloc_bits<CS: ConstraintSystem<Scalar>>(
    mut cs: CS,
    bytes: &[u8],
) -> Result<Vec<Boolean>, SynthesisError> {
    multipack::bytes_to_bits(bytes)
        .into_iter()
        .enumerate()
        .map(|(i, bit)| {
            Ok(AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(bit))?.into())
        })
        .collect()
}

/// `d_1 = compress(IV, first_block)`, `d_k = compress(IV, d_{k-1} ‖ sibling_k)`;
/// `sha256_block_no_padding` is exactly one compression from the IV.
fn sha256_chain<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    chain: &Sha256Chain,
) -> Result<(), SynthesisError> {
    let block = alloc_bits(cs.namespace(|| "block 0"), chain.first_block())?;
    let mut digest = sha256_block_no_padding(cs.namespace(|| "compression 0"), &block)?;
    for (k, sibling) in chain.siblings().iter().enumerate() {
        let mut block = digest;
        block.extend(alloc_bits(
            cs.namespace(|| format!("sibling {}", k + 1)),
            sibling,
        )?);
        digest =
            sha256_block_no_padding(cs.namespace(|| format!("compression {}", k + 1)), &block)?;
    }
    multipack::pack_into_inputs(cs.namespace(|| "digest"), &digest)
}

/// `x_{i+1} = x_i · (x_i + c)`, one constraint per step, `x_N` public.
fn mul_chain<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    chain: &MulChain<Scalar>,
) -> Result<(), SynthesisError> {
    let c = chain.constant();
    let mut value = chain.x0();
    let mut x = cs.alloc(|| "x 0", || Ok(value))?;
    for i in 1..=chain.len() {
        value *= value + c;
        let next = if i == chain.len() {
            cs.alloc_input(|| format!("x {i}"), || Ok(value))?
        } else {
            cs.alloc(|| format!("x {i}"), || Ok(value))?
        };
        cs.enforce(
            || format!("step {i}"),
            |lc| lc + x,
            |lc| lc + x + (c, CS::one()),
            |lc| lc + next,
        );
        x = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Fixture, ProvingPair};
    use cuzk_synth::bellpepper::Bellpepper;
    use cuzk_synth::workloads::Workload;
    use cuzk_synth::{ProvingAssignment, TestConstraintSystem};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// The sizes tests can afford (a proof each, in the test profile).
    const SMALL: [(Workload, usize); 2] = [(Workload::Sha256, 1), (Workload::MulChain, 64)];

    #[test]
    fn peer_circuits_are_the_workloads_constraint_for_constraint() {
        for (workload, size) in SMALL {
            let fixture = Fixture::new(workload, size, 5).unwrap();
            let mut theirs = bellpepper_core::test_cs::TestConstraintSystem::<Scalar>::new();
            fixture.peer().synthesize(&mut theirs).unwrap();
            assert!(
                theirs.is_satisfied(),
                "{workload} {size}: {:?}",
                theirs.which_is_unsatisfied()
            );
            let ours = TestConstraintSystem::synthesize(fixture.ours()).unwrap();
            assert_eq!(
                theirs.num_constraints(),
                ours.num_constraints(),
                "{workload} {size}"
            );
            assert_eq!(
                theirs.num_constraints(),
                workload.expected_constraints(size),
                "{workload} {size}"
            );
            assert_eq!(
                theirs.scalar_inputs(),
                ours.scalar_inputs(),
                "{workload} {size}"
            );
            assert_eq!(theirs.scalar_aux(), ours.scalar_aux(), "{workload} {size}");

            // Every a, b, c evaluation and density bit agrees too.
            let through_adapter =
                ProvingAssignment::synthesize(Bellpepper(fixture.peer())).unwrap();
            assert_eq!(
                through_adapter,
                ProvingAssignment::synthesize(fixture.ours()).unwrap()
            );
        }
    }

    #[test]
    fn bellperson_proofs_of_peer_circuits_verify_under_cuzk() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        for (workload, size) in SMALL {
            let fixture = Fixture::new(workload, size, 6).unwrap();
            let pair = ProvingPair::generate(&fixture, &mut rng).unwrap();
            // Fails unless bellperson logged the timings of both phases of this proof.
            let (proof, _) =
                crate::peer_timing::prove(fixture.peer(), &pair.bellperson, &mut rng).unwrap();
            let proof = crate::fixture::proof_from_bellperson(&proof).unwrap();
            let inputs = fixture.public_inputs();
            assert!(
                cuzk_groth16::verify_proof(&pair.pvk, &proof, inputs).unwrap(),
                "{workload} {size}"
            );
            let mut wrong = inputs.to_vec();
            wrong[0] += Scalar::from(1u64);
            assert!(
                !cuzk_groth16::verify_proof(&pair.pvk, &proof, &wrong).unwrap(),
                "{workload} {size}"
            );
        }
    }
}
