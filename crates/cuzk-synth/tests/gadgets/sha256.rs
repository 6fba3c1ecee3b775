use cuzk_synth::gadgets::multipack::bytes_to_bits;
use cuzk_synth::gadgets::sha256::{sha256, sha256_block_no_padding, sha256_compression_function};
use cuzk_synth::gadgets::{AllocatedBit, Boolean, UInt32};
use cuzk_synth::ConstraintSystem;
use proptest::prelude::*;
use sha2::Digest;

use crate::Cs;

fn alloc_bits(cs: &mut Cs, bytes: &[u8]) -> Vec<Boolean> {
    bytes_to_bits(bytes)
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            AllocatedBit::alloc(cs.namespace(|| format!("input bit {i}")), Some(b)).unwrap().into()
        })
        .collect()
}

fn value_bytes(bits: &[Boolean]) -> Vec<u8> {
    bits.chunks(8)
        .map(|c| c.iter().fold(0u8, |acc, b| (acc << 1) | u8::from(b.get_value().unwrap())))
        .collect()
}

#[test]
fn constant_block_costs_nothing_and_hashes_the_empty_string() {
    let mut cs = Cs::new();
    let mut block = vec![Boolean::constant(false); 512];
    block[0] = Boolean::constant(true);
    let digest = sha256_block_no_padding(&mut cs, &block).unwrap();
    assert_eq!(cs.num_constraints(), 0);
    assert_eq!(value_bytes(&digest), sha2::Sha256::digest(b"").to_vec());
}

#[test]
fn one_block_of_private_bits_costs_25840_constraints() {
    let mut cs = Cs::new();
    let block: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let bits = alloc_bits(&mut cs, &block);
    let digest = sha256_block_no_padding(cs.namespace(|| "sha256"), &bits).unwrap();
    assert_eq!(cs.num_constraints() - 512, 25_840);
    assert!(cs.is_satisfied());
    let mut state = cuzk_synth::sha256_native::IV;
    cuzk_synth::sha256_native::compress_bytes(&mut state, &block.try_into().unwrap());
    let expected: Vec<u8> = state.iter().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(value_bytes(&digest), expected);
    assert_eq!(cs.hash(), "faa75c9b22643c56e0363a66ce53f4542691ff7686547db4f04cbb7986dc9695");

    // A wrong message bit breaks the first constraint that reads it.
    let old = cs.set("input bit 100/boolean", blstrs::Scalar::from(2)).unwrap();
    assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("input bit 100/boolean constraint"));
    cs.set("input bit 100/boolean", old);
    // Flipping a digest bit of the last packed addition breaks that packing.
    let path = "sha256/new h7/result bit 0/boolean";
    let v = cs.get(path).unwrap();
    cs.set(path, blstrs::Scalar::from(1) - v);
    assert!(cs.which_is_unsatisfied().unwrap().starts_with("sha256/multieq "));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn compression_with_a_private_state_matches_native(
        block in proptest::array::uniform32(any::<u16>()),
        state in proptest::array::uniform8(any::<u32>()),
    ) {
        let bytes: Vec<u8> = block.iter().flat_map(|v| v.to_be_bytes()).collect();
        let mut cs = Cs::new();
        let bits = alloc_bits(&mut cs, &bytes);
        let words: Vec<UInt32> = state
            .iter()
            .enumerate()
            .map(|(i, &v)| UInt32::alloc(cs.namespace(|| format!("state {i}")), Some(v)).unwrap())
            .collect();
        let out = sha256_compression_function(cs.namespace(|| "compress"), &bits, &words).unwrap();
        prop_assert!(cs.is_satisfied());
        let mut expected = state;
        sha2::compress256(&mut expected, &[<[u8; 64]>::try_from(bytes).unwrap().into()]);
        let got: Vec<u32> = out.iter().map(|w| w.get_value().unwrap()).collect();
        prop_assert_eq!(got, expected.to_vec());
    }

    #[test]
    fn padded_hash_matches_sha2(data in proptest::collection::vec(any::<u8>(), 0..120)) {
        let mut cs = Cs::new();
        let bits = alloc_bits(&mut cs, &data);
        let digest = sha256(cs.namespace(|| "sha256"), &bits).unwrap();
        prop_assert!(cs.is_satisfied());
        prop_assert_eq!(value_bytes(&digest), sha2::Sha256::digest(&data).to_vec());
    }
}
