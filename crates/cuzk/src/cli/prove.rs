//! `cuzk prove`: one job of `--batch` circuits of a built-in workload.

use std::path::PathBuf;

use clap::Args;
use cuzk::Error;

use super::output::{self, Output};
use super::workload::WorkloadArgs;
use super::{jobs, limits};

/// Arguments of `cuzk prove`.
#[derive(Args)]
pub struct ProveArgs {
    #[command(flatten)]
    workload: WorkloadArgs,
    /// Parameter file made by `cuzk setup` (or bellperson) for this workload.
    #[arg(long)]
    params: PathBuf,
    /// Circuits to prove in one job (each with its own random witness).
    #[arg(long, default_value_t = 1, value_parser = limits::count(limits::MAX_PARTITIONS))]
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

/// Proves, verifies, reports, and writes the proofs if asked: both files
/// appear together, and only once every proof verified.
pub fn run(a: &ProveArgs) -> Result<(), Error> {
    let summary = jobs::inspect(&a.params)?;
    limits::check_params(a.workload.circuit, a.workload.size, &a.params, &summary)?;
    // Created before the work, so a wrong path fails now, not after proving.
    let outputs = match &a.out {
        Some(out) => {
            let inputs = output::inputs_path(out);
            let proofs = Output::create(out, &[&a.params, &inputs])?;
            Some((proofs, Output::create(&inputs, &[&a.params, out])?))
        }
        None => None,
    };
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
    if !report.verified {
        return Err(Error::Unverified("the proofs do not verify; nothing was written".into()));
    }
    if let Some((mut proofs, mut inputs)) = outputs {
        let bytes: Vec<u8> = report.result.proofs.iter().flat_map(|p| p.to_bytes()).collect();
        output::write_all(&mut proofs, &bytes)?;
        output::write_all(&mut inputs, cuzk::inputs::to_json(&report.inputs).as_bytes())?;
        // Inputs first: a proofs file is never there without its inputs.
        inputs.commit()?;
        proofs.commit()?;
    }
    Ok(())
}
