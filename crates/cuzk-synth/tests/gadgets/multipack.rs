use blstrs::Scalar;
use cuzk_synth::gadgets::multipack::{
    bytes_to_bits, bytes_to_bits_le, compute_multipacking, pack_into_inputs,
};
use cuzk_synth::gadgets::{AllocatedBit, Boolean};
use cuzk_synth::ConstraintSystem;
use ff::PrimeField;
use proptest::prelude::*;

use crate::Cs;

#[test]
fn byte_bit_orders() {
    assert_eq!(
        bytes_to_bits(&[0b1000_0001, 0x02]),
        [
            true, false, false, false, false, false, false, true, false, false, false, false,
            false, false, true, false
        ]
    );
    assert_eq!(
        bytes_to_bits_le(&[0b1000_0001, 0x02]),
        [
            true, false, false, false, false, false, false, true, false, true, false, false, false,
            false, false, false
        ]
    );
}

#[test]
fn packing_is_little_endian_by_capacity_chunks() {
    let mut bits = vec![false; Scalar::CAPACITY as usize + 3];
    bits[1] = true;
    bits[Scalar::CAPACITY as usize + 2] = true;
    assert_eq!(compute_multipacking::<Scalar>(&bits), [Scalar::from(2), Scalar::from(4)]);
    assert!(compute_multipacking::<Scalar>(&[]).is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn pack_into_inputs_matches_native_packing(
        bits in proptest::collection::vec(any::<bool>(), 0..600),
        constant_every in 1usize..8,
    ) {
        let mut cs = Cs::new();
        let booleans: Vec<Boolean> = bits
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if i % constant_every == 0 {
                    Boolean::constant(b)
                } else {
                    let ns = cs.namespace(|| format!("bit {i}"));
                    AllocatedBit::alloc(ns, Some(b)).unwrap().into()
                }
            })
            .collect();
        let before = cs.num_constraints();
        pack_into_inputs(cs.namespace(|| "pack"), &booleans).unwrap();
        let expected = compute_multipacking::<Scalar>(&bits);
        prop_assert_eq!(cs.num_constraints() - before, expected.len());
        prop_assert!(cs.verify(&expected));
        prop_assert!(cs.is_satisfied());
        if !expected.is_empty() {
            cs.set("pack/input 0", expected[0] + Scalar::from(1));
            let broken = cs.which_is_unsatisfied();
            prop_assert_eq!(broken.as_deref(), Some("pack/packing constraint 0"));
        }
    }
}
