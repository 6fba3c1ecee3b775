//! Recording files (`RecordedShape`). The first input byte picks the form:
//! odd, the rest is a body, framed with a valid header and checksum so that
//! the body parser is reached; even, the rest is a whole file, read from a
//! stream and loaded from a path (the two must agree). A recording that
//! reads writes back byte for byte.
#![no_main]

use blstrs::Scalar;
use cuzk_synth::RecordedShape;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let framed;
    let file = if mode & 1 == 1 {
        framed = cuzk_fuzz::framed_recording(rest);
        &framed[..]
    } else {
        rest
    };
    let read = RecordedShape::<Scalar>::read_from(file);
    if mode & 1 == 0 {
        let path = cuzk_fuzz::scratch_file("recording", file);
        let loaded = RecordedShape::<Scalar>::load(&path);
        assert_eq!(read.is_ok(), loaded.is_ok(), "read_from {:?} but load {:?}", read.as_ref().err(), loaded.err());
    }
    let Ok(shape) = read else { return };
    let mut again = Vec::with_capacity(file.len());
    shape.write_to(&mut again).expect("writing to memory cannot fail");
    assert!(again == file, "a recording that reads does not write back byte for byte");
});
