use ff::PrimeField;

use super::boolean::Boolean;
use crate::{ConstraintSystem, LinearCombination, SynthesisError};

/// Exposes `bits` as public inputs, `S::CAPACITY` bits per input (the first
/// bit of each chunk is the least significant): one input and one constraint
/// `(Σ 2^i·bit_i) · 1 = input` per chunk. 256 bits take two inputs.
pub fn pack_into_inputs<S, CS>(mut cs: CS, bits: &[Boolean]) -> Result<(), SynthesisError>
where
    S: PrimeField,
    CS: ConstraintSystem<S>,
{
    let one = CS::one();
    for (i, chunk) in bits.chunks(S::CAPACITY as usize).enumerate() {
        let known = chunk.iter().all(|b| b.get_value().is_some());
        let value = known.then(|| pack::<S>(chunk.iter().map(|b| b.get_value() == Some(true))));
        let input = cs.alloc_input(
            || format!("input {i}"),
            || value.ok_or(SynthesisError::AssignmentMissing),
        )?;
        cs.enforce(
            || format!("packing constraint {i}"),
            |lc| pack_lc(one, chunk, lc),
            |lc| lc + one,
            |lc| lc + input,
        );
    }
    Ok(())
}

/// Appends `Σ 2^i·bits[i]` to `lc`.
fn pack_lc<S: PrimeField>(
    one: crate::Variable,
    bits: &[Boolean],
    mut lc: LinearCombination<S>,
) -> LinearCombination<S> {
    let mut coeff = S::ONE;
    for bit in bits {
        lc = bit.add_to_lc(one, coeff, lc);
        coeff = coeff.double();
    }
    lc
}

/// `Σ 2^i·bits[i]`.
fn pack<S: PrimeField>(bits: impl Iterator<Item = bool>) -> S {
    let mut acc = S::ZERO;
    let mut coeff = S::ONE;
    for bit in bits {
        if bit {
            acc += coeff;
        }
        coeff = coeff.double();
    }
    acc
}

/// The inputs [`pack_into_inputs`] allocates for `bits`, computed natively.
pub fn compute_multipacking<S: PrimeField>(bits: &[bool]) -> Vec<S> {
    bits.chunks(S::CAPACITY as usize).map(|chunk| pack(chunk.iter().copied())).collect()
}

/// The bits of `bytes`, each byte most significant bit first.
pub fn bytes_to_bits(bytes: &[u8]) -> Vec<bool> {
    bytes.iter().flat_map(|&b| (0..8).rev().map(move |i| (b >> i) & 1 == 1)).collect()
}

/// The bits of `bytes`, each byte least significant bit first.
pub fn bytes_to_bits_le(bytes: &[u8]) -> Vec<bool> {
    bytes.iter().flat_map(|&b| (0..8).map(move |i| (b >> i) & 1 == 1)).collect()
}
