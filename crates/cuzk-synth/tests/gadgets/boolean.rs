use blstrs::Scalar;
use cuzk_synth::gadgets::{AllocatedBit, Boolean};
use cuzk_synth::{ConstraintSystem, SynthesisError};

use crate::{boolean_of_kind, flip_and_find_broken, Cs};

type Gate = fn(&mut Cs, &Boolean, &Boolean, &Boolean) -> Result<Boolean, SynthesisError>;
type Native = fn(bool, bool, bool) -> bool;

/// Every gate, its native meaning, and its constraint cost when no operand is constant.
fn gates() -> [(&'static str, Gate, Native, usize); 4] {
    [
        ("xor", |cs, a, b, _| Boolean::xor(cs.namespace(|| "gate"), a, b), |a, b, _| a ^ b, 1),
        ("and", |cs, a, b, _| Boolean::and(cs.namespace(|| "gate"), a, b), |a, b, _| a & b, 1),
        (
            "ch",
            |cs, a, b, c| Boolean::sha256_ch(cs.namespace(|| "gate"), a, b, c),
            |a, b, c| (a & b) ^ (!a & c),
            1,
        ),
        (
            "maj",
            |cs, a, b, c| Boolean::sha256_maj(cs.namespace(|| "gate"), a, b, c),
            |a, b, c| (a & b) ^ (a & c) ^ (b & c),
            2,
        ),
    ]
}

#[test]
fn gates_compute_their_truth_tables_for_every_operand_kind() {
    for (name, gate, native, full_cost) in gates() {
        for kinds in 0..27u8 {
            for values in 0..8u8 {
                let (ka, kb, kc) = (kinds % 3, kinds / 3 % 3, kinds / 9);
                let (va, vb, vc) = (values & 1 == 1, values & 2 == 2, values & 4 == 4);
                let mut cs = Cs::new();
                let a = boolean_of_kind(cs.namespace(|| "a"), ka, va);
                let b = boolean_of_kind(cs.namespace(|| "b"), kb, vb);
                let c = boolean_of_kind(cs.namespace(|| "c"), kc, vc);
                let before = cs.num_constraints();
                let out = gate(&mut cs, &a, &b, &c).unwrap();
                let ctx = format!("{name} kinds {ka}{kb}{kc} values {va}{vb}{vc}");
                assert_eq!(out.get_value(), Some(native(va, vb, vc)), "{ctx}");
                assert!(cs.is_satisfied(), "{ctx}: {:?}", cs.which_is_unsatisfied());
                let uses_c = matches!(name, "ch" | "maj");
                let no_constants = ka != 0 && kb != 0 && (kc != 0 || !uses_c);
                let cost = cs.num_constraints() - before;
                if no_constants {
                    assert_eq!(cost, full_cost, "{ctx}");
                } else {
                    assert!(
                        cost <= 1,
                        "{ctx}: a constant operand must save constraints, cost {cost}"
                    );
                }
                // A fresh output variable must be pinned by the gate's constraints.
                if let (Boolean::Is(bit) | Boolean::Not(bit), true) = (out, cost > 0) {
                    let path = cs.path(bit.get_variable()).unwrap().to_string();
                    assert!(
                        flip_and_find_broken(&mut cs, &path).unwrap().starts_with("gate/"),
                        "{ctx}"
                    );
                }
            }
        }
    }
}

#[test]
fn allocated_bit_gates_are_each_one_constraint() {
    type BitGate = fn(&mut Cs, &AllocatedBit, &AllocatedBit) -> AllocatedBit;
    type Native = fn(bool, bool) -> bool;
    let cases: [(BitGate, Native, &str); 4] = [
        (
            |cs, a, b| AllocatedBit::xor(cs.namespace(|| "g"), a, b).unwrap(),
            |a, b| a ^ b,
            "g/xor constraint",
        ),
        (
            |cs, a, b| AllocatedBit::and(cs.namespace(|| "g"), a, b).unwrap(),
            |a, b| a & b,
            "g/and constraint",
        ),
        (
            |cs, a, b| AllocatedBit::and_not(cs.namespace(|| "g"), a, b).unwrap(),
            |a, b| a & !b,
            "g/and not constraint",
        ),
        (
            |cs, a, b| AllocatedBit::nor(cs.namespace(|| "g"), a, b).unwrap(),
            |a, b| !a & !b,
            "g/nor constraint",
        ),
    ];
    for (gate, native, constraint) in cases {
        for (va, vb) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut cs = Cs::new();
            let a = AllocatedBit::alloc(cs.namespace(|| "a"), Some(va)).unwrap();
            let b = AllocatedBit::alloc(cs.namespace(|| "b"), Some(vb)).unwrap();
            let out = gate(&mut cs, &a, &b);
            assert_eq!(out.get_value(), Some(native(va, vb)));
            assert_eq!(cs.num_constraints(), 3);
            assert!(cs.is_satisfied());
            let path = cs.path(out.get_variable()).unwrap().to_string();
            assert_eq!(flip_and_find_broken(&mut cs, &path).as_deref(), Some(constraint));
        }
    }
}

#[test]
fn enforce_equal_holds_exactly_for_equal_values() {
    for kinds in 0..9u8 {
        for values in 0..4u8 {
            let (ka, kb) = (kinds % 3, kinds / 3);
            let (va, vb) = (values & 1 == 1, values & 2 == 2);
            let mut cs = Cs::new();
            let a = boolean_of_kind(cs.namespace(|| "a"), ka, va);
            let b = boolean_of_kind(cs.namespace(|| "b"), kb, vb);
            let result = Boolean::enforce_equal(cs.namespace(|| "eq"), &a, &b);
            if ka == 0 && kb == 0 {
                assert_eq!(result.is_ok(), va == vb);
                assert_eq!(cs.num_constraints(), 0);
            } else {
                result.unwrap();
                assert_eq!(cs.is_satisfied(), va == vb, "kinds {ka}{kb} values {va}{vb}");
                if va != vb {
                    assert!(cs.which_is_unsatisfied().unwrap().starts_with("eq/enforce equal"));
                }
            }
        }
    }
}

#[test]
fn lc_helpers_append_instead_of_replacing() {
    let mut cs = Cs::new();
    let bit = Boolean::from(AllocatedBit::alloc(cs.namespace(|| "x"), Some(true)).unwrap()).not();
    let one = Cs::one();
    let lc = bit.add_to_lc(one, Scalar::from(3), cuzk_synth::LinearCombination::zero() + one);
    assert_eq!(lc.len(), 3);
    let lc = bit.sub_from_lc(one, Scalar::from(3), lc);
    assert_eq!(lc.len(), 5);
    // 1 + 3·(1 − x) − 3·(1 − x) = 1 for any x.
    assert_eq!(lc.eval(&[Scalar::from(1)], &[Scalar::from(1)]), Scalar::from(1));
    assert_eq!(
        bit.lc(one, Scalar::from(2)).eval(&[Scalar::from(1)], &[Scalar::from(0)]),
        Scalar::from(2)
    );
}
