//! Proofs: `Proof::from_bytes` on the first 192 bytes (and on the whole input,
//! which must be refused unless it is exactly one proof) and
//! `Proof::read_many` on the whole input. Accepted proofs encode back to the
//! bytes they came from, and the two decoders agree.
#![no_main]

use cuzk_groth16::Proof;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let one = Proof::from_bytes(data);
    assert!(one.is_err() || data.len() == Proof::SIZE, "from_bytes accepted {} bytes", data.len());
    if let Ok(p) = one {
        assert_eq!(p.to_bytes()[..], data[..], "an accepted proof does not encode back");
    }
    let Ok(many) = Proof::read_many(data) else { return };
    assert_eq!(many.len() * Proof::SIZE, data.len());
    for (p, bytes) in many.iter().zip(data.chunks_exact(Proof::SIZE)) {
        assert_eq!(Proof::from_bytes(bytes).ok(), Some(*p), "read_many and from_bytes disagree");
        assert_eq!(p.to_bytes()[..], bytes[..], "an accepted proof does not encode back");
    }
});
