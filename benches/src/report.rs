//! The human-readable table of a comparison run (the JSON lines carry the rest).

use std::fmt::Write;

use crate::compare::CaseReport;

/// One header line and one line per case: medians, speedups (bellperson's
/// time over ours, so above 1 means cuzk is faster), the recorded path's
/// synthesis (witness + products) and cuzk's prover phases.
pub fn table(reports: &[CaseReport]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:>10} {:>12} {:>12} {:>6} {:>12} {:>6} {:>9} {:>9} {:>12} {:>12} {:>6}   cuzk prove phases (ms): ntt / h / l / a+b / epilogue",
        "case", "constr.", "synth cuzk", "synth bp", "x", "synth rec", "x", "ns/c cuzk", "ns/c bp", "prove cuzk", "prove bp", "x"
    );
    for r in reports {
        let p = &r.cuzk_phases;
        let _ = writeln!(
            out,
            "{:<16} {:>10} {:>9.1} ms {:>9.1} ms {:>6.2} {:>9.1} ms {:>6.2} {:>9.0} {:>9.0} {:>9.1} ms {:>9.1} ms {:>6.2}   {:.0} / {:.0} / {:.0} / {:.0} / {:.1}",
            r.case,
            r.constraints,
            r.cuzk.synth_ms,
            r.bellperson.synth_ms,
            r.synth_speedup,
            r.recorded.synth_ms,
            r.recorded_synth_speedup,
            r.cuzk.synth_ns_per_constraint,
            r.bellperson.synth_ns_per_constraint,
            r.cuzk.prove_ms,
            r.bellperson.prove_ms,
            r.prove_speedup,
            p.ntt_ms,
            p.msm_h_ms,
            p.msm_l_ms,
            p.msm_ab_ms,
            p.epilogue_ms,
        );
    }
    out
}
