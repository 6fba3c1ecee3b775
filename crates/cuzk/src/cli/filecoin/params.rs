//! `cuzk filecoin params`: which files of a Filecoin parameter cache are
//! there, and random **test** parameters written into one (never Filecoin's
//! production parameters, which come from its trusted setup).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use cuzk::filecoin::{CircuitId, ParamCache};
use cuzk::Error;

use crate::cli::progress::Progress;

/// Arguments of `cuzk filecoin params`.
#[derive(Args)]
pub struct ParamsArgs {
    /// The Filecoin parameter cache directory.
    #[arg(long, value_name = "DIR")]
    params_dir: PathBuf,
    /// A circuit id to list (porep-2k, wpost-32g, winning-8m, snap-64g, ...;
    /// repeatable; all 20 by default).
    #[arg(long = "circuit", value_name = "ID", value_parser = circuit_id)]
    circuits: Vec<CircuitId>,
    /// Write random TEST parameters (.params, .vk, .meta) for this circuit id
    /// instead of listing. They are not Filecoin's production parameters:
    /// proofs made with them verify only under them.
    #[arg(long, value_name = "ID", value_parser = circuit_id, conflicts_with = "circuits")]
    write_test_params: Option<CircuitId>,
    /// Allow --write-test-params for 32 GiB and 64 GiB circuits (hours of
    /// CPU, and tens of GB of memory and disk).
    #[arg(long, requires = "write_test_params")]
    i_know_this_takes_hours: bool,
    /// With --write-test-params: generate them on cuda:0 from the circuit's
    /// recorded shape (minutes at 32 GiB instead of hours; a partition of a
    /// synthetic input recorded), and keep the recording where the proving
    /// commands look for it (their --recordings default, the user cache).
    #[arg(long, requires = "write_test_params")]
    gpu: bool,
    /// With --gpu: where the recording goes (as the proving commands'
    /// --recordings).
    #[arg(long, value_name = "DIR", requires = "gpu")]
    recordings: Option<PathBuf>,
    /// With --gpu: the recording beside the parameters (as the proving
    /// commands' --recordings-beside-params).
    #[arg(long, requires = "gpu", conflicts_with = "recordings")]
    recordings_beside_params: bool,
    /// One JSON object per circuit instead of text.
    #[arg(long, conflicts_with = "write_test_params")]
    json: bool,
}

/// Lists, or writes test parameters.
pub fn run(a: &ParamsArgs) -> Result<ExitCode, Error> {
    let dir = &a.params_dir;
    let meta = std::fs::metadata(dir).map_err(|e| Error::Usage(format!("--params-dir {}: {e}", dir.display())))?;
    if !meta.is_dir() {
        return Err(Error::Usage(format!("--params-dir {}: not a directory", dir.display())));
    }
    let cache = ParamCache::new(dir);
    match a.write_test_params {
        Some(id) => write_test_params(&cache, id, a.i_know_this_takes_hours || a.gpu, a.gpu.then_some(a)),
        None => list(&cache, &a.circuits, a.json),
    }
}

fn list(cache: &ParamCache, circuits: &[CircuitId], json: bool) -> Result<ExitCode, Error> {
    let all: Vec<CircuitId> = if circuits.is_empty() { CircuitId::all().collect() } else { circuits.to_vec() };
    for id in all {
        let files = cache.files(id)?;
        let entries = [("params", &files.params), ("vk", &files.vk), ("meta", &files.meta)];
        if json {
            let mut line = serde_json::json!({ "circuit_id": id.to_string() });
            for (what, path) in entries {
                let bytes = size(path);
                line[what] = serde_json::json!({ "file": file_name(path), "present": bytes.is_some(), "bytes": bytes });
            }
            println!("{line}");
        } else {
            println!("{id}");
            for (what, path) in entries {
                let state = size(path).map_or("missing".to_string(), |n| format!("{n} bytes"));
                println!("  {what:<6} {state:>18}  {}", file_name(path));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The size of a regular file, `None` when there is none.
fn size(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.len())
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

const NOT_PRODUCTION: &str = "these are RANDOM TEST PARAMETERS, NOT Filecoin's production parameters: \
     proofs made with them verify only under these files, never on chain";

/// Writes test parameters; on the GPU (`gpu`, the arguments saying where
/// the recording goes) or the CPU.
fn write_test_params(cache: &ParamCache, id: CircuitId, hours_ok: bool, gpu: Option<&ParamsArgs>) -> Result<ExitCode, Error> {
    if !id.sector_size.is_test_size() && !hours_ok {
        return Err(Error::Usage(format!(
            "{id}: random parameters for {} sectors take hours of CPU and tens of GB of memory and disk; \
             pass --i-know-this-takes-hours to go on",
            id.sector_size
        )));
    }
    let files = cache.files(id)?;
    // Never over Filecoin's production files, which may be what is there.
    if let Some(existing) = [&files.params, &files.vk].into_iter().find(|p| p.exists()) {
        return Err(Error::Usage(format!(
            "{} exists: cuzk does not replace parameters (they may be Filecoin's production ones); remove it first",
            existing.display()
        )));
    }
    eprintln!("WARNING: writing {id} into {}: {NOT_PRODUCTION}", cache.dir().display());
    let start = Instant::now();
    let progress = Progress::new("test params");
    let report = |phase: &str, done: u64, total: u64| progress.update(phase, done, total);
    let written = if let Some(a) = gpu {
        // The recording goes where the proving commands look for it.
        let recordings = |params: &Path| {
            crate::cli::jobs::recordings_dir(a.recordings.as_deref(), a.recordings_beside_params, params)
        };
        super::gpu_params::write(cache, id, &recordings, Some(&report))?
    } else {
        cache.write_test_params(id, &mut rand::thread_rng(), Some(&report))?
    };
    for path in [&written.params, &written.vk, &written.meta] {
        println!("{} ({} bytes)", path.display(), size(path).unwrap_or(0));
    }
    eprintln!("WARNING: {id} written in {:.1} s: {NOT_PRODUCTION}", start.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// A circuit id on the command line.
fn circuit_id(s: &str) -> Result<CircuitId, String> {
    s.parse().map_err(|e: cuzk::filecoin::KindError| e.to_string())
}
