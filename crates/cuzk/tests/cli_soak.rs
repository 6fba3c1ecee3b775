//! `cuzk soak` end to end on the CPU: a short seeded soak of a small circuit
//! with cancellations proves, verifies every proof, loses no job, and
//! reports its counts and memory curve.

mod common;

use common::{cuzk, dir, text};

#[test]
fn a_short_soak_proves_verifies_and_loses_nothing() {
    let params_dir = dir().join("soak");
    let o = cuzk(&[
        "soak", "--duration", "15", "--circuit", "mul-chain", "--size", "64", "--seed", "7", "--max-batch", "8",
        "--cancel-percent", "30", "--backend", "cpu", "--params-dir", params_dir.to_str().unwrap(),
    ]);
    let out = text(&o);
    assert!(o.status.success(), "soak failed: {out}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let mut lines = stdout.lines();
    let line = lines.next().expect("the human line");
    assert!(line.starts_with("soak passed:"), "{line}");
    let s: serde_json::Value = serde_json::from_str(lines.next().expect("the JSON summary")).unwrap();
    assert_eq!((s["invalid_proofs"].as_u64(), s["lost_jobs"].as_u64()), (Some(0), Some(0)), "{s}");
    assert_eq!(s["failures"], serde_json::json!({}), "no failure but cancellations: {s}");
    assert!(s["proofs"].as_u64().unwrap() >= 20, "a CPU proves mul-chain 64 in milliseconds: {s}");
    assert!(s["cancels_asked"].as_u64().unwrap() > 0 && s["cancelled"].as_u64().unwrap() > 0, "{s}");
    let ended = s["jobs_proved"].as_u64().unwrap() + s["cancelled"].as_u64().unwrap();
    assert_eq!(s["jobs_submitted"].as_u64(), Some(ended), "every job ended: {s}");
    assert_eq!(s["seed"].as_u64(), Some(7));
    assert!(s["memory"]["rss_mib"].as_array().unwrap().len() >= 10, "a sample a second: {s}");
    assert!(s["rss_flat"].is_boolean(), "{s}");
}
