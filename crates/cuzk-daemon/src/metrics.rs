//! The daemon's Prometheus metrics (prometheus-client, OpenMetrics text):
//! per proof kind, histograms of where a job's time went and counters of
//! how jobs ended; gauges of queue depth, the memory budget, resident
//! parameters and each device (busy time, faults, service, free memory),
//! set from the daemon's state when the text is made.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use cuzk_pipeline::{DeviceStatus, Timings};

/// The `kind` label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: String,
}

/// The `kind` and `state` (`pending`, `in_progress`) labels of queue depth.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabel {
    kind: String,
    state: String,
}

/// The `device` label (`cuda:0`, `cpu`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeviceLabel {
    device: String,
}

type Seconds = Family<KindLabel, Histogram, fn() -> Histogram>;
type PerDevice = Family<DeviceLabel, Gauge>;

/// Seconds from 10 ms to ~3 hours, doubling: a 2 KiB WinningPoSt on a GPU
/// and a 32 GiB PoRep on a CPU both land inside.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.01, 2.0, 21))
}

/// Everything the daemon measures.
pub(crate) struct Metrics {
    registry: Registry,
    queue: Seconds,
    srs: Seconds,
    synthesis: Seconds,
    gpu: Seconds,
    total: Seconds,
    completed: Family<KindLabel, Counter>,
    failed: Family<KindLabel, Counter>,
    cancelled: Family<KindLabel, Counter>,
    depth: Family<QueueLabel, Gauge>,
    budget_used: Gauge,
    budget_total: Gauge,
    resident_bytes: Gauge,
    resident_files: Gauge,
    uptime: Gauge,
    device_busy_ms: PerDevice,
    device_calls: PerDevice,
    device_faults: PerDevice,
    device_in_service: PerDevice,
    device_free_bytes: PerDevice,
}

/// The daemon's state when metrics are read.
pub(crate) struct Snapshot {
    /// (kind, pending, in progress) per kind.
    pub(crate) queues: Vec<(&'static str, u64, u64)>,
    pub(crate) budget_used: u64,
    pub(crate) budget_total: u64,
    pub(crate) resident_bytes: u64,
    pub(crate) resident_files: u64,
    pub(crate) uptime_secs: u64,
    pub(crate) devices: Vec<DeviceStatus>,
}

impl Metrics {
    pub(crate) fn new() -> Self {
        let mut registry = Registry::default();
        let seconds_family = || Seconds::new_with_constructor(seconds);
        let (queue, srs, synthesis, gpu, total) =
            (seconds_family(), seconds_family(), seconds_family(), seconds_family(), seconds_family());
        for (name, help, h) in [
            ("cuzk_proof_queue_seconds", "Submission to the first partition's start, per finished job", &queue),
            ("cuzk_proof_srs_load_seconds", "Parameter loading a job waited for", &srs),
            ("cuzk_proof_synthesis_seconds", "Synthesis, summed over a job's partitions", &synthesis),
            ("cuzk_proof_gpu_seconds", "Backend prove calls, summed over a job's partitions", &gpu),
            ("cuzk_proof_total_seconds", "Submission to completion, wall clock", &total),
        ] {
            registry.register(name, help, h.clone());
        }
        let (completed, failed, cancelled) = (Family::default(), Family::default(), Family::default());
        registry.register("cuzk_proofs_completed", "Jobs completed with verified proofs", completed.clone());
        registry.register("cuzk_proofs_failed", "Jobs that failed (engine error or proof refused)", failed.clone());
        registry.register("cuzk_proofs_cancelled", "Jobs cancelled (client, disconnect, shutdown)", cancelled.clone());
        let depth = Family::default();
        registry.register("cuzk_queue_depth", "Unfinished jobs, by kind and state", depth.clone());
        let gauges: [Gauge; 5] = Default::default();
        let [budget_used, budget_total, resident_bytes, resident_files, uptime] = gauges;
        registry.register("cuzk_memory_budget_used_bytes", "Bytes of the memory budget reserved", budget_used.clone());
        registry.register("cuzk_memory_budget_bytes", "The engine's whole memory budget", budget_total.clone());
        registry.register("cuzk_resident_params_bytes", "Bytes of parameter files resident", resident_bytes.clone());
        registry.register("cuzk_resident_params", "Parameter files resident or loading", resident_files.clone());
        registry.register("cuzk_uptime_seconds", "Seconds since the daemon started", uptime.clone());
        let per_device: [PerDevice; 5] = Default::default();
        let [device_busy_ms, device_calls, device_faults, device_in_service, device_free_bytes] = per_device;
        for (name, help, g) in [
            ("cuzk_device_busy_milliseconds", "Milliseconds the device spent in prove calls", &device_busy_ms),
            ("cuzk_device_calls", "Prove calls the device made", &device_calls),
            ("cuzk_device_faults", "Failed prove calls counted against the device", &device_faults),
            ("cuzk_device_in_service", "1 while the device takes work, 0 once taken out of service", &device_in_service),
            ("cuzk_device_memory_free_bytes", "Free device memory (GPUs only)", &device_free_bytes),
        ] {
            registry.register(name, help, g.clone());
        }
        Metrics {
            registry,
            queue,
            srs,
            synthesis,
            gpu,
            total,
            completed,
            failed,
            cancelled,
            depth,
            budget_used,
            budget_total,
            resident_bytes,
            resident_files,
            uptime,
            device_busy_ms,
            device_calls,
            device_faults,
            device_in_service,
            device_free_bytes,
        }
    }

    /// A job of `kind` completed after `t`.
    pub(crate) fn completed(&self, kind: &str, t: &Timings) {
        let label = KindLabel { kind: kind.into() };
        for (h, ms) in [
            (&self.queue, t.queue_ms),
            (&self.srs, t.srs_ms),
            (&self.synthesis, t.synth_ms),
            (&self.gpu, t.prove_ms),
            (&self.total, t.total_ms),
        ] {
            h.get_or_create(&label).observe(ms / 1e3);
        }
        self.completed.get_or_create(&label).inc();
    }

    /// A job of `kind` failed.
    pub(crate) fn failed(&self, kind: &str) {
        self.failed.get_or_create(&KindLabel { kind: kind.into() }).inc();
    }

    /// A job of `kind` was cancelled.
    pub(crate) fn cancelled(&self, kind: &str) {
        self.cancelled.get_or_create(&KindLabel { kind: kind.into() }).inc();
    }

    /// The text exposition, gauges set from `now` first.
    pub(crate) fn text(&self, now: &Snapshot) -> String {
        for (kind, pending, running) in &now.queues {
            for (state, n) in [("pending", pending), ("in_progress", running)] {
                let label = QueueLabel { kind: kind.to_string(), state: state.into() };
                self.depth.get_or_create(&label).set(gauge(*n));
            }
        }
        self.budget_used.set(gauge(now.budget_used));
        self.budget_total.set(gauge(now.budget_total));
        self.resident_bytes.set(gauge(now.resident_bytes));
        self.resident_files.set(gauge(now.resident_files));
        self.uptime.set(gauge(now.uptime_secs));
        for d in &now.devices {
            let label = DeviceLabel { device: d.name.clone() };
            self.device_busy_ms.get_or_create(&label).set(d.busy_ms as i64);
            self.device_calls.get_or_create(&label).set(gauge(d.calls));
            self.device_faults.get_or_create(&label).set(gauge(d.faults));
            self.device_in_service.get_or_create(&label).set(i64::from(d.out_of_service.is_none()));
            if let Some((_, free)) = d.memory {
                self.device_free_bytes.get_or_create(&label).set(gauge(free));
            }
        }
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

fn gauge(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_every_family() {
        let m = Metrics::new();
        let t = Timings { queue_ms: 5.0, srs_ms: 0.0, synth_ms: 20.0, prove_ms: 30.0, total_ms: 60.0, stages: vec![] };
        m.completed("winning", &t);
        m.failed("wpost");
        m.cancelled("porep");
        let snap = Snapshot {
            queues: vec![("winning", 1, 2)],
            budget_used: 10,
            budget_total: 100,
            resident_bytes: 7,
            resident_files: 1,
            uptime_secs: 3,
            devices: vec![DeviceStatus {
                name: "cuda:0".into(),
                current_job: None,
                busy_ms: 1500.0,
                calls: 4,
                faults: 3,
                out_of_service: Some("3 consecutive failed calls".into()),
                memory: Some((100, 40)),
            }],
        };
        let text = m.text(&snap);
        for line in [
            "cuzk_proof_total_seconds_count{kind=\"winning\"} 1",
            "cuzk_proofs_completed_total{kind=\"winning\"} 1",
            "cuzk_proofs_failed_total{kind=\"wpost\"} 1",
            "cuzk_proofs_cancelled_total{kind=\"porep\"} 1",
            "cuzk_queue_depth{kind=\"winning\",state=\"in_progress\"} 2",
            "cuzk_memory_budget_used_bytes 10",
            "cuzk_memory_budget_bytes 100",
            "cuzk_uptime_seconds 3",
            "cuzk_device_busy_milliseconds{device=\"cuda:0\"} 1500",
            "cuzk_device_faults{device=\"cuda:0\"} 3",
            "cuzk_device_in_service{device=\"cuda:0\"} 0",
            "cuzk_device_memory_free_bytes{device=\"cuda:0\"} 40",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
    }
}
