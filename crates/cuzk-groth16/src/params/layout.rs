//! Walking the file layout: counts are validated against the file length before
//! anything is allocated or read.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::vk::{VerifyingKey, VK_FIXED_BYTES};
use crate::error::{Error, Section};

/// The verifying key's fixed points with the offset where each ends.
const VK_POINT_ENDS: [(Section, u64); 6] = [
    (Section::AlphaG1, 96),
    (Section::BetaG1, 192),
    (Section::BetaG2, 384),
    (Section::GammaG2, 576),
    (Section::DeltaG1, 672),
    (Section::DeltaG2, VK_FIXED_BYTES),
];

/// The point sections after the verifying key, in file order, with their point sizes.
pub(crate) const POINT_SECTIONS: [(Section, u64); 5] =
    [(Section::H, 96), (Section::L, 96), (Section::A, 96), (Section::BG1, 96), (Section::BG2, 192)];

impl VerifyingKey {
    /// The verifying key at the head of a parameter file (or a key file
    /// written by [`VerifyingKey::write`]), with the file's layout checks: a
    /// regular file only, counts checked against its length, and errors that
    /// name the section it cuts short. (Here rather than in vk.rs, which
    /// reads keys from bytes: the file's layout is this module's.)
    pub fn read_file(path: &Path) -> Result<Self, Error> {
        LayoutReader::open(path)?.read_vk()
    }
}

/// A file being walked section by section.
pub(crate) struct LayoutReader {
    pub(crate) file: File,
    pub(crate) path: PathBuf,
    pub(crate) pos: u64,
    pub(crate) len: u64,
}

impl LayoutReader {
    /// Opens a regular file. Anything else is refused before it is opened:
    /// a FIFO would block the open (and every read) for ever, a device such as
    /// /dev/zero has no length to check counts against, and a directory
    /// fails its first read with a message that names no file.
    pub(crate) fn open(path: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        if !std::fs::metadata(path).map_err(io)?.is_file() {
            let what = "not a regular file (a directory, FIFO or device cannot be a parameter file)";
            return Err(io(std::io::Error::new(std::io::ErrorKind::InvalidInput, what)));
        }
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        Ok(LayoutReader { file, path: path.to_path_buf(), pos: 0, len })
    }

    /// Reads the verifying key at the head of the file (the six fixed
    /// points, the IC count, checked against the file length, and the IC
    /// points), leaving the reader after it.
    pub(crate) fn read_vk(&mut self) -> Result<VerifyingKey, Error> {
        self.check_vk_fixed()?;
        let mut head = vec![0u8; VK_FIXED_BYTES as usize];
        self.read_exact(&mut head)?;
        let ic = self.count(Section::Ic, 96)?;
        head.extend_from_slice(&(ic as u32).to_be_bytes());
        let start = head.len();
        head.resize(start + ic as usize * 96, 0);
        self.read_exact(&mut head[start..])?;
        VerifyingKey::read(&head[..])
    }

    pub(crate) fn io_error(&self, source: std::io::Error) -> Error {
        Error::Io { path: self.path.clone(), source }
    }

    /// Fails with the first verifying-key point the file cuts short.
    pub(crate) fn check_vk_fixed(&self) -> Result<(), Error> {
        match VK_POINT_ENDS.iter().find(|(_, end)| *end > self.len) {
            Some(&(section, needed)) => Err(Error::Truncated { section, needed, file_len: self.len }),
            None => Ok(()),
        }
    }

    /// Reads a section's big-endian u32 count and checks that its points fit in
    /// the rest of the file.
    pub(crate) fn count(&mut self, section: Section, point_size: u64) -> Result<u64, Error> {
        let needed = self.pos + 4;
        if needed > self.len {
            return Err(Error::Truncated { section, needed, file_len: self.len });
        }
        let mut raw = [0u8; 4];
        self.read_exact(&mut raw)?;
        let count = u64::from(u32::from_be_bytes(raw));
        let bytes = count * point_size;
        let left = self.len - self.pos;
        if bytes > left {
            return Err(Error::CountTooLarge { section, count, needed: bytes, left });
        }
        Ok(count)
    }

    pub(crate) fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.file.read_exact(buf).map_err(|e| self.io_error(e))?;
        self.pos += buf.len() as u64;
        Ok(())
    }

    pub(crate) fn skip(&mut self, bytes: u64) -> Result<(), Error> {
        self.pos += bytes;
        self.file.seek(SeekFrom::Start(self.pos)).map_err(|e| self.io_error(e))?;
        Ok(())
    }

    /// Fails unless the walk ended exactly at the end of the file.
    pub(crate) fn finish(&self) -> Result<(), Error> {
        if self.pos != self.len {
            return Err(Error::TrailingBytes { extra: self.len - self.pos });
        }
        Ok(())
    }
}

/// What a parameter file holds, from its headers alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsSummary {
    /// Public inputs (the constant one included).
    pub ic: u64,
    /// H bases (domain size − 1).
    pub h: u64,
    /// L bases (private variables).
    pub l: u64,
    /// A bases (non-zero A polynomials).
    pub a: u64,
    /// B bases in G1 (non-zero B polynomials).
    pub b_g1: u64,
    /// B bases in G2.
    pub b_g2: u64,
    /// File length in bytes.
    pub file_len: u64,
}

/// Reads only the counts of a parameter file, seeking over the points, and
/// checks that the layout accounts for every byte. Points are not decoded.
pub fn inspect(path: &Path) -> Result<ParamsSummary, Error> {
    let mut r = LayoutReader::open(path)?;
    r.check_vk_fixed()?;
    r.skip(VK_FIXED_BYTES)?;
    let ic = r.count(Section::Ic, 96)?;
    r.skip(ic * 96)?;
    let mut counts = [0u64; 5];
    for (slot, (section, size)) in counts.iter_mut().zip(POINT_SECTIONS) {
        *slot = r.count(section, size)?;
        r.skip(*slot * size)?;
    }
    r.finish()?;
    let [h, l, a, b_g1, b_g2] = counts;
    Ok(ParamsSummary { ic, h, l, a, b_g1, b_g2, file_len: r.len })
}
