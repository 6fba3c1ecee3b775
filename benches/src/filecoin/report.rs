//! What a `filecoin-synth` run reports: one JSON line (every repetition,
//! medians, speedups, resident-set peaks) and a table of the medians.

use std::fmt::Write;

use serde::Serialize;

use crate::compare::RecordedFigures;

/// cuzk's classic synthesis.
#[derive(Clone, Debug, Serialize)]
pub struct ClassicFigures {
    /// Median synthesis time.
    pub synth_ms: f64,
    /// `synth_ms` per circuit constraint.
    pub synth_ns_per_constraint: f64,
    /// Every repetition.
    pub synth_ms_all: Vec<f64>,
}

/// bellperson's `create_random_proof`, from its own log lines.
#[derive(Clone, Debug, Serialize)]
pub struct PeerFigures {
    /// Median of its logged synthesis time.
    pub synth_ms: f64,
    /// `synth_ms` per circuit constraint.
    pub synth_ns_per_constraint: f64,
    /// Every repetition's logged synthesis time.
    pub synth_ms_all: Vec<f64>,
    /// Median of its logged prover time (after synthesis).
    pub prove_ms: f64,
    /// Median of the whole call.
    pub total_ms: f64,
}

/// Resident-set figures in MiB (`None` where Linux's counters are not
/// available). Each peak is the highest over the repetitions and includes
/// what was resident before the phase (bellperson's parameters throughout,
/// the recorded shape, the classic assignment during the recorded phase).
#[derive(Clone, Debug, Default, Serialize)]
pub struct RssFigures {
    /// Resident after loading bellperson's parameters, before any synthesis.
    pub base_mib: Option<f64>,
    /// Peak while recording the shape.
    pub record_peak_mib: Option<f64>,
    /// Peak during cuzk's classic synthesis.
    pub classic_peak_mib: Option<f64>,
    /// Peak during cuzk's recorded synthesis.
    pub recorded_peak_mib: Option<f64>,
    /// Peak during bellperson's whole proof (synthesis and proving).
    pub bellperson_peak_mib: Option<f64>,
}

/// One run: one JSON line.
#[derive(Clone, Debug, Serialize)]
pub struct SynthReport {
    /// Curio's circuit id (`porep-2k`, `winning-512m`).
    pub circuit_id: String,
    /// `porep` or `winning`.
    pub kind: String,
    /// The sector size in bytes.
    pub sector_bytes: u64,
    /// `random` or `cc`.
    pub data: String,
    /// The seed of the sector, the challenges and the parameters.
    pub seed: u64,
    /// Repetitions per measurement.
    pub reps: usize,
    /// Threads of the rayon pool.
    pub threads: usize,
    /// Cores the process may use.
    pub cores: usize,
    /// Constraints of the circuit.
    pub constraints: usize,
    /// Constraints the prover sees (plus one per public input, the one included).
    pub prover_constraints: usize,
    /// Public inputs, the leading one included.
    pub inputs: usize,
    /// Private variables.
    pub aux: usize,
    /// The cached C1 JSON or vanilla proof.
    pub inputs_file: String,
    /// Sealing and C1 or vanilla proving in this run; `None` when cached.
    pub inputs_ms: Option<f64>,
    /// The parameter file both libraries read.
    pub params_file: String,
    /// cuzk's setup of test parameters in this run; `None` when the file existed.
    pub setup_ms: Option<f64>,
    /// bellperson's load of the parameter file.
    pub bellperson_load_ms: f64,
    /// cuzk's classic synthesis.
    pub cuzk: ClassicFigures,
    /// cuzk's recorded synthesis.
    pub recorded: RecordedFigures,
    /// bellperson's synthesis (and the rest of its proof).
    pub bellperson: PeerFigures,
    /// bellperson's synthesis time over cuzk's classic (above 1: cuzk is faster).
    pub classic_speedup: f64,
    /// bellperson's synthesis time over cuzk's recorded (witness plus products).
    pub recorded_speedup: f64,
    /// Resident-set peaks.
    pub rss: RssFigures,
}

/// A header and two lines per report: the synthesis medians with
/// bellperson's time over each of cuzk's (above 1: cuzk is faster), then the
/// resident-set peaks.
pub fn table(reports: &[SynthReport]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12} {:>11} {:>12} {:>12} {:>7} {:>12} {:>7} {:>22} {:>12}",
        "circuit", "constraints", "bellperson", "cuzk", "x", "recorded", "x", "= witness + products", "record once"
    );
    for r in reports {
        let _ = writeln!(
            out,
            "{:<12} {:>11} {:>9.1} ms {:>9.1} ms {:>7.2} {:>9.1} ms {:>7.2} {:>10.1} + {:>8.1} ms {:>9.1} ms",
            r.circuit_id,
            r.constraints,
            r.bellperson.synth_ms,
            r.cuzk.synth_ms,
            r.classic_speedup,
            r.recorded.synth_ms,
            r.recorded_speedup,
            r.recorded.witness_ms,
            r.recorded.spmv_ms,
            r.recorded.record_ms,
        );
        let mib = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.0} MiB"));
        let rss = &r.rss;
        let _ = writeln!(
            out,
            "{:<12} peak RSS: {} resident before; record {}, cuzk {}, recorded {}, bellperson's whole proof {}",
            "",
            mib(rss.base_mib),
            mib(rss.record_peak_mib),
            mib(rss.classic_peak_mib),
            mib(rss.recorded_peak_mib),
            mib(rss.bellperson_peak_mib),
        );
    }
    out
}
