use ff::PrimeField;

use super::bit::AllocatedBit;
use super::boolean::Boolean;
use super::multieq::MultiEq;
use crate::{ConstraintSystem, SynthesisError, Variable};

/// The widest sum `addmany` accepts: ten 32-bit operands fit in 36 bits.
const MAX_SUM_BITS: usize = 36;

/// A 32-bit unsigned integer as 32 [`Boolean`]s, least significant first.
///
/// Rotations and shifts only permute bits and cost nothing; XOR and SHA-256's
/// `ch`/`maj` cost at most one or two constraints per bit; additions are
/// packed by [`MultiEq`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UInt32 {
    bits: [Boolean; 32],
    value: Option<u32>,
}

fn value_of(bits: impl Iterator<Item = Boolean>) -> Option<u32> {
    bits.enumerate().try_fold(0u32, |acc, (i, b)| Some(acc | (u32::from(b.get_value()?) << i)))
}

impl UInt32 {
    /// A constant; costs nothing.
    pub fn constant(value: u32) -> Self {
        UInt32 {
            bits: std::array::from_fn(|i| Boolean::Constant((value >> i) & 1 == 1)),
            value: Some(value),
        }
    }

    /// Allocates 32 constrained bits (32 constraints).
    pub fn alloc<S, CS>(mut cs: CS, value: Option<u32>) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let mut bits = [Boolean::Constant(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            let v = value.map(|v| (v >> i) & 1 == 1);
            *bit = AllocatedBit::alloc(cs.namespace(|| format!("allocated bit {i}")), v)?.into();
        }
        Ok(UInt32 { bits, value })
    }

    /// The value, when every bit's value is known.
    pub fn get_value(&self) -> Option<u32> {
        self.value
    }

    /// The bits, least significant first.
    pub fn bits(&self) -> &[Boolean; 32] {
        &self.bits
    }

    /// The bits, least significant first.
    pub fn into_bits(self) -> Vec<Boolean> {
        self.bits.to_vec()
    }

    /// The bits, most significant first (SHA-256's word order).
    pub fn into_bits_be(self) -> Vec<Boolean> {
        self.bits.iter().rev().copied().collect()
    }

    /// From 32 bits, least significant first.
    pub fn from_bits(bits: &[Boolean]) -> Self {
        let bits: [Boolean; 32] = bits.try_into().expect("a UInt32 has 32 bits");
        UInt32 { value: value_of(bits.iter().copied()), bits }
    }

    /// From 32 bits, most significant first.
    pub fn from_bits_be(bits: &[Boolean]) -> Self {
        assert_eq!(bits.len(), 32, "a UInt32 has 32 bits");
        let bits: [Boolean; 32] = std::array::from_fn(|i| bits[31 - i]);
        UInt32 { value: value_of(bits.iter().copied()), bits }
    }

    /// Rotates right by `by` bits; free.
    pub fn rotr(&self, by: usize) -> Self {
        let by = by % 32;
        UInt32 {
            bits: std::array::from_fn(|i| self.bits[(i + by) % 32]),
            value: self.value.map(|v| v.rotate_right(by as u32)),
        }
    }

    /// Shifts right by `by` bits, filling with constant zeros; free.
    pub fn shr(&self, by: usize) -> Self {
        let by = by % 32;
        UInt32 {
            bits: std::array::from_fn(|i| {
                self.bits.get(i + by).copied().unwrap_or(Boolean::Constant(false))
            }),
            value: self.value.map(|v| v >> by),
        }
    }

    /// Bitwise XOR: one constraint per bit where neither side is constant.
    pub fn xor<S, CS>(&self, mut cs: CS, other: &Self) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let mut bits = [Boolean::Constant(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = Boolean::xor(
                cs.namespace(|| format!("xor of bit {i}")),
                &self.bits[i],
                &other.bits[i],
            )?;
        }
        let value = self.value.zip(other.value).map(|(a, b)| a ^ b);
        Ok(UInt32 { bits, value })
    }

    /// SHA-256's bitwise `ch`; see [`Boolean::sha256_ch`].
    pub fn sha256_ch<S, CS>(
        mut cs: CS,
        a: &Self,
        b: &Self,
        c: &Self,
    ) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let mut bits = [Boolean::Constant(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = Boolean::sha256_ch(
                cs.namespace(|| format!("ch {i}")),
                &a.bits[i],
                &b.bits[i],
                &c.bits[i],
            )?;
        }
        let value = match (a.value, b.value, c.value) {
            (Some(a), Some(b), Some(c)) => Some((a & b) ^ (!a & c)),
            _ => None,
        };
        Ok(UInt32 { bits, value })
    }

    /// SHA-256's bitwise `maj`; see [`Boolean::sha256_maj`].
    pub fn sha256_maj<S, CS>(
        mut cs: CS,
        a: &Self,
        b: &Self,
        c: &Self,
    ) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
    {
        let mut bits = [Boolean::Constant(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = Boolean::sha256_maj(
                cs.namespace(|| format!("maj {i}")),
                &a.bits[i],
                &b.bits[i],
                &c.bits[i],
            )?;
        }
        let value = match (a.value, b.value, c.value) {
            (Some(a), Some(b), Some(c)) => Some((a & b) ^ (a & c) ^ (b & c)),
            _ => None,
        };
        Ok(UInt32 { bits, value })
    }

    /// The sum of 2 to 10 operands modulo 2^32.
    ///
    /// Allocates every bit of the full sum (up to 36, each with its boolean
    /// constraint) and states `Σ operands = Σ 2^i·bit_i` as one equality
    /// packed into the [`MultiEq`] at the root of `cs`; the carry bits are
    /// then dropped. A sum of constants is a constant and costs nothing.
    pub fn addmany<S, CS, M>(mut cs: M, operands: &[Self]) -> Result<Self, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
        M: ConstraintSystem<S, Root = MultiEq<S, CS>>,
    {
        assert!(S::NUM_BITS >= 64, "the field must hold a 36-bit sum with room to spare");
        assert!((2..=10).contains(&operands.len()), "addmany takes 2 to 10 operands");

        let sum = operands.iter().try_fold(0u64, |acc, op| Some(acc + u64::from(op.value?)));
        let modular = sum.map(|v| v as u32);
        if let (Some(v), true) =
            (modular, operands.iter().all(|op| op.bits.iter().all(Boolean::is_constant)))
        {
            return Ok(UInt32::constant(v));
        }

        let max_sum = operands.len() as u64 * u64::from(u32::MAX);
        let num_bits = (u64::BITS - max_sum.leading_zeros()) as usize;
        let mut result = [Variable(crate::Index::Input(0)); MAX_SUM_BITS];
        let mut low_bits = [Boolean::Constant(false); 32];
        for (i, var) in result.iter_mut().enumerate().take(num_bits) {
            let bit = AllocatedBit::alloc(
                cs.namespace(|| format!("result bit {i}")),
                sum.map(|v| (v >> i) & 1 == 1),
            )?;
            *var = bit.get_variable();
            if i < 32 {
                low_bits[i] = bit.into();
            }
        }

        let Some(slot) = cs.get_root().reserve(num_bits) else {
            return Ok(UInt32 { bits: low_bits, value: modular });
        };
        let one = M::one();
        let mut lhs = std::mem::take(slot.lhs);
        for op in operands {
            let mut coeff = slot.base;
            for bit in &op.bits {
                lhs = bit.add_to_lc(one, coeff, lhs);
                coeff = coeff.double();
            }
        }
        *slot.lhs = lhs;
        let mut coeff = slot.base;
        for var in &result[..num_bits] {
            slot.rhs.push(*var, coeff);
            coeff = coeff.double();
        }
        Ok(UInt32 { bits: low_bits, value: modular })
    }
}
