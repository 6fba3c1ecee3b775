//! What the run prints: JSON lines (`--json`) or text, one per timed batch,
//! then a closing line; and the figures both need.

use std::time::Duration;

use serde_json::Value;

/// Milliseconds, as every figure is printed.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[mid],
        _ => (sorted[mid - 1] + sorted[mid]) / 2.0,
    }
}

/// Peak resident set size of this process in MiB (VmHWM), where Linux reports it.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Prints `line` as JSON, or as `label key=value ...` text.
pub fn emit(json: bool, label: &str, line: &Value) {
    if json {
        println!("{line}");
        return;
    }
    let fields: Vec<String> = line
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != "kind")
        .map(|(key, value)| match value {
            Value::Number(n) if n.is_f64() => {
                format!("{key}={:.1}", n.as_f64().unwrap_or(f64::NAN))
            }
            Value::String(s) => format!("{key}={s}"),
            other => format!("{key}={other}"),
        })
        .collect();
    println!("{label}: {}", fields.join(" "));
}
