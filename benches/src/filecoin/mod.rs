//! The Filecoin synthesis comparison (`filecoin-synth`): one partition of a
//! real sector's proof, sealed by filecoin-proofs itself, synthesized by cuzk
//! (classic, and recorded: the shape once, then witness-only synthesis and
//! the sparse products) and by bellperson 0.27 (its logged synthesis time
//! inside `create_random_proof`, the proof verified), in one process on one
//! machine. The circuits are filecoin-proofs' own, taken unchanged from
//! cuzk-filecoin; bellperson proves the very same circuit value type.

/// The sector, its C1 output or PoSt vanilla proof (cached in the work
/// directory), and the partition measured.
pub mod inputs;
/// The parameter file both libraries read.
pub mod params;
/// A cuzk-filecoin circuit handed to bellperson.
pub mod peer;
/// The table of a run.
pub mod report;
/// The measurement: repetitions, checks, medians.
pub mod run;

pub use inputs::{Data, Kind};
pub use report::SynthReport;
pub use run::{run, Settings};
