//! Benchmarks of cuzk next to bellperson 0.27 on the same machine, in the same
//! process, on the same circuits and parameter files (DESIGN §7, §8).
//!
//! The criterion benches (`benches/`) sample small sizes; the `compare-cpu`
//! binary runs the foundation's comparison at full size and prints a table
//! and JSON lines for docs/PERF.md; `filecoin-synth` (feature `filecoin`)
//! compares synthesis of a real Filecoin partition.
#![forbid(unsafe_code)]

/// The CPU comparison run: cases, repetitions, medians, reports.
pub mod compare;
/// Reading back `Duration`s printed with `{:?}` (bellperson's log format).
pub mod debug_duration;
/// The crate's error type.
pub mod error;
/// The Filecoin synthesis comparison (`filecoin-synth`).
#[cfg(feature = "filecoin")]
pub mod filecoin;
/// Workload instances and the parameters both libraries prove them with.
pub mod fixture;
/// The workloads written against bellperson's API, for bellperson to prove.
pub mod peer;
/// bellperson's logged synthesis and prover times.
pub mod peer_timing;
/// cuzk's recorded synthesis, timed and checked against classic synthesis.
pub mod recorded;
/// The comparison table.
pub mod report;
/// The process's resident set (current and peak).
pub mod rss;

pub use error::BenchError;
pub use fixture::{Fixture, ProvingPair};
pub use peer::PeerCircuit;

use cuzk_synth::workloads::Workload;

/// What the criterion benches sample: big enough to be dominated by the
/// per-constraint work, small enough for ten samples on a laptop.
pub const CRITERION_CASES: [(Workload, usize); 2] =
    [(Workload::Sha256, 2), (Workload::MulChain, 1 << 14)];

/// The seed of every bench witness.
pub const BENCH_SEED: u64 = 1;
