//! `cuzk filecoin prove <kind>`: one request, one engine job, the proof
//! verified by cuzk-filecoin before it is printed or written.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use cuzk::filecoin::{self, Proved};
use cuzk::Error;

use super::request::{Input, Kind};
use crate::cli::{jobs, limits};
use crate::cli::output::{self, Output};

/// What `prove` adds to a kind's inputs.
#[derive(Args)]
pub struct ProveArgs {
    /// Write the proof here (192 bytes per partition, filecoin-proofs'
    /// layout), once it has verified.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// One JSON object with the job's timings instead of the text lines.
    #[arg(long)]
    pub json: bool,
    /// Prove the request this many more times after a warm-up proof off the
    /// clock, and report proofs per second and latency percentiles (the
    /// in-process figure `cuzk client bench` compares a daemon with).
    #[arg(long, value_name = "N", value_parser = limits::count(limits::MAX_JOBS))]
    jobs: Option<usize>,
    /// With `--jobs`: callers proving at once, each the next request as soon
    /// as its last is verified.
    #[arg(long, value_name = "C", default_value_t = 1, requires = "jobs", value_parser = limits::count(limits::MAX_CALLERS))]
    clients: usize,
    #[command(flatten)]
    engine: jobs::EngineArgs,
}

/// Proves, verifies, reports, and writes the proof if asked.
pub fn run(kind: &Kind<ProveArgs>) -> Result<ExitCode, Error> {
    let input = kind.input()?;
    let a = input.extra;
    let circuit = input.request.circuit_id()?;
    let files = input.cache.files(circuit)?;
    if !files.params.is_file() {
        let hint = if circuit.sector_size.is_test_size() {
            format!(" (for tests: `cuzk filecoin params --params-dir DIR --write-test-params {circuit}`)")
        } else {
            String::new()
        };
        return Err(Error::Usage(format!("{circuit}: no parameter file {}{hint}", files.params.display())));
    }
    // Created before the work, so a wrong path fails now, not after proving.
    let out = match &a.out {
        Some(path) => {
            let mut inputs = input.files();
            inputs.extend([files.params.as_path(), files.vk.as_path()]);
            Some(Output::create(path, &inputs)?)
        }
        None => None,
    };
    let engine = jobs::engine(&a.engine, &files.params)?;
    let priority = filecoin::default_priority(input.request.kind());
    let proved = if let Some(jobs) = a.jobs {
        super::repeat::run(&engine, &input, priority, jobs, a.clients.min(jobs))?
    } else {
        let proved = filecoin::prove(&engine, &input.cache, &input.request, priority).map_err(|e| input.explain(e))?;
        report(&proved, &input);
        proved
    };
    jobs::report_recordings(&engine);
    if let Some(mut out) = out {
        output::write_all(&mut out, &proved.bytes)?;
        out.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON line or the text lines of a verified proof.
fn report(p: &Proved, input: &Input<'_, ProveArgs>) {
    let a = input.extra;
    if a.json {
        let mut line = serde_json::json!({
            "job": p.job,
            "circuit_id": p.circuit_id.to_string(),
            "partitions": p.bytes.len() / filecoin::proofs::PROOF_BYTES,
            "backend": p.backend,
            "synthesis": a.engine.synthesis.to_string(),
            "verified": true,
            "proof_bytes": p.bytes.len(),
        });
        jobs::with_timings(&mut line, &p.timings);
        println!("{line}");
    } else {
        println!("{}", jobs::timings_line(&p.timings, &p.backend));
        let written = a.out.as_ref().map(|o| format!(", written to {}", o.display())).unwrap_or_default();
        println!("{}: {} proof bytes, verified{written}", p.circuit_id, p.bytes.len());
    }
}
