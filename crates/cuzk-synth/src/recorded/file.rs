//! The file form of a [`RecordedShape`], little-endian throughout:
//!
//! ```text
//! magic "cuzkRCS\0" | version u32 | body length u64 | body | SHA-256 of all before it (32 bytes)
//! body: field modulus (u32 length + text) | repr length u32
//!       | inputs u64 | aux u64 | circuit constraints u64 | trace hash u64
//!       | coefficient count u64 | coefficients (canonical repr bytes)
//!       | index width u8 (2 or 4)
//!       | A, B, C: nonzeros u64 | row pointers (rows + 1) × u32 | columns × u32 | coefficient indices
//!       | densities a_aux, b_input, b_aux: bits u64 | words × u64
//! ```
//!
//! Reading checks magic, version and the declared length against the file's
//! length before reading the body, then the checksum before parsing, so a
//! truncated or corrupt file is named as such; then
//! every count, column and coefficient index is checked against the rest
//! (a file with a valid checksum can still be made by hand), and no
//! allocation is larger than the bytes that back it.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::OnceLock;

use ff::PrimeField;
use sha2::{Digest, Sha256};

use super::blocks::PlanCache;
use super::matrix::{CoeffIndexSlice, CoeffIndices, Csr, MINUS_ONE, NARROW_TABLE_LIMIT, ONE};
use super::witness::Trace;
use super::RecordedShape;
use crate::{DensityTracker, SynthesisError};

/// The first bytes of every recording file.
pub const MAGIC: [u8; 8] = *b"cuzkRCS\0";
/// The format this build writes and reads. 2: the trace hash is Horner's
/// rule (it composes over parts); a version 1 file is refused and recorded anew.
pub const VERSION: u32 = 2;
const HEADER: usize = MAGIC.len() + 4 + 8;
const CHECKSUM: usize = 32;

/// Fixed-width little-endian integers.
trait Le: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
        }
    )*};
}
le!(u8, u16, u32, u64);

fn put<T: Le, W: Write>(w: &mut W, xs: &[T]) -> io::Result<()> {
    const CHUNK: usize = 1 << 14;
    let mut buf = Vec::with_capacity(CHUNK.min(xs.len()) * T::SIZE);
    for chunk in xs.chunks(CHUNK) {
        buf.clear();
        chunk.iter().for_each(|&x| x.put(&mut buf));
        w.write_all(&buf)?;
    }
    Ok(())
}

fn repr_len<S: PrimeField>() -> usize {
    S::Repr::default().as_ref().len()
}

fn index_width(table_len: usize) -> usize {
    if table_len <= NARROW_TABLE_LIMIT {
        2
    } else {
        4
    }
}

fn body_len<S: PrimeField>(shape: &RecordedShape<S>) -> u64 {
    let width = index_width(shape.coeffs.len());
    let matrices: usize = shape.matrices.iter().map(|m| 8 + 4 * (m.rows() + 1) + m.nnz() * (4 + width)).sum();
    let densities: usize = shape.densities.iter().map(|d| 8 + 8 * d.words().len()).sum();
    (4 + S::MODULUS.len() + 4 + 32 + 8 + shape.coeffs.len() * repr_len::<S>() + 1 + matrices + densities) as u64
}

/// Everything the checksum covers.
fn write_unsummed<S: PrimeField, W: Write>(shape: &RecordedShape<S>, w: &mut W) -> io::Result<()> {
    w.write_all(&MAGIC)?;
    put(w, &[VERSION])?;
    put(w, &[body_len(shape)])?;
    put(w, &[S::MODULUS.len() as u32])?;
    w.write_all(S::MODULUS.as_bytes())?;
    put(w, &[repr_len::<S>() as u32])?;
    let counts = [shape.num_inputs, shape.num_aux, shape.trace.constraints].map(|n| n as u64);
    put(w, &counts)?;
    put(w, &[shape.trace.hash, shape.coeffs.len() as u64])?;
    for c in &shape.coeffs {
        w.write_all(c.to_repr().as_ref())?;
    }
    put(w, &[index_width(shape.coeffs.len()) as u8])?;
    for m in &shape.matrices {
        put(w, &[m.nnz() as u64])?;
        put(w, m.row_ptr())?;
        put(w, m.cols())?;
        match m.coeff_indices() {
            CoeffIndexSlice::Narrow(ks) => put(w, ks)?,
            CoeffIndexSlice::Wide(ks) => put(w, ks)?,
        }
    }
    for d in &shape.densities {
        put(w, &[d.len() as u64])?;
        put(w, d.words())?;
    }
    Ok(())
}

/// Feeds everything written to a SHA-256 on its way.
struct Summing<W> {
    inner: W,
    sum: Sha256,
}

impl<W: Write> Write for Summing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub(crate) fn digest<S: PrimeField>(shape: &RecordedShape<S>) -> [u8; 32] {
    let mut w = Summing { inner: io::sink(), sum: Sha256::new() };
    write_unsummed(shape, &mut w).expect("io::sink accepts every write");
    w.sum.finalize().into()
}

pub(crate) fn write_to<S: PrimeField, W: Write>(shape: &RecordedShape<S>, w: W) -> io::Result<()> {
    let mut w = Summing { inner: w, sum: Sha256::new() };
    write_unsummed(shape, &mut w)?;
    let sum: [u8; 32] = w.sum.finalize().into();
    w.inner.write_all(&sum)?;
    let _ = shape.digest.set(sum);
    w.inner.flush()
}

fn io_error(what: &str, path: &Path, e: io::Error) -> SynthesisError {
    SynthesisError::RecordingIo(format!("{what} {}: {e}", path.display()))
}

/// Removes `.NAME.PID.tmp` beside `path` for every PID that no longer runs:
/// what a save killed midway (SIGKILL, a crash) left behind, up to a
/// recording's size (6-9 GB at 32 GiB). Best effort: a file that cannot be
/// removed is left for the next save or load.
fn remove_stale_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    if !Path::new("/proc/self").exists() {
        return; // without /proc no process can be told gone
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let head = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let pid = file.to_str().and_then(|f| f.strip_prefix(&head)?.strip_suffix(".tmp")?.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

pub(crate) fn save<S: PrimeField>(shape: &RecordedShape<S>, path: &Path) -> Result<(), SynthesisError> {
    let name = path.file_name().ok_or_else(|| io_error("save", path, io::ErrorKind::InvalidInput.into()))?;
    remove_stale_temporaries(path);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let written = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = io::BufWriter::with_capacity(1 << 20, f);
        write_to(shape, &mut w)?;
        w.into_inner().map_err(io::IntoInnerError::into_error)?.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(io_error("save", path, e))
        }
    }
}

/// Reads a recording file, its header first: a file that is not regular
/// (a FIFO would block for ever, /dev/zero never ends), not a recording, or
/// not as long as its header says is refused before its body is read or
/// any memory is sized by it; the body is then read in one bounded read.
pub(crate) fn load<S: PrimeField>(path: &Path) -> Result<RecordedShape<S>, SynthesisError> {
    remove_stale_temporaries(path);
    let fail = |e| io_error("load", path, e);
    let meta = std::fs::metadata(path).map_err(fail)?;
    if !meta.is_file() {
        return Err(fail(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file")));
    }
    let mut file = std::fs::File::open(path).map_err(fail)?;
    let mut head = Vec::with_capacity(HEADER);
    (&mut file).take(HEADER as u64).read_to_end(&mut head).map_err(fail)?;
    let expected = check_header(&head, meta.len())?;
    let mut bytes = Vec::with_capacity(expected as usize);
    bytes.extend_from_slice(&head);
    file.take(expected - HEADER as u64).read_to_end(&mut bytes).map_err(fail)?;
    parse(&bytes)
}

pub(crate) fn read_from<S: PrimeField, R: Read>(mut r: R) -> Result<RecordedShape<S>, SynthesisError> {
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes).map_err(|e| SynthesisError::RecordingIo(format!("read: {e}")))?;
    parse(&bytes)
}

fn malformed(msg: impl Into<String>) -> SynthesisError {
    SynthesisError::RecordingMalformed(msg.into())
}

/// Reads the body; every length is checked against the bytes left first.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], SynthesisError> {
        if n > self.0.len() {
            return Err(malformed(format!("{what} runs past the end of the body")));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn vec<T: Le>(&mut self, n: u64, what: &str) -> Result<Vec<T>, SynthesisError> {
        let bytes = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(T::SIZE))
            .ok_or_else(|| malformed(format!("{what}: count {n} is impossible")))?;
        Ok(self.take(bytes, what)?.chunks_exact(T::SIZE).map(T::get).collect())
    }

    fn one<T: Le>(&mut self, what: &str) -> Result<T, SynthesisError> {
        Ok(T::get(self.take(T::SIZE, what)?))
    }

    fn count(&mut self, what: &str) -> Result<usize, SynthesisError> {
        let n = self.one::<u64>(what)?;
        usize::try_from(n).map_err(|_| malformed(format!("{what} {n} does not fit this machine")))
    }
}

/// Checks the magic, the version and the declared length of a file of
/// `found` bytes that starts with `head` (its first [`HEADER`] bytes, or all
/// of a shorter file), and returns the file's length.
fn check_header(head: &[u8], found: u64) -> Result<u64, SynthesisError> {
    if !MAGIC.starts_with(&head[..head.len().min(MAGIC.len())]) {
        return Err(SynthesisError::RecordingBadMagic);
    }
    if head.len() < HEADER {
        return Err(SynthesisError::RecordingTruncated { expected: HEADER as u64, found });
    }
    let version = u32::get(&head[8..12]);
    if version != VERSION {
        return Err(SynthesisError::RecordingVersion { found: version, supported: VERSION });
    }
    let body_len = u64::get(&head[12..20]);
    let expected = body_len.saturating_add((HEADER + CHECKSUM) as u64);
    if found < expected {
        return Err(SynthesisError::RecordingTruncated { expected, found });
    }
    if found > expected {
        return Err(malformed(format!("{} bytes after the checksum", found - expected)));
    }
    Ok(expected)
}

fn parse<S: PrimeField>(bytes: &[u8]) -> Result<RecordedShape<S>, SynthesisError> {
    check_header(&bytes[..bytes.len().min(HEADER)], bytes.len() as u64)?;
    let (summed, sum) = bytes.split_at(bytes.len() - CHECKSUM);
    let digest: [u8; 32] = Sha256::digest(summed).into();
    if digest[..] != *sum {
        return Err(SynthesisError::RecordingChecksum);
    }
    let mut rd = Cursor(&summed[HEADER..]);
    let shape = parse_body(&mut rd)?;
    if !rd.0.is_empty() {
        return Err(malformed(format!("{} bytes left after the densities", rd.0.len())));
    }
    let _ = shape.digest.set(digest);
    Ok(shape)
}

fn parse_body<S: PrimeField>(rd: &mut Cursor<'_>) -> Result<RecordedShape<S>, SynthesisError> {
    let modulus_len = rd.one::<u32>("modulus length")?;
    let modulus = rd.take(modulus_len as usize, "modulus")?;
    if modulus != S::MODULUS.as_bytes() || rd.one::<u32>("repr length")? as usize != repr_len::<S>() {
        return Err(malformed(format!(
            "written for the field of modulus {}, read as {}",
            String::from_utf8_lossy(modulus),
            S::MODULUS
        )));
    }
    let num_inputs = rd.count("input count")?;
    let num_aux = rd.count("aux count")?;
    let constraints = rd.count("constraint count")?;
    let hash = rd.one::<u64>("trace hash")?;
    let num_cols = num_inputs.checked_add(num_aux).filter(|&n| n as u64 <= u64::from(u32::MAX) + 1);
    // Each matrix has rows + 1 row pointers: a row count at usize::MAX
    // leaves no room for the last one.
    let row_ptrs = constraints.checked_add(num_inputs).and_then(|rows| rows.checked_add(1));
    let (Some(num_cols), Some(row_ptrs)) = (num_cols, row_ptrs) else {
        return Err(malformed("counts beyond 32-bit columns or rows"));
    };
    if num_inputs == 0 {
        return Err(malformed("no inputs (the constant one is always input 0)"));
    }

    let table_len = rd.count("coefficient count")?;
    let table_bytes = table_len.checked_mul(repr_len::<S>()).ok_or_else(|| malformed("coefficient count"))?;
    let mut coeffs = Vec::with_capacity(table_len.min(rd.0.len() / repr_len::<S>().max(1)));
    for chunk in rd.take(table_bytes, "coefficients")?.chunks_exact(repr_len::<S>()) {
        let mut repr = S::Repr::default();
        repr.as_mut().copy_from_slice(chunk);
        let c: Option<S> = S::from_repr(repr).into();
        coeffs.push(c.ok_or_else(|| malformed("a coefficient is not a canonical field element"))?);
    }
    if coeffs.get(ONE as usize) != Some(&S::ONE) || coeffs.get(MINUS_ONE as usize) != Some(&-S::ONE) {
        return Err(malformed("the coefficient table does not start with one and minus one"));
    }

    let width = rd.one::<u8>("index width")?;
    if usize::from(width) != index_width(table_len) {
        return Err(malformed(format!("index width {width} for a table of {table_len}")));
    }
    let mut matrix = |name: &str| -> Result<Csr, SynthesisError> {
        let nnz = rd.one::<u64>("nonzero count")?;
        let row_ptr = rd.vec::<u32>(row_ptrs as u64, "row pointers")?;
        let cols = rd.vec::<u32>(nnz, "columns")?;
        let ks = match width {
            2 => CoeffIndices::Narrow(rd.vec(nnz, "coefficient indices")?),
            _ => CoeffIndices::Wide(rd.vec(nnz, "coefficient indices")?),
        };
        Csr::from_parts(row_ptr, cols, ks, num_cols, table_len).map_err(|e| malformed(format!("matrix {name}: {e}")))
    };
    let matrices = [matrix("A")?, matrix("B")?, matrix("C")?];

    let mut density = |name: &str, expected: usize| -> Result<DensityTracker, SynthesisError> {
        let bits = rd.count("density length")?;
        if bits != expected {
            return Err(malformed(format!("{name} density has {bits} bits for {expected} variables")));
        }
        let words = rd.vec::<u64>(bits.div_ceil(64) as u64, "density words")?;
        let mut d = DensityTracker::with_capacity(bits);
        for _ in 0..bits {
            d.add_element();
        }
        for (w, &word) in words.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let i = w * 64 + rest.trailing_zeros() as usize;
                if i >= bits {
                    return Err(malformed(format!("{name} density has bits past its length")));
                }
                d.inc(i);
                rest &= rest - 1;
            }
        }
        Ok(d)
    };
    let densities = [density("a_aux", num_aux)?, density("b_input", num_inputs)?, density("b_aux", num_aux)?];

    Ok(RecordedShape {
        num_inputs,
        num_aux,
        trace: Trace { constraints, hash },
        coeffs,
        matrices,
        densities,
        digest: OnceLock::new(),
        block_plan: PlanCache::default(),
    })
}
