//! `cuzk filecoin prove … --jobs N [--clients C]`: the request proved N
//! times through one engine, C callers each proving the next one as soon as
//! its last is verified, after one warm-up proof off the clock (parameters
//! loaded, the shape recorded). It is what `cuzk client bench` asks of a
//! daemon, in process: the throughput the daemon's is held to.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cuzk::filecoin::{self, Proved};
use cuzk::{Engine, Error, Priority};
use serde_json::json;

use super::prove::ProveArgs;
use super::request::Input;
use crate::cli::stats::percentile;

/// Proves `input`'s request once off the clock, then `jobs` times from
/// `clients` threads; prints a line per proof and the totals. Returns the
/// warm-up proof.
pub fn run(engine: &Engine, input: &Input<'_, ProveArgs>, priority: Priority, jobs: usize, clients: usize) -> Result<Proved, Error> {
    let prove = || filecoin::prove(engine, &input.cache, &input.request, priority).map_err(|e| input.explain(e));
    let warm = prove()?;
    eprintln!("prove: warm-up proof in {:.0} ms (off the clock); {jobs} more from {clients} callers", warm.timings.total_ms);
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let per_client: Vec<Result<Vec<f64>, Error>> = std::thread::scope(|s| {
        let callers: Vec<_> = (0..clients)
            .map(|_| {
                s.spawn(|| {
                    let mut ms = Vec::new();
                    while next.fetch_add(1, Ordering::Relaxed) < jobs {
                        let t = Instant::now();
                        let p = prove()?;
                        ms.push(t.elapsed().as_secs_f64() * 1e3);
                        line(&p, input.extra.json);
                    }
                    Ok(ms)
                })
            })
            .collect();
        callers.into_iter().map(|c| c.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let wall_s = start.elapsed().as_secs_f64();
    let mut ms = Vec::with_capacity(jobs);
    for r in per_client {
        ms.extend(r?);
    }
    ms.sort_by(f64::total_cmp);
    let p = |q| percentile(&ms, q);
    let proofs_per_s = jobs as f64 / wall_s;
    if input.extra.json {
        let latency = json!({ "p50": p(50.0), "p90": p(90.0), "p99": p(99.0), "max": p(100.0) });
        let totals = json!({ "circuit_id": warm.circuit_id.to_string(), "jobs": jobs, "clients": clients, "wall_s": wall_s, "proofs_per_s": proofs_per_s, "latency_ms": latency });
        println!("{totals}");
    } else {
        println!(
            "{}: {jobs} proofs from {clients} callers in {wall_s:.2} s: {proofs_per_s:.3} proofs/s, latency p50 {:.0} p90 {:.0} p99 {:.0} max {:.0} ms",
            warm.circuit_id,
            p(50.0),
            p(90.0),
            p(99.0),
            p(100.0)
        );
    }
    Ok(warm)
}

/// One proof's line: its job and timings.
fn line(p: &Proved, json: bool) {
    if json {
        let mut line = json!({ "job": p.job, "circuit_id": p.circuit_id.to_string(), "verified": true });
        crate::cli::jobs::with_timings(&mut line, &p.timings);
        println!("{line}");
    } else {
        println!("job {}: {}", p.job, crate::cli::jobs::timings_line(&p.timings, &p.backend));
    }
}
