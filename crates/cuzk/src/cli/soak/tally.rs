//! What a soak counts: jobs submitted and how each ended, proofs made and
//! invalid, cancellations, failures by kind; the summary as JSON and as one
//! line, and whether the soak passed.

use std::collections::BTreeMap;

use cuzk::synth::workloads::Workload;
use cuzk::EngineError;
use serde_json::{json, Value};

use super::memory::Sampler;

/// How one job ended, as the soak saw it.
pub enum Outcome {
    /// Proofs came back; `invalid` of them did not verify here.
    Proved {
        /// Proofs that failed the soak's own verification (or were missing).
        invalid: usize,
        /// Proofs returned.
        proofs: usize,
    },
    /// The job ended with an error.
    Failed(EngineError),
}

/// The soak's counts.
#[derive(Default)]
pub struct Tally {
    /// Jobs submitted.
    pub submitted: usize,
    /// Jobs that ended with proofs.
    pub proved_jobs: usize,
    /// Proofs returned.
    pub proofs: usize,
    /// Proofs returned that do not verify (must be 0).
    pub invalid: usize,
    /// Jobs that never ended, or ended as if the engine had shut down while
    /// it was running (must be 0).
    pub lost: usize,
    /// Cancellations the soak asked for.
    pub cancels_asked: usize,
    /// Jobs that ended cancelled.
    pub cancelled: usize,
    /// Jobs asked to cancel that had already proved (the cancel came late).
    pub cancel_too_late: usize,
    /// Failures other than cancellations, by kind.
    pub failures: BTreeMap<&'static str, usize>,
}

impl Tally {
    /// Counts one ended job; `asked_to_cancel` says whether the soak cancelled it.
    pub fn add(&mut self, outcome: Outcome, asked_to_cancel: bool) {
        match outcome {
            Outcome::Proved { invalid, proofs } => {
                self.proved_jobs += 1;
                self.proofs += proofs;
                self.invalid += invalid;
                self.cancel_too_late += usize::from(asked_to_cancel);
            }
            Outcome::Failed(EngineError::Cancelled) if asked_to_cancel => self.cancelled += 1,
            Outcome::Failed(EngineError::Shutdown) => self.lost += 1,
            Outcome::Failed(e) => *self.failures.entry(kind(&e, asked_to_cancel)).or_default() += 1,
        }
    }

    /// Whether the soak passed: no invalid proof and no lost job.
    pub fn passed(&self) -> bool {
        self.invalid == 0 && self.lost == 0
    }

    /// Jobs that ended, however.
    fn ended(&self) -> usize {
        self.proved_jobs + self.cancelled + self.failures.values().sum::<usize>()
    }

    /// The summary as one JSON object.
    pub fn summary(&self, seed: u64, circuit: Workload, size: usize, backend: &str, wall_s: f64, mem: &Sampler) -> Value {
        let (growth, flat) = mem.rss_growth().unzip();
        json!({
            "seed": seed,
            "circuit": circuit.to_string(),
            "size": size,
            "backend": backend,
            "wall_s": wall_s,
            "jobs_submitted": self.submitted,
            "jobs_ended": self.ended(),
            "jobs_proved": self.proved_jobs,
            "proofs": self.proofs,
            "proofs_per_min": self.proofs as f64 / wall_s * 60.0,
            "invalid_proofs": self.invalid,
            "lost_jobs": self.lost,
            "cancels_asked": self.cancels_asked,
            "cancelled": self.cancelled,
            "cancel_too_late": self.cancel_too_late,
            "failures": self.failures,
            "rss_growth_mib": growth.map(|g| g / (1 << 20)),
            "rss_flat": flat,
            "peak_rss_mib": cuzk::rss::peak_rss_bytes().map(|b| b >> 20),
            "memory": mem.json(),
            "passed": self.passed(),
        })
    }

    /// The summary as one line.
    pub fn line(&self, wall_s: f64, mem: &Sampler) -> String {
        let rss = match mem.rss_growth() {
            Some((g, flat)) => format!("rss {} ({:+} MiB)", if flat { "flat" } else { "GROWING" }, g / (1 << 20)),
            None => "rss: too few samples".into(),
        };
        let failures: Vec<String> = self.failures.iter().map(|(k, n)| format!("{k}={n}")).collect();
        format!(
            "soak {}: {} proofs in {wall_s:.1} s from {} jobs ({} ended), invalid={} lost={} cancelled={}/{} asked \
             (late {}), failures=[{}], {rss}, peak rss {} MiB {}",
            if self.passed() { "passed" } else { "FAILED" },
            self.proofs,
            self.submitted,
            self.ended(),
            self.invalid,
            self.lost,
            self.cancelled,
            self.cancels_asked,
            self.cancel_too_late,
            failures.join(" "),
            mem.peak_rss().map(|b| b >> 20).unwrap_or(0),
            mem.device_line(),
        )
    }
}

/// A failure's kind, for the counts by kind.
fn kind(e: &EngineError, asked_to_cancel: bool) -> &'static str {
    match e {
        _ if e.is_out_of_memory() => "out_of_memory",
        _ if e.unsatisfied_constraint().is_some() => "unsatisfied_constraint",
        EngineError::Cancelled if !asked_to_cancel => "cancelled_unasked",
        EngineError::Params { .. } => "params",
        EngineError::Synthesis { .. } => "synthesis",
        EngineError::Prove { .. } => "prove",
        EngineError::TooLarge { .. } => "too_large",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_proofs_and_lost_jobs_fail_the_soak_and_cancellations_do_not() {
        let mut t = Tally::default();
        t.add(Outcome::Proved { invalid: 0, proofs: 3 }, false);
        t.add(Outcome::Failed(EngineError::Cancelled), true);
        t.add(Outcome::Proved { invalid: 0, proofs: 1 }, true);
        t.add(Outcome::Failed(EngineError::TooLarge { needed: 2, budget: 1 }), false);
        assert!(t.passed());
        assert_eq!((t.proofs, t.cancelled, t.cancel_too_late, t.ended()), (4, 1, 1, 4));
        assert_eq!(t.failures.get("too_large"), Some(&1));
        let mut lost = Tally::default();
        lost.add(Outcome::Failed(EngineError::Shutdown), false);
        assert!(!lost.passed() && lost.lost == 1);
        let mut unasked = Tally::default();
        unasked.add(Outcome::Failed(EngineError::Cancelled), false);
        assert_eq!(unasked.failures.get("cancelled_unasked"), Some(&1));
        let mut invalid = Tally::default();
        invalid.add(Outcome::Proved { invalid: 1, proofs: 2 }, false);
        assert!(!invalid.passed());
    }
}
