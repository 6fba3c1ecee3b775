//! Gadget tests: values against native Rust, exact constraint counts,
//! pinned shape hashes, and named failures when a witness is tampered with.

mod boolean;
mod multipack;
mod num;
mod sha256;
mod uint32;

use blstrs::Scalar;
use cuzk_synth::gadgets::{AllocatedBit, Boolean};
use cuzk_synth::{ConstraintSystem, TestConstraintSystem};

/// The test system every gadget test builds in.
pub type Cs = TestConstraintSystem<Scalar>;

/// A Boolean of the given kind holding `value` (kind 0: constant, 1:
/// allocated, 2: negation of an allocated bit).
pub fn boolean_of_kind<CS: ConstraintSystem<Scalar>>(cs: CS, kind: u8, value: bool) -> Boolean {
    match kind {
        0 => Boolean::constant(value),
        1 => AllocatedBit::alloc(cs, Some(value)).unwrap().into(),
        _ => Boolean::from(AllocatedBit::alloc(cs, Some(!value)).unwrap()).not(),
    }
}

/// Flips the bit at `path` and returns the constraint that then fails.
pub fn flip_and_find_broken(cs: &mut Cs, path: &str) -> Option<String> {
    let old = cs.get(path).unwrap_or_else(|| panic!("no variable at {path}"));
    cs.set(path, Scalar::from(1) - old);
    let broken = cs.which_is_unsatisfied();
    cs.set(path, old);
    broken
}
