use cuzk_synth::gadgets::{Boolean, MultiEq, UInt32};
use cuzk_synth::ConstraintSystem;
use proptest::prelude::*;

use crate::{flip_and_find_broken, Cs};

/// A constant or an allocated word.
fn word(cs: &mut Cs, name: &str, value: u32, constant: bool) -> UInt32 {
    if constant {
        UInt32::constant(value)
    } else {
        UInt32::alloc(cs.namespace(|| name.to_string()), Some(value)).unwrap()
    }
}

/// The value the bits of `w` spell, read from the witness.
fn bits_value(w: &UInt32) -> u32 {
    w.bits().iter().enumerate().map(|(i, b)| u32::from(b.get_value().unwrap()) << i).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bitwise_ops_match_u32(
        a: u32,
        b: u32,
        c: u32,
        consts in proptest::array::uniform3(any::<bool>()),
        by in 0usize..40,
    ) {
        let mut cs = Cs::new();
        let wa = word(&mut cs, "a", a, consts[0]);
        let wb = word(&mut cs, "b", b, consts[1]);
        let wc = word(&mut cs, "c", c, consts[2]);
        let checks = [
            (wa.rotr(by), a.rotate_right(by as u32 % 32)),
            (wa.shr(by), a >> (by % 32)),
            (wa.xor(cs.namespace(|| "xor"), &wb).unwrap(), a ^ b),
            (UInt32::sha256_ch(cs.namespace(|| "ch"), &wa, &wb, &wc).unwrap(), (a & b) ^ (!a & c)),
            (
                UInt32::sha256_maj(cs.namespace(|| "maj"), &wa, &wb, &wc).unwrap(),
                (a & b) ^ (a & c) ^ (b & c),
            ),
        ];
        for (w, expected) in checks {
            prop_assert_eq!(w.get_value(), Some(expected));
            prop_assert_eq!(bits_value(&w), expected);
        }
        prop_assert!(cs.is_satisfied());
        prop_assert!(cs.naming_errors().is_empty());
    }

    #[test]
    fn bit_orders_round_trip(v: u32) {
        let w = UInt32::constant(v);
        prop_assert_eq!(UInt32::from_bits(&w.into_bits()).get_value(), Some(v));
        prop_assert_eq!(UInt32::from_bits_be(&w.into_bits_be()).get_value(), Some(v));
        let be = w.into_bits_be();
        prop_assert_eq!(be[0].get_value(), Some(v >> 31 == 1));
    }

    #[test]
    fn addmany_matches_wrapping_sum(
        values in proptest::collection::vec((any::<u32>(), any::<bool>()), 2..=10),
    ) {
        let mut cs = Cs::new();
        let words: Vec<UInt32> = values
            .iter()
            .enumerate()
            .map(|(i, &(v, k))| word(&mut cs, &format!("w{i}"), v, k))
            .collect();
        let before = cs.num_constraints();
        let sum = {
            let mut meq = MultiEq::new(cs.namespace(|| "add"));
            UInt32::addmany(meq.namespace(|| "sum"), &words).unwrap()
        };
        let expected = values.iter().fold(0u32, |acc, &(v, _)| acc.wrapping_add(v));
        prop_assert_eq!(sum.get_value(), Some(expected));
        prop_assert_eq!(bits_value(&sum), expected);
        prop_assert!(cs.is_satisfied());
        let max = values.len() as u64 * u64::from(u32::MAX);
        let width = 64 - max.leading_zeros() as usize;
        if values.iter().all(|&(_, k)| k) {
            prop_assert_eq!(cs.num_constraints(), before);
            prop_assert!(sum.bits().iter().all(Boolean::is_constant));
        } else {
            // One boolean constraint per result bit, one packed equality.
            prop_assert_eq!(cs.num_constraints() - before, width + 1);
            let broken = flip_and_find_broken(&mut cs, "add/sum/result bit 0/boolean");
            prop_assert_eq!(broken.as_deref(), Some("add/multieq 0"));
        }
    }
}

#[test]
fn multieq_packs_until_the_field_is_full() {
    // Seven 35-bit sums (245 bits) share a constraint; the eighth starts another.
    let mut cs = Cs::new();
    let words: Vec<UInt32> = (0..8)
        .map(|i| word(&mut cs, &format!("w{i}"), 0x9e37_79b9u32.wrapping_mul(i + 1), false))
        .collect();
    let before = cs.num_constraints();
    {
        let mut meq = MultiEq::new(cs.namespace(|| "add"));
        for i in 0..8 {
            UInt32::addmany(meq.namespace(|| format!("sum {i}")), &words).unwrap();
        }
    }
    assert_eq!(cs.num_constraints() - before, 8 * 35 + 2);
    assert!(cs.is_satisfied());
    assert_eq!(
        flip_and_find_broken(&mut cs, "add/sum 7/result bit 3/boolean").as_deref(),
        Some("add/multieq 1")
    );
    // A packed constraint is named where it is written: when the eighth sum
    // no longer fits, or when the MultiEq is dropped.
    assert_eq!(
        flip_and_find_broken(&mut cs, "add/sum 6/result bit 3/boolean").as_deref(),
        Some("add/sum 7/multieq 0")
    );
    assert_eq!(cs.hash(), "349af179b4d860839ab7b3afb762027683be0891bb18d8396b5287a740ddec45");
}

#[test]
fn multieq_enforce_equal_packs_caller_equalities() {
    let mut cs = Cs::new();
    let x = cs.alloc(|| "x", || Ok(blstrs::Scalar::from(200))).unwrap();
    let y = cs.alloc(|| "y", || Ok(blstrs::Scalar::from(17))).unwrap();
    {
        let mut meq = MultiEq::new(cs.namespace(|| "eq"));
        let one = Cs::one();
        let lhs = |v| cuzk_synth::LinearCombination::zero() + v;
        let rhs = |k: u64| cuzk_synth::LinearCombination::zero() + (blstrs::Scalar::from(k), one);
        meq.enforce_equal(8, &lhs(x), &rhs(200));
        meq.enforce_equal(8, &lhs(y), &rhs(17));
    }
    assert_eq!(cs.num_constraints(), 1);
    assert!(cs.is_satisfied());
    cs.set("y", blstrs::Scalar::from(18));
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("eq/multieq 0"));
}
