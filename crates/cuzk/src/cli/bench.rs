//! `cuzk bench`: several jobs of several partitions back to back through the
//! engine, parameters loaded before the clock starts; a line per job,
//! throughput and peak memory at the end.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use cuzk::synth::workloads::Workload;
use cuzk::Error;

use super::jobs::{self, Report};
use super::limits;
use super::workload::WorkloadArgs;

/// Arguments of `cuzk bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Circuit family: `sha256` or `mul-chain`.
    #[arg(long, default_value = "sha256", value_parser = |s: &str| s.parse::<Workload>().map_err(|e| e.to_string()))]
    circuit: Workload,
    /// N: compressions for sha256, constraints for mul-chain.
    #[arg(long, default_value_t = 10)]
    size: usize,
    /// Jobs submitted back to back.
    #[arg(long, default_value_t = 3, value_parser = limits::count(limits::MAX_JOBS))]
    jobs: usize,
    /// Partitions (circuits) per job.
    #[arg(long, default_value_t = 2, value_parser = limits::count(limits::MAX_PARTITIONS))]
    partitions: usize,
    /// Where parameters are made once and cached.
    #[arg(long, default_value = "target/cuzk-bench")]
    params_dir: PathBuf,
    /// One JSON object per job, then one with the totals.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    engine: jobs::EngineArgs,
}

/// Runs the benchmark.
pub fn run(a: &BenchArgs) -> Result<(), Error> {
    limits::check_size(a.circuit, a.size)?;
    let params = a.params_dir.join(format!("{}-{}.params", a.circuit, a.size));
    if !params.exists() {
        std::fs::create_dir_all(&a.params_dir).map_err(Error::io(&a.params_dir))?;
        eprintln!("bench: making parameters {} (cached for later runs)", params.display());
        super::setup::run(&WorkloadArgs { circuit: a.circuit, size: a.size }, &params)?;
    }
    limits::check_params(a.circuit, a.size, &params, &jobs::inspect(&params)?)?;
    let pvk = jobs::pvk(&params)?;
    let engine = jobs::engine(&a.engine, &params)?;
    eprintln!(
        "bench: {} jobs x {} partitions of {} size {} ({} constraints each)",
        a.jobs,
        a.partitions,
        a.circuit,
        a.size,
        a.circuit.expected_constraints(a.size)
    );

    // Operators keep parameters resident all day: load (and upload to every
    // GPU) before the clock starts, so throughput is the steady state.
    let load_s = engine.preload(&params)? / 1e3;
    eprintln!("bench: parameters loaded and prepared in {load_s:.2} s (before the clock starts)");

    let start = Instant::now();
    let mut submitted = Vec::with_capacity(a.jobs);
    for _ in 0..a.jobs {
        submitted.push(jobs::submit(&engine, &params, a.circuit, a.size, a.partitions)?);
    }
    let mut reports: Vec<Report> = Vec::with_capacity(a.jobs);
    for (handle, inputs) in submitted {
        let r = jobs::finish(handle, inputs, &pvk)?;
        if a.json {
            println!("{}", jobs::json_line(&r, a.circuit, a.size, a.engine.synthesis));
        } else {
            println!("job {}: {}", r.result.id, jobs::text_line(&r));
        }
        reports.push(r);
    }
    let wall_s = start.elapsed().as_secs_f64();
    let proofs: usize = reports.iter().map(|r| r.result.proofs.len()).sum();
    let per_min = proofs as f64 / wall_s * 60.0;
    let peak_mib = cuzk::rss::peak_rss_bytes().map(|b| b as f64 / (1 << 20) as f64);
    let all_verified = reports.iter().all(|r| r.verified);
    jobs::report_recordings(&engine);

    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "backend": engine.backends().join(","),
                "jobs": a.jobs,
                "proofs": proofs,
                "wall_s": wall_s,
                "params_load_s": load_s,
                "proofs_per_min": per_min,
                "peak_rss_mib": peak_mib,
                "verified": all_verified,
            })
        );
    } else {
        print_table(&reports);
        println!(
            "backend={} jobs={} proofs={} wall={:.2} s throughput={:.2} proofs/min peak_rss={} verified={}",
            engine.backends().join(","),
            a.jobs,
            proofs,
            wall_s,
            per_min,
            peak_mib.map(|m| format!("{m:.0} MiB")).unwrap_or_else(|| "n/a".into()),
            all_verified
        );
    }
    if !all_verified {
        return Err(Error::Unverified("some bench proofs do not verify".into()));
    }
    Ok(())
}

fn print_table(reports: &[Report]) {
    println!(
        "{:>4} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}",
        "job", "parts", "queue_ms", "srs_ms", "synth_ms", "gpu_ms", "total_ms", "verified"
    );
    for r in reports {
        let t = &r.result.timings;
        println!(
            "{:>4} {:>5} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>8}",
            r.result.id,
            r.result.proofs.len(),
            t.queue_ms,
            t.srs_ms,
            t.synth_ms,
            t.prove_ms,
            t.total_ms,
            r.verified
        );
    }
}
