use blstrs::Scalar;
use cuzk_synth::gadgets::AllocatedNum;
use cuzk_synth::ConstraintSystem;

use crate::Cs;

#[test]
fn mul_square_and_inputize() {
    let mut cs = Cs::new();
    let x = AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Scalar::from(6))).unwrap();
    let y = AllocatedNum::alloc(cs.namespace(|| "y"), || Ok(Scalar::from(7))).unwrap();
    let xy = x.mul(cs.namespace(|| "xy"), &y).unwrap();
    let sq = xy.square(cs.namespace(|| "sq")).unwrap();
    sq.inputize(cs.namespace(|| "out")).unwrap();
    assert_eq!(xy.get_value(), Some(Scalar::from(42)));
    assert_eq!(sq.get_value(), Some(Scalar::from(42 * 42)));
    assert_eq!((cs.num_constraints(), cs.num_inputs(), cs.num_aux()), (3, 2, 4));
    assert!(cs.verify(&[Scalar::from(42 * 42)]));
    assert!(cs.is_satisfied());

    cs.set("xy/product num", Scalar::from(41));
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("xy/multiplication constraint"));
    cs.set("xy/product num", Scalar::from(42));
    cs.set("out/input variable", Scalar::from(5));
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("out/enforce input is correct"));
}

#[test]
fn missing_values_surface_as_errors() {
    let mut cs = Cs::new();
    let err = AllocatedNum::<Scalar>::alloc(cs.namespace(|| "x"), || {
        Err(cuzk_synth::SynthesisError::AssignmentMissing)
    });
    assert_eq!(err.unwrap_err(), cuzk_synth::SynthesisError::AssignmentMissing);
}
