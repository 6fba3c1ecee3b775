//! Circuits written against bellpepper-core / bellperson 0.27 give, through
//! the adapter, exactly the assignment of the same circuit written with our
//! gadgets: same a, b, c, inputs, aux and densities.
#![cfg(feature = "bellpepper")]

use blstrs::Scalar;
use cuzk_synth::bellpepper::Bellpepper;
use cuzk_synth::workloads::Sha256Chain;
use cuzk_synth::{ProvingAssignment, TestConstraintSystem};

/// One circuit body, compiled once against our gadgets and once against
/// bellpepper-core's and bellperson's: every Boolean gate over every mix of
/// constant, allocated and negated operands, numbers, 32-bit words with a
/// packed addition, padded SHA-256, and multipacking.
macro_rules! mixed_circuit {
    ($module:ident { $($imports:item)* }) => {
        #[allow(clippy::clone_on_copy)]
        mod $module {
            use blstrs::Scalar;
            use rand_chacha::ChaCha20Rng;
            use rand_core::{RngCore, SeedableRng};
            $($imports)*

            pub struct Mixed(pub u64);

            type Res<T> = Result<T, SynthesisError>;

            fn operand<CS: ConstraintSystem<Scalar>>(cs: CS, kind: u64, v: bool) -> Res<Boolean> {
                Ok(match kind {
                    0 => Boolean::constant(false),
                    1 => Boolean::constant(true),
                    2 => Boolean::from(AllocatedBit::alloc(cs, Some(v))?),
                    _ => Boolean::from(AllocatedBit::alloc(cs, Some(!v))?).not(),
                })
            }

            impl Circuit<Scalar> for Mixed {
                fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Res<()> {
                    let mut rng = ChaCha20Rng::seed_from_u64(self.0);
                    let mut outputs = Vec::new();
                    for combo in 0..64u64 {
                        let cs = &mut cs.namespace(|| format!("combo {combo}"));
                        let mut bits = Vec::new();
                        let kinds = [combo % 4, combo / 4 % 4, combo / 16];
                        for (j, kind) in kinds.into_iter().enumerate() {
                            let ns = cs.namespace(|| format!("operand {j}"));
                            bits.push(operand(ns, kind, rng.next_u32() & 1 == 1)?);
                        }
                        let (a, b, c) = (&bits[0], &bits[1], &bits[2]);
                        let x = Boolean::xor(cs.namespace(|| "xor"), a, b)?;
                        let y = Boolean::and(cs.namespace(|| "and"), a, c)?;
                        let ch = Boolean::sha256_ch(cs.namespace(|| "ch"), a, b, c)?;
                        let maj = Boolean::sha256_maj(cs.namespace(|| "maj"), a, b, c)?;
                        let x2 = Boolean::xor(cs.namespace(|| "xor again"), b, a)?;
                        Boolean::enforce_equal(cs.namespace(|| "xor commutes"), &x, &x2)?;
                        outputs.extend([x, y, ch, maj]);
                    }

                    let (pv, qv) = (Scalar::from(rng.next_u64()), Scalar::from(rng.next_u64()));
                    let p = AllocatedNum::alloc(cs.namespace(|| "p"), || Ok(pv))?;
                    let q = AllocatedNum::alloc(cs.namespace(|| "q"), || Ok(qv))?;
                    let pq = p.mul(cs.namespace(|| "p*q"), &q)?;
                    pq.square(cs.namespace(|| "(pq)^2"))?.inputize(cs.namespace(|| "expose"))?;

                    let mut words = Vec::new();
                    for i in 0..3 {
                        let ns = cs.namespace(|| format!("word {i}"));
                        words.push(UInt32::alloc(ns, Some(rng.next_u32()))?);
                    }
                    let shifted = words[1].shr(3);
                    let mixed = words[0].rotr(7).xor(cs.namespace(|| "word xor"), &shifted)?;
                    let sum = {
                        let mut meq = MultiEq::new(cs.namespace(|| "multieq"));
                        let terms = [mixed, words[2].clone(), UInt32::constant(5)];
                        let s = UInt32::addmany(meq.namespace(|| "sum"), &terms)?;
                        UInt32::addmany(meq.namespace(|| "sum again"), &[s, words[0].clone()])?
                    };
                    outputs.extend(sum.into_bits_be());

                    let mut message = Vec::new();
                    for i in 0..40 * 8 {
                        let ns = cs.namespace(|| format!("message bit {i}"));
                        message.push(operand(ns, 2, rng.next_u32() & 1 == 1)?);
                    }
                    outputs.extend(sha256(cs.namespace(|| "sha256"), &message)?);

                    multipack::pack_into_inputs(cs.namespace(|| "pack"), &outputs)
                }
            }
        }
    };
}

mixed_circuit! {
    ours {
        use cuzk_synth::gadgets::{multipack, sha256::sha256, AllocatedNum, MultiEq, UInt32};
        use cuzk_synth::gadgets::{AllocatedBit, Boolean};
        use cuzk_synth::{Circuit, ConstraintSystem, SynthesisError};
    }
}

mixed_circuit! {
    theirs {
        use bellpepper_core::boolean::{AllocatedBit, Boolean};
        use bellpepper_core::num::AllocatedNum;
        use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
        use bellperson::gadgets::{multieq::MultiEq, multipack, sha256::sha256, uint32::UInt32};
    }
}

/// Names the first field and index where two assignments differ.
fn assert_same_assignment(x: &ProvingAssignment<Scalar>, y: &ProvingAssignment<Scalar>) {
    let vectors = [
        ("a", &x.a, &y.a),
        ("b", &x.b, &y.b),
        ("c", &x.c, &y.c),
        ("inputs", &x.input_assignment, &y.input_assignment),
        ("aux", &x.aux_assignment, &y.aux_assignment),
    ];
    for (name, u, v) in vectors {
        let first = u.iter().zip(v.iter()).position(|(p, q)| p != q);
        assert!(
            first.is_none() && u.len() == v.len(),
            "{name} differs at {first:?} (lengths {} and {})",
            u.len(),
            v.len()
        );
    }
    let densities = [
        ("a_aux", &x.a_aux_density, &y.a_aux_density),
        ("b_input", &x.b_input_density, &y.b_input_density),
        ("b_aux", &x.b_aux_density, &y.b_aux_density),
    ];
    for (name, u, v) in densities {
        let first = u.iter().zip(v.iter()).position(|(p, q)| p != q);
        assert!(first.is_none() && u.len() == v.len(), "{name} density differs at {first:?}");
    }
    assert_eq!(x, y);
}

fn assert_same_everywhere<A, B>(ours: impl Fn() -> A, theirs: impl Fn() -> B)
where
    A: cuzk_synth::Circuit<Scalar>,
    B: bellpepper_core::Circuit<Scalar>,
{
    let pa_ours = ProvingAssignment::synthesize(ours()).unwrap();
    let pa_theirs = ProvingAssignment::synthesize(Bellpepper(theirs())).unwrap();
    assert_same_assignment(&pa_ours, &pa_theirs);

    let cs_ours = TestConstraintSystem::synthesize(ours()).unwrap();
    let cs_theirs = TestConstraintSystem::synthesize(Bellpepper(theirs())).unwrap();
    assert!(cs_ours.is_satisfied(), "{:?}", cs_ours.which_is_unsatisfied());
    assert!(cs_ours.naming_errors().is_empty(), "{:?}", cs_ours.naming_errors());
    assert_eq!(cs_ours.hash(), cs_theirs.hash());

    // bellpepper's own test system, driven natively, agrees with both.
    let mut native = bellpepper_core::test_cs::TestConstraintSystem::<Scalar>::new();
    theirs().synthesize(&mut native).unwrap();
    assert!(native.is_satisfied());
    assert_eq!(native.num_constraints(), cs_ours.num_constraints());
    assert_eq!(native.scalar_inputs(), cs_ours.scalar_inputs());
    assert_eq!(native.scalar_aux(), cs_ours.scalar_aux());
}

#[test]
fn gadgets_match_bellpepper_and_bellperson_gadgets() {
    for seed in 0..2 {
        assert_same_everywhere(|| ours::Mixed(seed), || theirs::Mixed(seed));
    }
}

/// The sha256 workload written with bellperson 0.27's gadgets.
struct BellpersonChain(Sha256Chain);

impl bellpepper_core::Circuit<Scalar> for BellpersonChain {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellpepper_core::SynthesisError> {
        use bellpepper_core::boolean::{AllocatedBit, Boolean};
        use bellperson::gadgets::{multipack, sha256::sha256_block_no_padding};

        fn alloc<CS: bellpepper_core::ConstraintSystem<Scalar>>(
            mut cs: CS,
            bytes: &[u8],
        ) -> Result<Vec<Boolean>, bellpepper_core::SynthesisError> {
            multipack::bytes_to_bits(bytes)
                .into_iter()
                .enumerate()
                .map(|(i, b)| {
                    Ok(AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(b))?.into())
                })
                .collect()
        }

        let block = alloc(cs.namespace(|| "block 0"), self.0.first_block())?;
        let mut digest = sha256_block_no_padding(cs.namespace(|| "compression 0"), &block)?;
        for (k, sibling) in self.0.siblings().iter().enumerate() {
            let mut block = digest;
            block.extend(alloc(cs.namespace(|| format!("sibling {}", k + 1)), sibling)?);
            digest =
                sha256_block_no_padding(cs.namespace(|| format!("compression {}", k + 1)), &block)?;
        }
        multipack::pack_into_inputs(cs.namespace(|| "digest"), &digest)
    }
}

#[test]
fn sha256_workload_matches_bellperson_sha256_gadget() {
    let chain = Sha256Chain::new(2, 11);
    assert_same_everywhere(|| chain.clone(), || BellpersonChain(chain.clone()));
}

#[test]
fn circuit_errors_come_back_through_the_adapter() {
    struct Failing;
    impl bellpepper_core::Circuit<Scalar> for Failing {
        fn synthesize<CS: bellpepper_core::ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), bellpepper_core::SynthesisError> {
            // The circuit sees its own error, even one our enum lacks.
            let err = cs
                .alloc(|| "x", || Err(bellpepper_core::SynthesisError::MalformedSrs))
                .unwrap_err();
            assert!(matches!(err, bellpepper_core::SynthesisError::MalformedSrs));
            Err(err)
        }
    }
    assert_eq!(
        ProvingAssignment::<Scalar>::synthesize(Bellpepper(Failing)).unwrap_err(),
        cuzk_synth::SynthesisError::Circuit("malformed SRS".to_string())
    );
}
