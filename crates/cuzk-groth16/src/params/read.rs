//! Loading a parameter file: each section is read in fixed-size chunks while the
//! previous chunk is decoded in parallel straight into the pre-sized point
//! vector, so peak memory is the parameters plus two chunks, never the file twice.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::layout::{LayoutReader, POINT_SECTIONS};
use super::point::{PointChecks, UncompressedPoint};
use super::Parameters;
use crate::error::{Error, PointDefect, Section};

/// Raw bytes read per step; large enough to keep a disk busy, small next to the file.
pub(super) const CHUNK_BYTES: usize = 64 << 20;

type Progress<'a> = &'a dyn Fn(u64, u64);

pub(super) fn read_parameters(
    path: &Path,
    checks: PointChecks,
    chunk_bytes: usize,
    progress: Progress<'_>,
) -> Result<Parameters, Error> {
    let mut r = LayoutReader::open(path)?;
    let vk = r.read_vk()?;
    progress(r.pos, r.len);

    let g1 = |r: &mut LayoutReader, (section, size): (Section, u64)| -> Result<_, Error> {
        let count = r.count(section, size)?;
        Ok(Arc::new(read_points(r, section, count, checks, chunk_bytes, progress)?))
    };
    let h = g1(&mut r, POINT_SECTIONS[0])?;
    let l = g1(&mut r, POINT_SECTIONS[1])?;
    let a = g1(&mut r, POINT_SECTIONS[2])?;
    let b_g1 = g1(&mut r, POINT_SECTIONS[3])?;
    let (section, size) = POINT_SECTIONS[4];
    let count = r.count(section, size)?;
    let b_g2 = Arc::new(read_points(&mut r, section, count, checks, chunk_bytes, progress)?);
    r.finish()?;
    Ok(Parameters::new(vk, h, l, a, b_g1, b_g2))
}

/// Reads `count` points of one section; points at infinity are rejected, as
/// bellperson does for every query of the proving key.
fn read_points<P: UncompressedPoint>(
    r: &mut LayoutReader,
    section: Section,
    count: u64,
    checks: PointChecks,
    chunk_bytes: usize,
    progress: Progress<'_>,
) -> Result<Vec<P>, Error> {
    let mut out = vec![P::identity(); count as usize];
    let per_chunk = (chunk_bytes / P::SIZE).max(1);
    let first = out.len().min(per_chunk);
    let mut cur = vec![0u8; first * P::SIZE];
    let mut next = cur.clone();
    r.read_exact(&mut cur)?;
    let chunk_lens: Vec<usize> = out.chunks(per_chunk).map(<[P]>::len).collect();
    for (i, dst) in out.chunks_mut(per_chunk).enumerate() {
        let next_len = chunk_lens.get(i + 1).copied().unwrap_or(0) * P::SIZE;
        let base = (i * per_chunk) as u64;
        let file = &mut r.file;
        let (read, decoded) = rayon::join(
            || file.read_exact(&mut next[..next_len]),
            || decode_chunk(&cur[..dst.len() * P::SIZE], dst, section, base, checks),
        );
        read.map_err(|e| r.io_error(e))?;
        decoded?;
        r.pos += next_len as u64;
        progress(r.pos, r.len);
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(out)
}

fn decode_chunk<P: UncompressedPoint>(
    raw: &[u8],
    dst: &mut [P],
    section: Section,
    base: u64,
    checks: PointChecks,
) -> Result<(), Error> {
    dst.par_iter_mut().zip(raw.par_chunks_exact(P::SIZE)).enumerate().try_for_each(|(j, (d, bytes))| {
        let index = base + j as u64;
        let p = P::decode(bytes, checks).map_err(|defect| Error::InvalidPoint { section, index, defect })?;
        if bool::from(p.is_identity()) {
            return Err(Error::InvalidPoint { section, index, defect: PointDefect::Identity });
        }
        *d = p;
        Ok(())
    })
}
