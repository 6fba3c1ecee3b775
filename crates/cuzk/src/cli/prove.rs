//! `cuzk prove`: one job of `--batch` circuits of a built-in workload.

use std::path::PathBuf;

use clap::Args;
use cuzk::Error;

use super::jobs;
use super::workload::WorkloadArgs;

/// Arguments of `cuzk prove`.
#[derive(Args)]
pub struct ProveArgs {
    #[command(flatten)]
    workload: WorkloadArgs,
    /// Parameter file made by `cuzk setup` (or bellperson) for this workload.
    #[arg(long)]
    params: PathBuf,
    /// Circuits to prove in one job (each with its own random witness).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Write the proofs here (192 bytes each) and their inputs to `OUT.inputs.json`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// One JSON object per job instead of the timings line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    engine: jobs::EngineArgs,
}

/// Proves, verifies, reports, and writes the proofs if asked.
pub fn run(a: &ProveArgs) -> Result<(), Error> {
    if a.batch == 0 {
        return Err(Error::Usage("--batch must be at least 1".into()));
    }
    let pvk = jobs::pvk(&a.params)?;
    let engine = jobs::engine(&a.engine, &a.params)?;
    let (handle, inputs) =
        jobs::submit(&engine, &a.params, a.workload.circuit, a.workload.size, a.batch)?;
    let report = jobs::finish(handle, inputs, &pvk)?;
    jobs::report_recordings(&engine);
    if a.json {
        println!("{}", jobs::json_line(&report, a.workload.circuit, a.workload.size, a.engine.synthesis));
    } else {
        println!("{}", jobs::text_line(&report));
    }
    if let Some(out) = &a.out {
        let bytes: Vec<u8> = report.result.proofs.iter().flat_map(|p| p.to_bytes()).collect();
        std::fs::write(out, bytes).map_err(Error::io(out))?;
        let inputs_path = PathBuf::from(format!("{}.inputs.json", out.display()));
        std::fs::write(&inputs_path, cuzk::inputs::to_json(&report.inputs))
            .map_err(Error::io(&inputs_path))?;
    }
    if !report.verified {
        return Err(Error::Unverified("the proofs do not verify".into()));
    }
    Ok(())
}
