//! A timeline's events (cuzk-pipeline's `Timeline`: one JSON object per
//! line, `t_ms`, `event`, `job`, `partitions`, `device`) paired into the
//! spans a picture shows: each device's prove calls, each partition's
//! synthesis on a lane of its own among those running at once, and the
//! wait of a synthesized partition for the call that proves it.

use std::collections::{BTreeMap, HashMap};

/// Where a span is drawn.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lane {
    /// A device's prove calls (`cuda:0`, `cpu:0`).
    Device(String),
    /// The n-th synthesis lane: as many as partitions ever synthesized at once.
    Synthesis(usize),
}

/// What a span was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A prove call on a device.
    Prove,
    /// A partition's synthesis (or witness replay).
    Synthesis,
    /// A synthesized partition waiting for its prove call.
    Wait,
}

/// One bar of the picture, in milliseconds since the timeline began.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub lane: Lane,
    pub kind: Kind,
    pub start_ms: f64,
    pub end_ms: f64,
    /// `job 3 [0,1]`, `job 3 part 1`.
    pub label: String,
}

/// Every span of a timeline, and its length.
#[derive(Debug, Default)]
pub struct Spans {
    pub spans: Vec<Span>,
    /// The last event's time.
    pub end_ms: f64,
    /// Jobs submitted.
    pub jobs: usize,
}

impl Spans {
    /// The lanes in drawing order: devices (by name), then synthesis lanes.
    pub fn lanes(&self) -> Vec<Lane> {
        let mut lanes: Vec<Lane> = self.spans.iter().map(|s| s.lane.clone()).collect();
        lanes.sort();
        lanes.dedup();
        lanes
    }
}

/// One event line.
#[derive(serde::Deserialize)]
struct Event {
    t_ms: f64,
    event: String,
    job: u64,
    #[serde(default)]
    partitions: Vec<u64>,
    #[serde(default)]
    device: Option<String>,
}

/// The spans of `text` (a timeline file's contents). A line that is not an
/// event is an error naming its number (1-based); events the picture does
/// not use are skipped, and a span a cut-off timeline never closed ends at
/// its last event.
pub fn read(text: &str) -> Result<Spans, String> {
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let e: Event = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        if !e.t_ms.is_finite() || e.t_ms < 0.0 {
            return Err(format!("line {}: t_ms {} is not a time", i + 1, e.t_ms));
        }
        events.push(e);
    }
    // Lines come in the order they were written, which two threads may
    // interleave out of time order by a hair.
    events.sort_by(|a, b| a.t_ms.total_cmp(&b.t_ms));
    Ok(pair(&events))
}

fn pair(events: &[Event]) -> Spans {
    let mut out = Spans { end_ms: events.last().map_or(0.0, |e| e.t_ms), ..Spans::default() };
    let mut synth_open: HashMap<(u64, u64), f64> = HashMap::new();
    let mut synthesized: HashMap<(u64, u64), (f64, usize)> = HashMap::new();
    let mut prove_open: BTreeMap<String, (f64, u64, Vec<u64>)> = BTreeMap::new();
    // For each synthesis lane, when it is free again.
    let mut lanes_free: Vec<f64> = Vec::new();
    let mut lane_of: HashMap<(u64, u64), usize> = HashMap::new();
    for e in events {
        let part = e.partitions.first().copied().unwrap_or(0);
        match e.event.as_str() {
            "submit" => out.jobs += 1,
            "synth_start" => {
                let lane = match lanes_free.iter().position(|&free| free <= e.t_ms) {
                    Some(l) => l,
                    None => {
                        lanes_free.push(f64::INFINITY);
                        lanes_free.len() - 1
                    }
                };
                lanes_free[lane] = f64::INFINITY;
                lane_of.insert((e.job, part), lane);
                synth_open.insert((e.job, part), e.t_ms);
            }
            "synth_end" => {
                if let (Some(start), Some(&lane)) = (synth_open.remove(&(e.job, part)), lane_of.get(&(e.job, part))) {
                    lanes_free[lane] = e.t_ms;
                    synthesized.insert((e.job, part), (e.t_ms, lane));
                    out.spans.push(synthesis_span(lane, start, e.t_ms, e.job, part));
                }
            }
            "prove_start" => {
                let device = e.device.clone().unwrap_or_else(|| "device".into());
                for &p in &e.partitions {
                    if let Some((ready, lane)) = synthesized.remove(&(e.job, p)) {
                        if e.t_ms > ready {
                            out.spans.push(Span {
                                lane: Lane::Synthesis(lane),
                                kind: Kind::Wait,
                                start_ms: ready,
                                end_ms: e.t_ms,
                                label: format!("job {} part {p} waits", e.job),
                            });
                        }
                    }
                }
                prove_open.insert(device, (e.t_ms, e.job, e.partitions.clone()));
            }
            "prove_end" => {
                let device = e.device.clone().unwrap_or_else(|| "device".into());
                if let Some((start, job, parts)) = prove_open.remove(&device) {
                    out.spans.push(prove_span(device, start, e.t_ms, job, &parts));
                }
            }
            _ => {}
        }
    }
    for ((job, part), start) in synth_open {
        let lane = lane_of.get(&(job, part)).copied().unwrap_or(0);
        out.spans.push(synthesis_span(lane, start, out.end_ms, job, part));
    }
    for (device, (start, job, parts)) in prove_open {
        out.spans.push(prove_span(device, start, out.end_ms, job, &parts));
    }
    out
}

fn synthesis_span(lane: usize, start_ms: f64, end_ms: f64, job: u64, part: u64) -> Span {
    Span { lane: Lane::Synthesis(lane), kind: Kind::Synthesis, start_ms, end_ms, label: format!("job {job} part {part}") }
}

fn prove_span(device: String, start_ms: f64, end_ms: f64, job: u64, parts: &[u64]) -> Span {
    let parts: Vec<String> = parts.iter().map(u64::to_string).collect();
    Span {
        lane: Lane::Device(device),
        kind: Kind::Prove,
        start_ms,
        end_ms,
        label: format!("job {job} [{}]", parts.join(",")),
    }
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
