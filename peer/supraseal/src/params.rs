//! The parameter file seen from outside supraseal: its verifying key (for
//! bellperson's verifier, since supraseal keeps its own copy on the C++ side)
//! and the lengths of its queries, checked against the circuit before
//! supraseal is handed the file.

use std::fs::File;
use std::io::{BufReader, ErrorKind, Read, Seek};
use std::path::{Path, PathBuf};

use blstrs::Bls12;

use crate::error::PeerError;
use crate::shape::Shape;

/// bellperson's verifying key.
pub type Vk = bellperson::groth16::VerifyingKey<Bls12>;

/// Bytes of an uncompressed G1 point.
const G1_BYTES: u64 = 96;
/// Bytes of an uncompressed G2 point.
const G2_BYTES: u64 = 192;

/// The verifying key and the query lengths of a parameter file.
pub struct Header {
    /// The verifying key at the start of the file.
    pub vk: Vk,
    /// Points of the H query (the domain size minus one).
    pub h: u64,
    /// Points of the L query (one per private variable).
    pub l: u64,
}

impl Header {
    /// Reads the verifying key and walks the query lengths to the end of the
    /// file, so a truncated file is reported here and not inside supraseal.
    pub fn read(path: &Path) -> Result<Self, PeerError> {
        let file = File::open(path).map_err(|source| PeerError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let file_len = file
            .metadata()
            .map_err(|source| PeerError::Io {
                path: path.to_path_buf(),
                source,
            })?
            .len();
        // Running out of bytes means a short file, not a failing disk.
        let io = |source: std::io::Error| match source.kind() {
            ErrorKind::UnexpectedEof => truncated(path, file_len),
            _ => PeerError::Io {
                path: path.to_path_buf(),
                source,
            },
        };
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let vk = Vk::read(&mut reader).map_err(io)?;
        let mut lengths = [0u64; 5];
        for (i, len) in lengths.iter_mut().enumerate() {
            let mut word = [0u8; 4];
            reader.read_exact(&mut word).map_err(io)?;
            *len = u64::from(u32::from_be_bytes(word));
            let bytes = *len * if i == 4 { G2_BYTES } else { G1_BYTES };
            let skip = i64::try_from(bytes).map_err(|_| truncated(path, file_len))?;
            reader.seek_relative(skip).map_err(io)?;
        }
        // Seeking past the end succeeds; the position says whether the points are there.
        let end = reader.stream_position().map_err(io)?;
        if end > file_len {
            return Err(truncated(path, file_len));
        }
        Ok(Header {
            vk,
            h: lengths[0],
            l: lengths[1],
        })
    }

    /// An error naming the first size on which the file and `shape` disagree.
    pub fn check(&self, shape: &Shape, path: &Path) -> Result<(), PeerError> {
        let mismatch = |what: &str, file: u64, circuit: usize| {
            (file != circuit as u64).then(|| PeerError::ParamsMismatch {
                path: path.to_path_buf(),
                detail: format!(
                    "{what}: the file has {file}, the circuit asked for needs {circuit} \
                     (a parameter file belongs to one circuit and size)"
                ),
            })
        };
        let checks = [
            mismatch(
                "public inputs (verifying key IC points)",
                self.vk.ic.len() as u64,
                shape.inputs,
            ),
            mismatch("H points (domain - 1)", self.h, shape.domain() - 1),
            mismatch("L points (private variables)", self.l, shape.aux),
        ];
        checks.into_iter().flatten().next().map_or(Ok(()), Err)
    }
}

fn truncated(path: &Path, file_len: u64) -> PeerError {
    PeerError::ParamsMismatch {
        path: PathBuf::from(path),
        detail: format!("truncated or not a bellperson parameter file ({file_len} bytes)"),
    }
}
