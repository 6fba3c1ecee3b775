use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

/// What happened, for the timeline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A job was accepted.
    Submit,
    /// A partition's synthesis began.
    SynthStart,
    /// A partition's synthesis ended.
    SynthEnd,
    /// A prove call (one or more partitions) began on a device.
    ProveStart,
    /// A prove call ended; on a GPU, with where its SRS's bases are:
    /// `resident_queries` (bits: h 1, l 2, a 4, b_g1 8, b_g2 16),
    /// `resident_bytes`, `streamed_bytes` (moved over the bus per call),
    /// `quotient_layout` (0 overlapped; 1 lean: one circuit at a time in
    /// three buffers; 2 spilled: in two, c in host memory;
    /// cuda/api/quotient.cu) and `shape_on_host` (1 when a recorded
    /// shape's matrices are read from host memory).
    ProveEnd,
    /// A job finished (proofs or error).
    Done,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Event::Submit => "submit",
            Event::SynthStart => "synth_start",
            Event::SynthEnd => "synth_end",
            Event::ProveStart => "prove_start",
            Event::ProveEnd => "prove_end",
            Event::Done => "done",
        }
    }
}

/// A JSON-lines record of engine events, one object per line:
/// `{"t_ms":12.5,"event":"prove_start","job":3,"partitions":[0,1],"device":"cuda:0"}`.
/// Useful to see per-device utilisation and the synthesis/prove overlap.
pub struct Timeline {
    start: Instant,
    out: Mutex<Box<dyn Write + Send>>,
}

impl Timeline {
    /// A timeline written to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        Timeline { start: Instant::now(), out: Mutex::new(out) }
    }

    /// Records one event. Write errors are ignored: the timeline is a
    /// diagnostic and must never fail a job.
    pub fn record(&self, event: Event, job: u64, partitions: &[usize], device: Option<&str>) {
        self.record_with(event, job, partitions, device, &[]);
    }

    /// Records one event with more numeric fields (e.g. a synthesis's
    /// reserved bytes and the budget's use, which say why fewer partitions
    /// ran at once than there were cores).
    pub fn record_with(&self, event: Event, job: u64, partitions: &[usize], device: Option<&str>, fields: &[(&str, u64)]) {
        let t = self.start.elapsed().as_secs_f64() * 1e3;
        let parts: Vec<String> = partitions.iter().map(|p| p.to_string()).collect();
        let device = device.map(|d| format!(",\"device\":\"{d}\"")).unwrap_or_default();
        let extra: String = fields.iter().map(|(k, v)| format!(",\"{k}\":{v}")).collect();
        let line = format!(
            "{{\"t_ms\":{t:.3},\"event\":\"{}\",\"job\":{job},\"partitions\":[{}]{device}{extra}}}\n",
            event.name(),
            parts.join(",")
        );
        if let Ok(mut out) = self.out.lock() {
            let _ = out.write_all(line.as_bytes());
            let _ = out.flush();
        }
    }
}
