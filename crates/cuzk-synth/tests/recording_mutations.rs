//! Recording files under structured mutation (see `mutation/`): whatever is
//! done to a valid file, reading it gives a typed error or a recording that
//! writes back as the same bytes, never a panic, and never seconds of work
//! (a time box per case). The body is also mutated behind a valid header and
//! checksum, which is what reaches the body parser: random bytes never carry
//! a matching SHA-256, but a file can be made by hand.

mod mutation;

use blstrs::Scalar;
use cuzk_synth::recorded::{MAGIC, VERSION};
use cuzk_synth::workloads::MulChain;
use cuzk_synth::{RecordedShape, SynthesisError};
use proptest::prelude::*;
use sha2::{Digest, Sha256};

/// Bytes before the body: magic, version, body length.
const HEADER: usize = 20;
const CHECKSUM: usize = 32;

/// A small valid recording: four multiplications, so every matrix and
/// density is non-empty.
fn recording() -> Vec<u8> {
    let (shape, _) = RecordedShape::<Scalar>::record(MulChain::new(4, 0)).unwrap();
    let mut file = Vec::new();
    shape.write_to(&mut file).unwrap();
    file
}

/// A file around `body` with a valid header and checksum.
fn framed(body: &[u8]) -> Vec<u8> {
    let mut file = [&MAGIC[..], &VERSION.to_le_bytes(), &(body.len() as u64).to_le_bytes(), body].concat();
    let sum = Sha256::digest(&file);
    file.extend_from_slice(&sum);
    file
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

/// The offsets of every count and length field of a valid body, walked from
/// the layout in the `recorded::file` docs.
fn body_fields(body: &[u8]) -> Vec<usize> {
    let mut fields = vec![0];
    let mut at = 4 + u32_at(body, 0);
    fields.push(at); // repr length
    let repr = u32_at(body, at);
    at += 4;
    let (inputs, constraints) = (u64_at(body, at), u64_at(body, at + 16));
    fields.extend([at, at + 8, at + 16, at + 32]); // inputs, aux, constraints, coefficient count
    let table = u64_at(body, at + 32);
    at += 40 + table * repr;
    fields.push(at); // index width
    let width = usize::from(body[at]);
    at += 1;
    for _ in 0..3 {
        fields.push(at); // nonzeros
        let nnz = u64_at(body, at);
        fields.push(at + 8); // the first row pointer
        at += 8 + 4 * (constraints + inputs + 1) + nnz * (4 + width);
    }
    for _ in 0..3 {
        fields.push(at); // density bits
        at += 8 + 8 * u64_at(body, at).div_ceil(64);
    }
    assert_eq!(at, body.len(), "the walk must end at the end of the body");
    fields
}

/// Reads `file` from a stream and from a path; both must agree, and a
/// recording that reads must write back as `file`.
fn check(file: &[u8]) -> Result<(), TestCaseError> {
    let read = RecordedShape::<Scalar>::read_from(file);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shape.rcs");
    std::fs::write(&path, file).unwrap();
    let loaded = RecordedShape::<Scalar>::load(&path);
    prop_assert_eq!(read.is_ok(), loaded.is_ok(), "read_from {:?}, load {:?}", read.as_ref().err(), loaded.as_ref().err());
    if let Ok(shape) = read {
        let mut again = Vec::new();
        shape.write_to(&mut again).unwrap();
        prop_assert!(again == file, "a recording that reads does not write back as the same bytes");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, timeout: mutation::CASE_TIMEOUT_MS, ..ProptestConfig::default() })]

    /// Whole files, header included: almost every case stops at the header or
    /// the checksum, which must name the problem, not panic.
    #[test]
    fn mutated_files_are_refused_or_read_back(ms in mutation::mutations()) {
        let file = recording();
        let body = &file[HEADER..file.len() - CHECKSUM];
        let mut fields: Vec<usize> = body_fields(body).into_iter().map(|f| f + HEADER).collect();
        fields.extend([8, 12]); // version, body length
        check(&mutation::apply(&file, &fields, &ms))?;
    }

    /// Mutated bodies behind a valid header and checksum: the body parser's
    /// own checks (counts against the bytes left, columns, coefficient
    /// indices, densities) are all that stands between them and a panic.
    #[test]
    fn mutated_bodies_with_valid_checksums_are_refused_or_read_back(ms in mutation::mutations()) {
        let file = recording();
        let body = &file[HEADER..file.len() - CHECKSUM];
        check(&framed(&mutation::apply(body, &body_fields(body), &ms)))?;
    }
}

#[test]
fn the_frame_and_the_field_walk_fit_a_valid_recording() {
    let file = recording();
    let body = &file[HEADER..file.len() - CHECKSUM];
    assert_eq!(framed(body), file);
    assert_eq!(body_fields(body).len(), 16);
    check(&file).unwrap();
}

/// Found by the body property: a constraint count that makes the row count
/// usize::MAX (inputs + constraints fit, but rows + 1 row pointers do not)
/// overflowed computing the row pointers' count, a panic in debug builds.
/// It must be refused as malformed, naming what is impossible.
#[test]
fn a_row_count_at_the_top_of_usize_is_refused() {
    let file = recording();
    let body = &file[HEADER..file.len() - CHECKSUM];
    let fields = body_fields(body);
    let (inputs_at, constraints_at) = (fields[2], fields[4]);
    let inputs = u64_at(body, inputs_at) as u64;
    let mut hostile = body.to_vec();
    for constraints in [u64::MAX - inputs, u64::MAX - inputs + 1] {
        hostile[constraints_at..constraints_at + 8].copy_from_slice(&constraints.to_le_bytes());
        match RecordedShape::<Scalar>::read_from(&framed(&hostile)[..]) {
            Err(SynthesisError::RecordingMalformed(m)) => assert!(m.contains("row"), "{m}"),
            other => panic!("{constraints} constraints: expected a malformed recording, got {:?}", other.err()),
        }
    }
}
