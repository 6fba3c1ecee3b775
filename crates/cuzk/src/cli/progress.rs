//! Progress lines for long work (setup, loading parameters) on stderr: one
//! line per phase at each quarter, so logs stay short and a terminal shows
//! that work goes on.

use std::sync::Mutex;

/// Prints `label phase: N%` when a phase crosses 0, 25, 50, 75 or 100 %.
pub struct Progress {
    label: String,
    last: Mutex<(String, u64)>,
}

impl Progress {
    /// A reporter whose lines start with `label`.
    pub fn new(label: &str) -> Self {
        Progress { label: label.to_string(), last: Mutex::new((String::new(), u64::MAX)) }
    }

    /// Reports `done` of `total` in `phase`.
    pub fn update(&self, phase: &str, done: u64, total: u64) {
        let quarter = (done.min(total) * 4).checked_div(total).unwrap_or(4);
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.0 != phase || last.1 != quarter {
            *last = (phase.to_string(), quarter);
            eprintln!("{} {phase}: {}%", self.label, quarter * 25);
        }
    }
}
