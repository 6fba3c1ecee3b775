//! Recorded synthesis: the constraint matrices A, B, C of a circuit shape,
//! recorded once, then per proof a witness-only pass (no linear combination
//! is built) and three parallel sparse products.
//!
//! Classic synthesis evaluates every combination of every constraint for
//! every proof; most of that work is the same each time. Here
//! [`RecordedShape::record`] keeps it as compressed sparse rows with
//! deduplicated coefficients ([`Csr`]), and [`RecordedShape::synthesize`]
//! returns exactly what `ProvingAssignment::synthesize` returns. The
//! witness half ([`RecordedShape::witness`]) and the product half
//! ([`RecordedShape::evaluate`]) are public on their own, and so are the
//! arrays, so the products can run elsewhere. A circuit that splits
//! ([`crate::Circuit::split`]) computes its witness on several threads.
//! Recordings persist in a
//! versioned, checksummed file (see [`file`]).

mod blocks;
mod file;
mod matrix;
mod packed;
mod parts;
mod powers;
mod record;
mod replay;
mod shape;
mod solve;
mod spmv;
mod witness;

use std::io;
use std::path::Path;

use ff::PrimeField;

pub use file::{MAGIC, VERSION};
pub use matrix::{CoeffIndexSlice, CoeffIndices, Csr, MINUS_ONE, NARROW_TABLE_LIMIT, ONE};
pub use shape::{RecordedShape, WitnessPass};
pub use packed::PackedPlan;
pub use solve::{PlanSummary, Rule, SolvePlan};
pub use witness::Witness;

use crate::SynthesisError;

impl<S: PrimeField> RecordedShape<S> {
    /// Writes the file form (see the `file` module's layout).
    pub fn write_to<W: io::Write>(&self, w: W) -> io::Result<()> {
        file::write_to(self, w)
    }

    /// Reads the file form; a truncated, corrupt, foreign or inconsistent
    /// file is a typed error, never a panic or an oversized allocation.
    pub fn read_from<R: io::Read>(r: R) -> Result<Self, SynthesisError> {
        file::read_from(r)
    }

    /// Writes to a temporary file next to `path`, syncs it, then renames it
    /// over `path`, so readers never see half a recording.
    pub fn save(&self, path: &Path) -> Result<(), SynthesisError> {
        file::save(self, path)
    }

    /// Reads a file written by [`RecordedShape::save`] or [`RecordedShape::write_to`].
    pub fn load(path: &Path) -> Result<Self, SynthesisError> {
        file::load(path)
    }
}
