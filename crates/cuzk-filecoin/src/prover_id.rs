//! The prover id of a miner: what filecoin-proofs binds into the PoRep
//! replica id, so a proof made under the wrong miner id fails `verify_seal`.

/// The 32-byte prover id of miner `miner_id`: the payload of its Filecoin ID
/// address (the unsigned LEB128 varint of the id), left-aligned and
/// zero-padded, as Lotus' and Curio's `toProverID` build it.
pub fn prover_id(miner_id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut rest = miner_id;
    for byte in out.iter_mut() {
        let low = (rest & 0x7f) as u8;
        rest >>= 7;
        if rest == 0 {
            *byte = low;
            break;
        }
        *byte = low | 0x80;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::prover_id;

    #[test]
    fn varint_payloads() {
        assert_eq!(prover_id(0)[..2], [0, 0]);
        assert_eq!(prover_id(1000)[..3], [0xe8, 0x07, 0]);
        assert_eq!(prover_id(127)[..2], [0x7f, 0]);
        assert_eq!(prover_id(128)[..3], [0x80, 0x01, 0]);
        let max = prover_id(u64::MAX);
        assert_eq!(max[..10], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert!(max[10..].iter().all(|&b| b == 0));
    }
}
