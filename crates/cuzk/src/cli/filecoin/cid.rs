//! Commitment CIDs as Lotus and Curio print them: the CID bytes in
//! multibase base32 (prefix `b`, RFC 4648 lower-case alphabet, no padding),
//! as go-cid's `String()` writes a CIDv1 — `bagboea4b5abc…` for a CommR,
//! `baga6ea4seaq…` for a CommD. Only the text form is handled here; the
//! bytes are checked (version, codec, multihash, digest) by
//! `cuzk::filecoin::commitment`. No CID crate is in the dependency tree, and
//! this is all of the format the command line needs.

/// RFC 4648 base32, lower case.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Multibase's prefix for base32 lower case without padding.
const BASE32_PREFIX: char = 'b';

/// The multibase base32 text of CID bytes.
pub fn to_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(1 + (bytes.len() * 8).div_ceil(5));
    out.push(BASE32_PREFIX);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((acc << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// The CID bytes of multibase base32 text. Refuses another multibase (the
/// prefix names it), characters outside the alphabet, and a last character
/// with bits that encode nothing (two spellings of one CID).
pub fn from_string(text: &str) -> Result<Vec<u8>, String> {
    let Some(body) = text.strip_prefix(BASE32_PREFIX) else {
        let prefix = text.chars().next().map_or("nothing".to_string(), |c| format!("{c:?}"));
        return Err(format!("a CID string starts with 'b' (multibase base32), this one with {prefix}"));
    };
    let mut out = Vec::with_capacity(body.len() * 5 / 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in body.chars().enumerate() {
        let Some(value) = ALPHABET.iter().position(|&a| char::from(a) == c) else {
            return Err(format!("character {} ({c:?}) is not base32 (a-z, 2-7)", i + 1));
        };
        acc = ((acc << 5) | value as u32) & 0xffff;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    if bits >= 5 || acc & ((1 << bits) - 1) != 0 {
        return Err("its length or last character is not that of base32 bytes".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk::filecoin::commitment::{to_cid_bytes, CommitmentKind};

    #[test]
    fn filecoin_commitment_cids_read_as_lotus_prints_them() {
        let digest = [7u8; 32];
        let comm_r = to_string(&to_cid_bytes(CommitmentKind::Sealed, &digest));
        let comm_d = to_string(&to_cid_bytes(CommitmentKind::Unsealed, &digest));
        // The prefixes every CommR and CommD CID string on chain starts with.
        assert!(comm_r.starts_with("bagboea4b5abc"), "{comm_r}");
        assert!(comm_d.starts_with("baga6ea4seaq"), "{comm_d}");
        assert_eq!(from_string(&comm_r).unwrap(), to_cid_bytes(CommitmentKind::Sealed, &digest));
        assert_eq!(from_string(&comm_d).unwrap(), to_cid_bytes(CommitmentKind::Unsealed, &digest));
    }

    #[test]
    fn every_length_round_trips() {
        let bytes: Vec<u8> = (0..=255u8).rev().collect();
        for n in 0..40 {
            assert_eq!(from_string(&to_string(&bytes[..n])).unwrap(), &bytes[..n], "{n} bytes");
        }
        // RFC 4648's test vector.
        assert_eq!(to_string(b"foobar"), "bmzxw6ytboi");
    }

    #[test]
    fn other_bases_letters_and_spare_bits_are_refused() {
        assert!(from_string("zQm").unwrap_err().contains("'z'"));
        assert!(from_string("").unwrap_err().contains("nothing"));
        assert!(from_string("bmzxw6ytbo1").unwrap_err().contains("character 10 ('1')"));
        assert!(from_string("bMZXW6YTBOI").unwrap_err().contains("not base32"));
        // "bmzxw6ytboi" with its last character's unused bit set.
        assert!(from_string("bmzxw6ytboj").unwrap_err().contains("last character"));
        // One character too many: 5 bits that make no byte.
        assert!(from_string("bmzxw6ytboia").unwrap_err().contains("length"));
    }
}
