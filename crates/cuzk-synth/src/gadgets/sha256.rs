use ff::PrimeField;

use super::boolean::Boolean;
use super::multieq::MultiEq;
use super::uint32::UInt32;
use crate::sha256_native::{IV, ROUND_CONSTANTS};
use crate::{ConstraintSystem, SynthesisError};

/// SHA-256's initial state as constants.
pub fn sha256_iv() -> [UInt32; 8] {
    IV.map(UInt32::constant)
}

/// Compresses one 512-bit block (bits most significant first, as the
/// standard reads them) from the initial state, without padding; returns the
/// 256 digest bits in the same order.
pub fn sha256_block_no_padding<S, CS>(
    mut cs: CS,
    input: &[Boolean],
) -> Result<Vec<Boolean>, SynthesisError>
where
    S: PrimeField,
    CS: ConstraintSystem<S>,
{
    assert_eq!(input.len(), 512, "a SHA-256 block has 512 bits");
    let state = sha256_compression_function(&mut cs, input, &sha256_iv())?;
    Ok(state.into_iter().flat_map(UInt32::into_bits_be).collect())
}

/// SHA-256 of a whole number of bytes (bits most significant first),
/// padding included; the padding is constant and costs nothing.
pub fn sha256<S, CS>(mut cs: CS, input: &[Boolean]) -> Result<Vec<Boolean>, SynthesisError>
where
    S: PrimeField,
    CS: ConstraintSystem<S>,
{
    assert_eq!(input.len() % 8, 0, "SHA-256 input must be whole bytes");
    let bit_length = input.len() as u64;
    let mut padded = input.to_vec();
    padded.push(Boolean::Constant(true));
    while (padded.len() + 64) % 512 != 0 {
        padded.push(Boolean::Constant(false));
    }
    padded.extend((0..64).rev().map(|i| Boolean::Constant((bit_length >> i) & 1 == 1)));

    let mut state = sha256_iv();
    for (i, block) in padded.chunks(512).enumerate() {
        state = sha256_compression_function(cs.namespace(|| format!("block {i}")), block, &state)?;
    }
    Ok(state.into_iter().flat_map(UInt32::into_bits_be).collect())
}

/// A word kept as the summands of an addition not yet performed: SHA-256's
/// `a` and `e` are each only ever used after one more addition, and one
/// wide `addmany` costs less than two narrow ones. One summand is the word
/// itself.
///
/// A word is 32 [`Boolean`]s (about 0.8 KB), so the summands are replaced
/// and consumed in place: copying whole sums each round was a quarter of
/// the witness-only pass (callgrind).
struct Sum {
    terms: [UInt32; 8],
    len: usize,
}

impl Sum {
    fn of(word: UInt32) -> Self {
        Sum { terms: [word; 8], len: 1 }
    }

    /// Replaces the summands with `parts`, one after the other.
    fn set(&mut self, parts: &[&[UInt32]]) {
        self.len = 0;
        for part in parts {
            self.terms[self.len..self.len + part.len()].copy_from_slice(part);
            self.len += part.len();
        }
    }

    /// The sum plus `extra`, with one `addmany` unless it is a single word.
    /// The summands are spent: `set` them again before the next use.
    fn compute<S, CS, M>(&mut self, cs: M, extra: Option<UInt32>) -> Result<UInt32, SynthesisError>
    where
        S: PrimeField,
        CS: ConstraintSystem<S>,
        M: ConstraintSystem<S, Root = MultiEq<S, CS>>,
    {
        if let Some(e) = extra {
            self.terms[self.len] = e;
            self.len += 1;
        }
        match self.len {
            1 => Ok(self.terms[0]),
            n => UInt32::addmany(cs, &self.terms[..n]),
        }
    }
}

/// One application of SHA-256's compression function to `state` and a
/// 512-bit block (bits most significant first).
///
/// All additions share one [`MultiEq`], so their equalities are packed
/// several to a constraint: 25,840 constraints for a block of allocated bits
/// from a constant state.
pub fn sha256_compression_function<S, CS>(
    cs: CS,
    input: &[Boolean],
    state: &[UInt32],
) -> Result<[UInt32; 8], SynthesisError>
where
    S: PrimeField,
    CS: ConstraintSystem<S>,
{
    assert_eq!(input.len(), 512, "a SHA-256 block has 512 bits");
    assert_eq!(state.len(), 8, "the SHA-256 state has 8 words");

    let mut w = [UInt32::constant(0); 64];
    for (word, bits) in w.iter_mut().zip(input.chunks(32)) {
        *word = UInt32::from_bits_be(bits);
    }
    let mut cs = MultiEq::new(cs);

    for i in 16..64 {
        let cs = &mut cs.namespace(|| format!("w extension {i}"));
        let s0 = w[i - 15].rotr(7).xor(cs.namespace(|| "first xor for s0"), &w[i - 15].rotr(18))?;
        let s0 = s0.xor(cs.namespace(|| "second xor for s0"), &w[i - 15].shr(3))?;
        let s1 = w[i - 2].rotr(17).xor(cs.namespace(|| "first xor for s1"), &w[i - 2].rotr(19))?;
        let s1 = s1.xor(cs.namespace(|| "second xor for s1"), &w[i - 2].shr(10))?;
        w[i] = UInt32::addmany(
            cs.namespace(|| "computation of w[i]"),
            &[w[i - 16], s0, w[i - 7], s1],
        )?;
    }

    let (mut a, mut b, mut c, mut d) = (Sum::of(state[0]), state[1], state[2], state[3]);
    let (mut e, mut f, mut g, mut h) = (Sum::of(state[4]), state[5], state[6], state[7]);

    for i in 0..64 {
        let cs = &mut cs.namespace(|| format!("compression round {i}"));

        let new_e = e.compute(cs.namespace(|| "deferred e computation"), None)?;
        let s1 = new_e.rotr(6).xor(cs.namespace(|| "first xor for s1"), &new_e.rotr(11))?;
        let s1 = s1.xor(cs.namespace(|| "second xor for s1"), &new_e.rotr(25))?;
        let ch = UInt32::sha256_ch(cs.namespace(|| "ch"), &new_e, &f, &g)?;
        let temp1 = [h, s1, ch, UInt32::constant(ROUND_CONSTANTS[i]), w[i]];

        let new_a = a.compute(cs.namespace(|| "deferred a computation"), None)?;
        let s0 = new_a.rotr(2).xor(cs.namespace(|| "first xor for s0"), &new_a.rotr(13))?;
        let s0 = s0.xor(cs.namespace(|| "second xor for s0"), &new_a.rotr(22))?;
        let maj = UInt32::sha256_maj(cs.namespace(|| "maj"), &new_a, &b, &c)?;

        h = g;
        g = f;
        f = new_e;
        e.set(&[&temp1, &[d]]);
        d = c;
        c = b;
        b = new_a;
        a.set(&[&temp1, &[s0, maj]]);
    }

    let h0 = a.compute(cs.namespace(|| "deferred h0 computation"), Some(state[0]))?;
    let h1 = UInt32::addmany(cs.namespace(|| "new h1"), &[state[1], b])?;
    let h2 = UInt32::addmany(cs.namespace(|| "new h2"), &[state[2], c])?;
    let h3 = UInt32::addmany(cs.namespace(|| "new h3"), &[state[3], d])?;
    let h4 = e.compute(cs.namespace(|| "deferred h4 computation"), Some(state[4]))?;
    let h5 = UInt32::addmany(cs.namespace(|| "new h5"), &[state[5], f])?;
    let h6 = UInt32::addmany(cs.namespace(|| "new h6"), &[state[6], g])?;
    let h7 = UInt32::addmany(cs.namespace(|| "new h7"), &[state[7], h])?;
    Ok([h0, h1, h2, h3, h4, h5, h6, h7])
}
