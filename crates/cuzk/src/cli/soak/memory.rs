//! The soak's memory curve: host resident memory, and each GPU's free
//! memory, sampled at most once a second; whether the host curve is flat.

use std::time::Instant;

use serde_json::{json, Value};

/// Seconds between samples.
const EVERY_S: f64 = 1.0;

/// Growth of resident memory from the first half of the run's samples to
/// the last quarter that still counts as flat: allocator caches and the
/// recording settle early, a leak keeps growing.
const FLAT_SLACK_BYTES: u64 = 64 << 20;
const FLAT_SLACK_FRACTION: f64 = 0.10;

/// Samples of (seconds since the start, bytes).
#[derive(Default)]
pub struct Sampler {
    rss: Vec<(f64, u64)>,
    /// Per GPU (`cuda:N`): its ordinal and its samples of free memory.
    devices: Vec<(i32, Vec<(f64, u64)>)>,
    last: Option<Instant>,
}

impl Sampler {
    /// A sampler for the engine's backends (`cpu`, `cuda:0`, ...).
    pub fn new(backends: &[String]) -> Self {
        let devices = backends
            .iter()
            .filter_map(|b| b.strip_prefix("cuda:").and_then(|n| n.parse().ok()))
            .map(|id| (id, Vec::new()))
            .collect();
        Sampler { devices, ..Sampler::default() }
    }

    /// Takes a sample when a second has passed since the last one.
    pub fn sample(&mut self, start: Instant) {
        let now = Instant::now();
        if self.last.is_some_and(|t| (now - t).as_secs_f64() < EVERY_S) {
            return;
        }
        self.last = Some(now);
        let t = (now - start).as_secs_f64();
        if let Some(rss) = cuzk::rss::current_rss_bytes() {
            self.rss.push((t, rss));
        }
        for (id, samples) in &mut self.devices {
            if let Ok(d) = cuzk_gpu::device::Device::open(*id) {
                samples.push((t, d.info().free_mem));
            }
        }
    }

    /// Bytes the host's resident memory grew from the first half of the
    /// run to its last quarter (mean against mean), and whether that is
    /// within the slack a flat curve has; `None` with fewer than 4 samples.
    pub fn rss_growth(&self) -> Option<(i64, bool)> {
        let n = self.rss.len();
        if n < 4 {
            return None;
        }
        let mean = |s: &[(f64, u64)]| s.iter().map(|(_, b)| *b as f64).sum::<f64>() / s.len() as f64;
        let (early, late) = (mean(&self.rss[..n / 2]), mean(&self.rss[n - n / 4..]));
        let growth = (late - early) as i64;
        let slack = (FLAT_SLACK_BYTES as f64).max(early * FLAT_SLACK_FRACTION);
        Some((growth, (growth as f64) <= slack))
    }

    /// The peak of the host samples, in bytes.
    pub fn peak_rss(&self) -> Option<u64> {
        self.rss.iter().map(|(_, b)| *b).max()
    }

    /// The samples as JSON, in MiB: `{"rss_mib": [[s, MiB], ...], "device_free_mib": {"cuda:0": [...]}}`.
    pub fn json(&self) -> Value {
        let mib = |s: &[(f64, u64)]| {
            s.iter().map(|(t, b)| json!([(t * 10.0).round() / 10.0, b >> 20])).collect::<Vec<_>>()
        };
        let devices: serde_json::Map<String, Value> =
            self.devices.iter().map(|(id, s)| (format!("cuda:{id}"), json!(mib(s)))).collect();
        json!({ "rss_mib": mib(&self.rss), "device_free_mib": devices })
    }

    /// Each GPU's free memory first and last, in MiB (`cuda:0 free 1000->990 MiB`).
    pub fn device_line(&self) -> String {
        self.devices
            .iter()
            .filter_map(|(id, s)| Some(format!("cuda:{id} free {}->{} MiB", s.first()?.1 >> 20, s.last()?.1 >> 20)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(rss: &[u64]) -> Sampler {
        Sampler { rss: rss.iter().enumerate().map(|(i, b)| (i as f64, *b << 20)).collect(), ..Sampler::default() }
    }

    #[test]
    fn a_curve_that_keeps_growing_is_not_flat() {
        assert_eq!(with(&[100, 100, 100]).rss_growth(), None, "too few samples to say");
        let (growth, flat) = with(&[500, 520, 510, 515, 512, 518, 516, 514]).rss_growth().unwrap();
        assert!(flat && growth.abs() < 16 << 20, "{growth}");
        let (growth, flat) = with(&[500, 600, 700, 800, 900, 1000, 1100, 1200]).rss_growth().unwrap();
        assert!(!flat && growth > 300 << 20, "{growth}");
    }
}
