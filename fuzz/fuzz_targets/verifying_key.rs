//! Verifying keys: `VerifyingKey::read` from a byte stream and
//! `VerifyingKey::read_file` (the layout-checked path a parameter file's head
//! takes) over the same bytes. Both accept the same inputs with the same key,
//! and an accepted key writes back as the bytes it was read from.
#![no_main]

use cuzk_groth16::VerifyingKey;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let streamed = VerifyingKey::read(data);
    let path = cuzk_fuzz::scratch_file("vk", data);
    let from_file = VerifyingKey::read_file(&path);
    match (&streamed, &from_file) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the two readers decode different keys"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("read {:?} but read_file {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    let Ok(key) = streamed else { return };
    key.validate().expect("a key that reads passes validate");
    let mut again = Vec::new();
    key.write(&mut again).expect("a key that reads also writes");
    assert_eq!(again.len() as u64, key.serialized_len());
    assert!(data.starts_with(&again), "a key that reads does not write back as the bytes read");
});
