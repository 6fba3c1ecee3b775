//! The daemon's answers as text for people and as JSON for scripts.

use std::fmt::Write as _;

use cuzk_daemon::client::status_name;
use cuzk_daemon::proto::{srs_status::Tier, AwaitProofResponse, GetStatusResponse};
use serde_json::json;

/// A byte count in binary units (`1.5 GiB`).
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn tier(t: i32) -> &'static str {
    Tier::try_from(t).map_or("UNKNOWN", |t| t.as_str_name())
}

/// `GetStatus` as tables: totals, devices, parameters, queues.
pub fn status_table(s: &GetStatusResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "up {} s; proofs completed {}, failed {}; memory budget {} used of {}",
        s.uptime_seconds,
        s.total_proofs_completed,
        s.total_proofs_failed,
        bytes(s.pinned_memory_bytes),
        bytes(s.pinned_memory_limit_bytes)
    );
    let _ = writeln!(
        out,
        "\n{:<10} {:>12} {:>12} {:>7} {:>10} {:>6}  JOB",
        "DEVICE", "VRAM FREE", "VRAM TOTAL", "CALLS", "BUSY S", "FAULTS"
    );
    for g in &s.gpus {
        let job = match (g.current_job_id.is_empty(), g.out_of_service_reason.is_empty()) {
            (_, false) => format!("OUT OF SERVICE: {}", g.out_of_service_reason),
            (true, true) => "-".to_string(),
            (false, true) => format!("{} ({})", g.current_job_id, g.current_proof_kind),
        };
        let (free, total) = if g.vram_total_bytes == 0 {
            ("-".to_string(), "-".to_string())
        } else {
            (bytes(g.vram_free_bytes), bytes(g.vram_total_bytes))
        };
        let busy = g.busy_ms as f64 / 1e3;
        let _ = writeln!(out, "{:<10} {free:>12} {total:>12} {:>7} {busy:>10.1} {:>6}  {job}", g.name, g.calls, g.faults);
    }
    let _ = writeln!(out, "\n{:<24} {:<5} {:>12} {:>5}", "PARAMETERS", "TIER", "SIZE", "JOBS");
    if s.loaded_srs.is_empty() {
        let _ = writeln!(out, "(none resident)");
    }
    for p in &s.loaded_srs {
        let _ =
            writeln!(out, "{:<24} {:<5} {:>12} {:>5}", p.circuit_id, tier(p.tier), bytes(p.size_bytes), p.ref_count);
    }
    let _ = writeln!(out, "\n{:<10} {:>8} {:>12}", "QUEUE", "PENDING", "IN PROGRESS");
    for q in &s.queues {
        let _ = writeln!(out, "{:<10} {:>8} {:>12}", q.proof_kind, q.pending, q.in_progress);
    }
    out
}

/// `GetStatus` as one JSON object (its fields as the protocol names them).
pub fn status_json(s: &GetStatusResponse) -> String {
    let gpus: Vec<_> = s
        .gpus
        .iter()
        .map(|g| {
            json!({
                "ordinal": g.ordinal, "name": g.name, "vram_total_bytes": g.vram_total_bytes,
                "vram_free_bytes": g.vram_free_bytes, "current_job_id": g.current_job_id,
                "current_proof_kind": g.current_proof_kind,
                "out_of_service_reason": g.out_of_service_reason, "busy_ms": g.busy_ms, "calls": g.calls,
                "faults": g.faults,
            })
        })
        .collect();
    let srs: Vec<_> = s
        .loaded_srs
        .iter()
        .map(|p| {
            json!({
                "circuit_id": p.circuit_id, "tier": tier(p.tier), "size_bytes": p.size_bytes,
                "ref_count": p.ref_count,
            })
        })
        .collect();
    let queues: Vec<_> = s
        .queues
        .iter()
        .map(|q| json!({"proof_kind": q.proof_kind, "pending": q.pending, "in_progress": q.in_progress}))
        .collect();
    let v = json!({
        "gpus": gpus, "loaded_srs": srs, "queues": queues,
        "total_proofs_completed": s.total_proofs_completed, "total_proofs_failed": s.total_proofs_failed,
        "uptime_seconds": s.uptime_seconds, "pinned_memory_bytes": s.pinned_memory_bytes,
        "pinned_memory_limit_bytes": s.pinned_memory_limit_bytes,
    });
    format!("{v}\n")
}

/// A job's outcome and where its time went, in one line.
pub fn result_line(r: &AwaitProofResponse, client_ms: f64) -> String {
    let status = status_name(r.status);
    if status != "COMPLETED" {
        return format!("{status} job {} after {client_ms:.0} ms (the job goes on)", r.job_id);
    }
    format!(
        "{status} job {}: {} proof bytes ({} partition(s)); total {} ms = queue {} + parameters {} + synthesis {} + \
         proving {} (daemon); {client_ms:.0} ms at the client",
        r.job_id,
        r.proof.len(),
        r.proof.len() / 192,
        r.total_ms,
        r.queue_wait_ms,
        r.srs_load_ms,
        r.synthesis_ms,
        r.gpu_compute_ms
    )
}

/// A job's outcome as one JSON object.
pub fn result_json(r: &AwaitProofResponse, client_ms: f64) -> String {
    json!({
        "job_id": r.job_id, "status": status_name(r.status), "proof_bytes": r.proof.len(),
        "queue_wait_ms": r.queue_wait_ms, "srs_load_ms": r.srs_load_ms, "synthesis_ms": r.synthesis_ms,
        "gpu_compute_ms": r.gpu_compute_ms, "total_ms": r.total_ms, "client_ms": client_ms,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_read_in_binary_units() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
    }
}
