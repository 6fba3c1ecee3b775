//! Commitments as requests carry them (`cuzk_filecoin::commitment::parse`):
//! a 32-byte digest or a CID's bytes, the first byte picking the kind
//! (even: sealed CommR, odd: unsealed CommD). What parses is a digest that
//! encodes back to a CID naming itself; a refusal names the field.
#![no_main]

use cuzk_filecoin::commitment::{parse, to_cid_bytes, CommitmentKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, bytes)) = data.split_first() else { return };
    let kind = if kind % 2 == 0 { CommitmentKind::Sealed } else { CommitmentKind::Unsealed };
    match parse("comm_x", kind, bytes) {
        Ok(digest) => assert_eq!(parse("comm_x", kind, &to_cid_bytes(kind, &digest)).unwrap(), digest),
        Err(e) => assert!(e.to_string().contains("comm_x"), "{e}"),
    }
});
