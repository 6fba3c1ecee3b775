//! Sector commitments as requests carry them: either the bare 32-byte digest
//! filecoin-proofs takes, or the bytes of the CID Lotus and Curio pass around
//! (Curio's cuzk client sends `cid.Bytes()` for SnapDeals' CommROld, CommRNew
//! and CommDNew). Both become the digest, checked to be a BLS12-381 scalar,
//! because filecoin-proofs' circuits panic on one that is not.
//!
//! A commitment CID is CIDv1 bytes: `varint(1) ‖ varint(codec) ‖
//! varint(multihash code) ‖ varint(digest length = 32) ‖ digest`, with
//! Filecoin's codes from the multicodec table (go-fil-commcid
//! `ReplicaCommitmentV1ToCID` / `DataCommitmentV1ToCID`, go-multihash and
//! go-cid constants): CommR is `fil-commitment-sealed` (0xf102) with
//! `poseidon-bls12_381-a2-fc1` (0xb401, go-multihash's
//! `POSEIDON_BLS12_381_A1_FC1`); CommD is `fil-commitment-unsealed` (0xf101)
//! with `sha2-256-trunc254-padded` (0x1012). The decoder is a few lines, so
//! no CID crate is pulled in for it.

use blstrs::Scalar;
use ff::PrimeField;

use crate::error::FilecoinError;

/// Multicodec of a sealed sector's replica commitment (CommR).
pub const FIL_COMMITMENT_SEALED: u64 = 0xf102;
/// Multicodec of an unsealed sector's data commitment (CommD, CommP).
pub const FIL_COMMITMENT_UNSEALED: u64 = 0xf101;
/// Multihash of CommR: Poseidon over BLS12-381, arity 2, Filecoin constants.
pub const POSEIDON_BLS12_381_A2_FC1: u64 = 0xb401;
/// Multihash of CommD: SHA-256 with the top two bits cleared, over Fr32-padded data.
pub const SHA2_256_TRUNC254_PADDED: u64 = 0x1012;

/// Bytes of a commitment digest.
pub const DIGEST_BYTES: usize = 32;

/// Which commitment a field holds, which fixes the codec and multihash its CID must carry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CommitmentKind {
    /// A replica commitment (CommR): `fil-commitment-sealed`, `poseidon-bls12_381-a2-fc1`.
    Sealed,
    /// A data commitment (CommD): `fil-commitment-unsealed`, `sha2-256-trunc254-padded`.
    Unsealed,
}

impl CommitmentKind {
    /// The CID codec of this kind.
    pub fn codec(self) -> u64 {
        match self {
            CommitmentKind::Sealed => FIL_COMMITMENT_SEALED,
            CommitmentKind::Unsealed => FIL_COMMITMENT_UNSEALED,
        }
    }

    /// The multihash code of this kind.
    pub fn multihash(self) -> u64 {
        match self {
            CommitmentKind::Sealed => POSEIDON_BLS12_381_A2_FC1,
            CommitmentKind::Unsealed => SHA2_256_TRUNC254_PADDED,
        }
    }

    fn name(self) -> &'static str {
        match self {
            CommitmentKind::Sealed => "CommR",
            CommitmentKind::Unsealed => "CommD",
        }
    }
}

/// The multicodec name of a code, for messages.
fn code_name(code: u64) -> String {
    let name = match code {
        FIL_COMMITMENT_SEALED => "fil-commitment-sealed",
        FIL_COMMITMENT_UNSEALED => "fil-commitment-unsealed",
        POSEIDON_BLS12_381_A2_FC1 => "poseidon-bls12_381-a2-fc1",
        SHA2_256_TRUNC254_PADDED => "sha2-256-trunc254-padded",
        _ => return format!("{code:#x}"),
    };
    format!("{name} ({code:#x})")
}

/// The digest of commitment `field` (named in errors) of `kind`, given as a
/// 32-byte digest or as the bytes of its CID. Refuses a CID of another kind
/// (a CommD where a CommR belongs), a digest that is not 32 bytes, trailing
/// bytes, and a digest that is not a canonical BLS12-381 scalar.
pub fn parse(field: &str, kind: CommitmentKind, bytes: &[u8]) -> Result<[u8; DIGEST_BYTES], FilecoinError> {
    let digest = match <[u8; DIGEST_BYTES]>::try_from(bytes) {
        Ok(digest) => digest,
        Err(_) => from_cid(kind, bytes).map_err(|reason| {
            let what = format!("neither a {DIGEST_BYTES}-byte digest nor a {} CID", kind.name());
            FilecoinError::input(field, format!("{what}: {reason}"))
        })?,
    };
    if Option::<Scalar>::from(Scalar::from_repr(digest)).is_none() {
        let why = "the digest is not a BLS12-381 scalar (little-endian, below the modulus)";
        return Err(FilecoinError::input(field, why));
    }
    Ok(digest)
}

/// The CID bytes of a commitment, as Go's `cid.Bytes()` writes them.
pub fn to_cid_bytes(kind: CommitmentKind, digest: &[u8; DIGEST_BYTES]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + DIGEST_BYTES);
    for n in [1, kind.codec(), kind.multihash(), DIGEST_BYTES as u64] {
        put_uvarint(&mut out, n);
    }
    out.extend_from_slice(digest);
    out
}

fn from_cid(kind: CommitmentKind, bytes: &[u8]) -> Result<[u8; DIGEST_BYTES], String> {
    let mut rest = bytes;
    let version = uvarint(&mut rest, "CID version")?;
    if version != 1 {
        return Err(format!("CID version {version}, expected 1"));
    }
    let codec = uvarint(&mut rest, "codec")?;
    if codec != kind.codec() {
        return Err(format!("codec {}, expected {}", code_name(codec), code_name(kind.codec())));
    }
    let hash = uvarint(&mut rest, "multihash code")?;
    if hash != kind.multihash() {
        return Err(format!("multihash {}, expected {}", code_name(hash), code_name(kind.multihash())));
    }
    let len = uvarint(&mut rest, "digest length")?;
    if len != DIGEST_BYTES as u64 {
        return Err(format!("digest length {len}, expected {DIGEST_BYTES}"));
    }
    match <[u8; DIGEST_BYTES]>::try_from(rest) {
        Ok(digest) => Ok(digest),
        Err(_) if rest.len() < DIGEST_BYTES => Err(format!("digest truncated to {} bytes", rest.len())),
        Err(_) => Err(format!("{} bytes after the digest", rest.len() - DIGEST_BYTES)),
    }
}

/// Longest unsigned varint multiformats allows (63 bits).
const MAX_UVARINT_BYTES: usize = 9;

/// Reads one minimal unsigned LEB128 varint from the front of `rest`.
fn uvarint(rest: &mut &[u8], what: &str) -> Result<u64, String> {
    let mut value = 0u64;
    for (i, &byte) in rest.iter().enumerate().take(MAX_UVARINT_BYTES) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            if byte == 0 && i > 0 {
                return Err(format!("{what}: varint is not minimally encoded"));
            }
            *rest = &rest[i + 1..];
            return Ok(value);
        }
    }
    if rest.len() < MAX_UVARINT_BYTES {
        Err(format!("{what}: truncated varint"))
    } else {
        Err(format!("{what}: varint longer than {MAX_UVARINT_BYTES} bytes"))
    }
}

fn put_uvarint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMM: [u8; 32] = [7; 32];

    fn reason(err: FilecoinError) -> String {
        match err {
            FilecoinError::Input { field, reason } => {
                assert_eq!(field, "comm_r_old");
                reason
            }
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn cid_bytes_are_go_cid_bytes() {
        // go-fil-commcid ReplicaCommitmentV1ToCID / DataCommitmentV1ToCID, then cid.Bytes().
        let comm_r = to_cid_bytes(CommitmentKind::Sealed, &COMM);
        assert_eq!(comm_r[..8], [0x01, 0x82, 0xe2, 0x03, 0x81, 0xe8, 0x02, 0x20]);
        assert_eq!(comm_r.len(), 40);
        let comm_d = to_cid_bytes(CommitmentKind::Unsealed, &COMM);
        assert_eq!(comm_d[..7], [0x01, 0x81, 0xe2, 0x03, 0x92, 0x20, 0x20]);
        assert_eq!(comm_d.len(), 39);
    }

    #[test]
    fn digests_and_cids_parse_to_the_same_digest() {
        for kind in [CommitmentKind::Sealed, CommitmentKind::Unsealed] {
            assert_eq!(parse("comm_r_old", kind, &COMM).unwrap(), COMM);
            assert_eq!(parse("comm_r_old", kind, &to_cid_bytes(kind, &COMM)).unwrap(), COMM);
        }
    }

    #[test]
    fn wrong_kind_prefix_length_and_trailing_bytes_are_refused() {
        let sealed = CommitmentKind::Sealed;
        let comm_d = to_cid_bytes(CommitmentKind::Unsealed, &COMM);
        let r = reason(parse("comm_r_old", sealed, &comm_d).unwrap_err());
        assert!(r.contains("fil-commitment-unsealed") && r.contains("expected fil-commitment-sealed"), "{r}");

        let mut wrong_hash = to_cid_bytes(sealed, &COMM);
        wrong_hash[4..7].copy_from_slice(&[0x92, 0x20, 0x20]);
        wrong_hash.remove(7);
        let r = reason(parse("comm_r_old", sealed, &wrong_hash).unwrap_err());
        assert!(r.contains("multihash sha2-256-trunc254-padded"), "{r}");

        let mut v0 = vec![0x12, 0x20];
        v0.extend_from_slice(&COMM);
        assert!(reason(parse("comm_r_old", sealed, &v0).unwrap_err()).contains("CID version 18"));

        let mut trailing = to_cid_bytes(sealed, &COMM);
        trailing.push(0);
        assert!(reason(parse("comm_r_old", sealed, &trailing).unwrap_err()).contains("1 bytes after the digest"));

        let cid = to_cid_bytes(sealed, &COMM);
        let r = reason(parse("comm_r_old", sealed, &cid[..cid.len() - 1]).unwrap_err());
        assert!(r.contains("truncated to 31"), "{r}");

        let mut short_digest = cid[..7].to_vec();
        short_digest.push(31);
        short_digest.extend_from_slice(&COMM[..31]);
        assert!(reason(parse("comm_r_old", sealed, &short_digest).unwrap_err()).contains("digest length 31"));

        assert!(reason(parse("comm_r_old", sealed, &[]).unwrap_err()).contains("truncated varint"));
        assert!(reason(parse("comm_r_old", sealed, &[0x81, 0x00]).unwrap_err()).contains("not minimally encoded"));
        assert!(reason(parse("comm_r_old", sealed, &[0xff; 12]).unwrap_err()).contains("longer than 9"));
    }

    #[test]
    fn digests_above_the_modulus_are_refused() {
        let r = reason(parse("comm_r_old", CommitmentKind::Sealed, &[0xff; 32]).unwrap_err());
        assert!(r.contains("not a BLS12-381 scalar"), "{r}");
    }
}
