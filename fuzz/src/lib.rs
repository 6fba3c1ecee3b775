//! What the fuzz targets share: a scratch file for the parsers that read
//! paths, and the recording frame that lets the fuzzer reach the body parser
//! past the checksum.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

/// Writes `bytes` to this process's scratch file `name` and returns its path.
/// The parameter readers take paths (they check the file's length before
/// reading), so each input goes through a file; /dev/shm keeps that off the
/// disk where it exists. One file per target and process, rewritten each run.
pub fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from("/dev/shm");
    let dir = if dir.is_dir() { dir } else { std::env::temp_dir() };
    let path = dir.join(format!("cuzk-fuzz-{name}-{}", std::process::id()));
    std::fs::write(&path, bytes).expect("the scratch file is writable");
    path
}

/// A recording file around `body`: magic, version 1, the body's length, the
/// body and its SHA-256. Random bytes almost never carry a valid checksum, so
/// without this frame the fuzzer would only ever exercise the header checks.
pub fn framed_recording(body: &[u8]) -> Vec<u8> {
    let mut file = Vec::with_capacity(body.len() + 52);
    file.extend_from_slice(&cuzk_synth::recorded::MAGIC);
    file.extend_from_slice(&cuzk_synth::recorded::VERSION.to_le_bytes());
    file.extend_from_slice(&(body.len() as u64).to_le_bytes());
    file.extend_from_slice(body);
    let sum: [u8; 32] = Sha256::digest(&file).into();
    file.extend_from_slice(&sum);
    file
}
