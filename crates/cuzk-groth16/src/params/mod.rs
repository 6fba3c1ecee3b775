//! Groth16 parameters in bellperson 0.27's file layout (the Filecoin `.params` format):
//! the verifying key, then for each of h, l, a, b_g1 (G1) and b_g2 (G2) a big-endian
//! u32 count followed by that many uncompressed points.

mod layout;
mod point;
mod read;
mod vk;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use blstrs::{G1Affine, G2Affine};
use rayon::prelude::*;

pub use layout::{inspect, ParamsSummary};
pub use point::{PointChecks, UncompressedPoint};
pub use vk::VerifyingKey;

use crate::error::{Error, Section};

/// The proving key (and its verifying key).
///
/// The A and B queries hold only the variables whose polynomial is non-zero at τ
/// (in practice: the variables some constraint uses in A, resp. B), in variable
/// order, inputs first. The prover walks the circuit's density bitsets to pair
/// each base with its variable; that is why the sizes must match exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// The verifying key.
    pub vk: VerifyingKey,
    /// τⁱ·Z(τ)/δ for i in 0..n−1, n the domain size: the quotient H has degree at
    /// most n−2, so n−1 bases suffice.
    pub h: Arc<Vec<G1Affine>>,
    /// (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/δ for each private variable.
    pub l: Arc<Vec<G1Affine>>,
    /// uᵢ(τ) for each variable with a non-zero A polynomial.
    pub a: Arc<Vec<G1Affine>>,
    /// vᵢ(τ) in G1 for each variable with a non-zero B polynomial.
    pub b_g1: Arc<Vec<G1Affine>>,
    /// vᵢ(τ) in G2, same variables as `b_g1`.
    pub b_g2: Arc<Vec<G2Affine>>,
    /// How many bases each query has, kept by [`Parameters::without_bases`].
    counts: BaseCounts,
}

/// How many bases each query of a parameter set has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaseCounts {
    /// H bases: the domain size minus one.
    pub h: usize,
    /// L bases: one per private variable.
    pub l: usize,
    /// A bases.
    pub a: usize,
    /// B bases, in G1 and in G2 alike.
    pub b: usize,
}

/// Points encoded per parallel step when writing.
const WRITE_CHUNK_POINTS: usize = 1 << 16;

impl Parameters {
    /// Parameters from their parts.
    pub fn new(
        vk: VerifyingKey,
        h: Arc<Vec<G1Affine>>,
        l: Arc<Vec<G1Affine>>,
        a: Arc<Vec<G1Affine>>,
        b_g1: Arc<Vec<G1Affine>>,
        b_g2: Arc<Vec<G2Affine>>,
    ) -> Parameters {
        let counts = BaseCounts { h: h.len(), l: l.len(), a: a.len(), b: b_g1.len() };
        Parameters { vk, h, l, a, b_g1, b_g2, counts }
    }

    /// How many bases each query has, also after the bases are released.
    pub fn counts(&self) -> BaseCounts {
        self.counts
    }

    /// Whether the bases are held (false after [`Parameters::without_bases`]).
    pub fn has_bases(&self) -> bool {
        self.h.len() == self.counts.h
            && self.l.len() == self.counts.l
            && self.a.len() == self.counts.a
            && self.b_g1.len() == self.counts.b
            && self.b_g2.len() == self.counts.b
    }

    /// The verifying key and the counts without the bases: what an engine
    /// keeps in host memory once every device it proves on holds the bases
    /// (a Filecoin parameter file is ~47 GB). Proving on the CPU or writing
    /// the file needs the bases; both refuse parameters without them.
    pub fn without_bases(&self) -> Parameters {
        Parameters {
            vk: self.vk.clone(),
            h: Arc::default(),
            l: Arc::default(),
            a: Arc::default(),
            b_g1: Arc::default(),
            b_g2: Arc::default(),
            counts: self.counts,
        }
    }

    /// Loads a parameter file, checking every count against the file length before
    /// allocating and decoding points in parallel at the given check level.
    pub fn read(path: &Path, checks: PointChecks) -> Result<Parameters, Error> {
        read::read_parameters(path, checks, read::CHUNK_BYTES, &|_, _| {})
    }

    /// As [`Parameters::read`], reading `chunk_bytes` of points per step (at
    /// least one point) instead of 64 MiB: a 47 GB file takes hundreds of
    /// steps, and this lets tests walk small files across step boundaries.
    pub fn read_in_chunks(path: &Path, checks: PointChecks, chunk_bytes: usize) -> Result<Parameters, Error> {
        read::read_parameters(path, checks, chunk_bytes, &|_, _| {})
    }

    /// As [`Parameters::read`], calling `progress(bytes_done, bytes_total)` after
    /// each chunk (large files take minutes).
    pub fn read_with_progress(
        path: &Path,
        checks: PointChecks,
        progress: &dyn Fn(u64, u64),
    ) -> Result<Parameters, Error> {
        read::read_parameters(path, checks, read::CHUNK_BYTES, progress)
    }

    /// Writes the parameters byte-identically to bellperson's `Parameters::write`.
    pub fn write<W: Write>(&self, mut w: W) -> Result<(), Error> {
        if !self.has_bases() {
            return Err(Error::BasesReleased);
        }
        self.vk.write(&mut w)?;
        write_section(&mut w, Section::H, &self.h)?;
        write_section(&mut w, Section::L, &self.l)?;
        write_section(&mut w, Section::A, &self.a)?;
        write_section(&mut w, Section::BG1, &self.b_g1)?;
        write_section(&mut w, Section::BG2, &self.b_g2)
    }
}

fn write_section<P: UncompressedPoint, W: Write>(w: &mut W, section: Section, points: &[P]) -> Result<(), Error> {
    let count = u32::try_from(points.len()).map_err(|_| Error::SectionTooLong { section, count: points.len() })?;
    w.write_all(&count.to_be_bytes())?;
    let mut buf = Vec::new();
    for chunk in points.chunks(WRITE_CHUNK_POINTS) {
        buf.resize(chunk.len() * P::SIZE, 0);
        buf.par_chunks_exact_mut(P::SIZE).zip(chunk.par_iter()).for_each(|(out, p)| p.encode_into(out));
        w.write_all(&buf)?;
    }
    Ok(())
}
