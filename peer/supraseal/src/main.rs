//! `peer-supraseal`: the GPU peer of cuzk's benchmarks. bellperson 0.27 built
//! with its `cuda-supraseal` feature proves cuzk's workload circuits (written
//! with bellperson's own gadgets in benches/src/peer.rs) from the same
//! parameter file cuzk proves from, so docs/PERF.md can put both columns
//! side by side from one run on one GPU. See README.md for the build.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod batch;
mod capture;
mod cli;
mod error;
mod params;
mod report;
mod shape;

// cuzk-benches cannot be a dependency: with `cuda-supraseal` on, bellperson
// drops the CPU prover that cuzk-benches calls. These two files of it need
// nothing of the rest and are compiled here as they are, not copied.
#[path = "../../../benches/src/debug_duration.rs"]
mod debug_duration;
#[path = "../../../benches/src/peer.rs"]
mod peer;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use bellperson::groth16::{prepare_verifying_key, SuprasealParameters};
use blstrs::{Bls12, Scalar};
use clap::Parser;
use serde_json::json;

use batch::{Outcome, Work};
use cli::Args;
use error::PeerError;
use params::Header;
use peer::PeerCircuit;
use report::{emit, median, ms, peak_rss_mib};
use shape::Shape;

/// Names the prover in every line.
const PEER: &str = "bellperson 0.27 + supraseal-c2 0.1.2";

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peer-supraseal: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(a: &Args) -> Result<(), PeerError> {
    capture::install()?;

    // Check the file against the circuit before supraseal sees it: a
    // mismatch there is an assertion failure, not an error.
    let header = Header::read(&a.params)?;
    let shape = Shape::of(PeerCircuit(a.circuit.circuit::<Scalar>(a.size, 0)?))?;
    header.check(&shape, &a.params)?;
    let pvk = prepare_verifying_key(&header.vk);

    // supraseal reads the points on a thread of its own and the first proof
    // waits for it, so the load is the constructor plus one warm-up proof
    // (which also creates the CUDA context); neither counts in any figure.
    let start = Instant::now();
    let srs = load(a)?;
    let load = start.elapsed();
    let work = Work {
        srs: &srs,
        pvk: &pvk,
        workload: a.circuit,
        size: a.size,
    };
    let mut rng = rand::thread_rng();
    let warmup = work.prove(1, &mut rng)?;
    emit(
        a.json,
        "load",
        &json!({
            "kind": "load",
            "peer": PEER,
            "params": a.params.display().to_string(),
            "circuit": a.circuit.to_string(),
            "size": a.size,
            "inputs": shape.inputs,
            "aux": shape.aux,
            "domain": shape.domain(),
            "load_ms": ms(load),
            "warmup_ms": ms(warmup.total),
            "warmup_verified": warmup.failed == 0,
            "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        }),
    );
    if warmup.failed > 0 {
        return Err(PeerError::Unverified {
            failed: 1,
            total: 1,
        });
    }

    let runs = a.jobs.or(a.reps).unwrap_or(1);
    let kind = if a.jobs.is_some() { "job" } else { "rep" };
    let start = Instant::now();
    let mut outcomes = Vec::with_capacity(runs);
    for i in 0..runs {
        let o = work.prove(a.batch, &mut rng)?;
        emit(a.json, &format!("{kind} {i}"), &run_line(a, kind, i, &o));
        outcomes.push(o);
    }
    let wall = start.elapsed();

    let proofs: usize = outcomes.iter().map(|o| o.proofs).sum();
    let failed: usize = outcomes.iter().map(|o| o.failed).sum();
    let closing = if a.jobs.is_some() {
        throughput_line(a, &outcomes, wall, load + warmup.total)
    } else {
        summary_line(a, &outcomes, load, warmup.total)
    };
    emit(
        a.json,
        if a.jobs.is_some() {
            "throughput"
        } else {
            "summary"
        },
        &closing,
    );
    if failed > 0 {
        return Err(PeerError::Unverified {
            failed,
            total: proofs,
        });
    }
    Ok(())
}

/// supraseal's parameters for `a.params` (reading starts in the background).
fn load(a: &Args) -> Result<SuprasealParameters<Bls12>, PeerError> {
    let srs_error = |message: String| PeerError::Srs {
        path: a.params.clone(),
        message,
    };
    // supraseal hands the path to C++ as a C string and panics on anything else.
    if a.params.to_str().is_none() {
        return Err(srs_error("the path is not valid UTF-8".into()));
    }
    SuprasealParameters::new(a.params.clone()).map_err(|e| srs_error(e.to_string()))
}

/// One timed batch (a rep, or a job of `batch` partitions).
fn run_line(a: &Args, kind: &str, index: usize, o: &Outcome) -> serde_json::Value {
    json!({
        "kind": kind,
        kind: index,
        "peer": PEER,
        "circuit": a.circuit.to_string(),
        "size": a.size,
        "constraints": a.circuit.expected_constraints(a.size),
        "batch": a.batch,
        "synth_ms": ms(o.phases.synthesis),
        "gpu_ms": ms(o.phases.prove),
        "total_ms": ms(o.total),
        "after_ms": ms(o.total.saturating_sub(o.phases.synthesis + o.phases.prove)),
        "verify_ms": ms(o.verify),
        "verified": o.failed == 0,
    })
}

/// The medians of every rep, with each rep's figures and the excluded load.
fn summary_line(
    a: &Args,
    outcomes: &[Outcome],
    load: Duration,
    warmup: Duration,
) -> serde_json::Value {
    let all =
        |f: fn(&Outcome) -> Duration| -> Vec<f64> { outcomes.iter().map(|o| ms(f(o))).collect() };
    let synth = all(|o| o.phases.synthesis);
    let gpu = all(|o| o.phases.prove);
    let total = all(|o| o.total);
    json!({
        "kind": "summary",
        "peer": PEER,
        "circuit": a.circuit.to_string(),
        "size": a.size,
        "constraints": a.circuit.expected_constraints(a.size),
        "batch": a.batch,
        "reps": outcomes.len(),
        "synth_ms": median(&synth),
        "gpu_ms": median(&gpu),
        "total_ms": median(&total),
        "synth_ms_all": synth,
        "gpu_ms_all": gpu,
        "total_ms_all": total,
        "load_ms": ms(load),
        "warmup_ms": ms(warmup),
        "peak_rss_mib": peak_rss_mib(),
        "verified": outcomes.iter().all(|o| o.failed == 0),
    })
}

/// Throughput over the jobs, as `cuzk bench` closes its run.
fn throughput_line(
    a: &Args,
    outcomes: &[Outcome],
    wall: Duration,
    load: Duration,
) -> serde_json::Value {
    let proofs: usize = outcomes.iter().map(|o| o.proofs).sum();
    json!({
        "kind": "throughput",
        "peer": PEER,
        "backend": "supraseal",
        "circuit": a.circuit.to_string(),
        "size": a.size,
        "jobs": outcomes.len(),
        "partitions": a.batch,
        "proofs": proofs,
        "wall_s": wall.as_secs_f64(),
        "params_load_s": load.as_secs_f64(),
        "proofs_per_min": proofs as f64 / wall.as_secs_f64() * 60.0,
        "peak_rss_mib": peak_rss_mib(),
        "verified": outcomes.iter().all(|o| o.failed == 0),
    })
}
