use ff::PrimeField;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::gadgets::multipack::{bytes_to_bits, compute_multipacking, pack_into_inputs};
use crate::gadgets::sha256::{sha256_compression_function, sha256_iv};
use crate::gadgets::{AllocatedBit, Boolean};
use crate::sha256_native::{compress_bytes, IV};
use crate::{Circuit, ConstraintSystem, SynthesisError};

/// Constraints per link of the chain: 256 sibling bits and one compression.
pub const SHA256_CONSTRAINTS_PER_STEP: usize = 26_096;
/// Constraints besides the links: the first block's other 256 bits and the
/// two packing constraints of the digest.
pub const SHA256_EXTRA_CONSTRAINTS: usize = 258;

/// The "sha256 N" workload: a Merkle-path-like chain of N SHA-256
/// compressions. `d_1 = compress(IV, first_block)` and
/// `d_k = compress(IV, d_{k-1} ‖ sibling_k)`, every witness bit private, the
/// final digest packed into two public inputs. Almost every aux value is a
/// bit, like Filecoin's PoRep labelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sha256Chain {
    first_block: [u8; 64],
    siblings: Vec<[u8; 32]>,
}

impl Sha256Chain {
    /// A chain of `n` compressions with a witness drawn from `seed`.
    ///
    /// # Panics
    /// If `n` is zero.
    pub fn new(n: usize, seed: u64) -> Self {
        assert!(n > 0, "a sha256 chain has at least one compression");
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut first_block = [0u8; 64];
        rng.fill_bytes(&mut first_block);
        let siblings = (1..n)
            .map(|_| {
                let mut s = [0u8; 32];
                rng.fill_bytes(&mut s);
                s
            })
            .collect();
        Sha256Chain { first_block, siblings }
    }

    /// A chain with an explicit witness: `1 + siblings.len()` compressions.
    pub fn from_witness(first_block: [u8; 64], siblings: Vec<[u8; 32]>) -> Self {
        Sha256Chain { first_block, siblings }
    }

    /// Number of compressions.
    pub fn len(&self) -> usize {
        1 + self.siblings.len()
    }

    /// Always false: a chain has at least one compression.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The first block's bytes.
    pub fn first_block(&self) -> &[u8; 64] {
        &self.first_block
    }

    /// The sibling halves of blocks 2..=N.
    pub fn siblings(&self) -> &[[u8; 32]] {
        &self.siblings
    }

    /// Constraints of a chain of `n` compressions.
    pub fn expected_constraints(n: usize) -> usize {
        SHA256_CONSTRAINTS_PER_STEP * n + SHA256_EXTRA_CONSTRAINTS
    }

    /// The final digest, computed natively.
    pub fn digest(&self) -> [u8; 32] {
        let mut state = IV;
        compress_bytes(&mut state, &self.first_block);
        for sibling in &self.siblings {
            let mut block = [0u8; 64];
            for (out, word) in block.chunks_exact_mut(4).zip(state) {
                out.copy_from_slice(&word.to_be_bytes());
            }
            block[32..].copy_from_slice(sibling);
            state = IV;
            compress_bytes(&mut state, &block);
        }
        let mut digest = [0u8; 32];
        for (out, word) in digest.chunks_exact_mut(4).zip(state) {
            out.copy_from_slice(&word.to_be_bytes());
        }
        digest
    }

    /// The public inputs (after the constant one), computed natively.
    pub fn public_inputs<S: PrimeField>(&self) -> Vec<S> {
        compute_multipacking(&bytes_to_bits(&self.digest()))
    }
}

/// Allocates the bits of `bytes` (most significant first) into `out`.
fn alloc_bytes<S, CS>(
    mut cs: CS,
    bytes: &[u8],
    out: &mut Vec<Boolean>,
) -> Result<(), SynthesisError>
where
    S: PrimeField,
    CS: ConstraintSystem<S>,
{
    for (i, bit) in bytes_to_bits(bytes).into_iter().enumerate() {
        out.push(AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(bit))?.into());
    }
    Ok(())
}

impl<S: PrimeField> Circuit<S> for Sha256Chain {
    fn synthesize<CS: ConstraintSystem<S>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let iv = sha256_iv();
        let mut block = Vec::with_capacity(512);
        alloc_bytes(cs.namespace(|| "block 0"), &self.first_block, &mut block)?;
        let mut state = sha256_compression_function(cs.namespace(|| "compression 0"), &block, &iv)?;
        for (k, sibling) in self.siblings.iter().enumerate() {
            block.clear();
            block.extend(state.into_iter().flat_map(|w| w.into_bits_be()));
            alloc_bytes(cs.namespace(|| format!("sibling {}", k + 1)), sibling, &mut block)?;
            state = sha256_compression_function(
                cs.namespace(|| format!("compression {}", k + 1)),
                &block,
                &iv,
            )?;
        }
        let digest: Vec<Boolean> = state.into_iter().flat_map(|w| w.into_bits_be()).collect();
        pack_into_inputs(cs.namespace(|| "digest"), &digest)
    }
}
