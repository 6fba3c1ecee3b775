//! `filecoin-synth`: synthesis of one real Filecoin partition (a PoRep
//! partition, or a WinningPoSt) by cuzk, classic and recorded, and by
//! bellperson 0.27, on the same circuit, the same parameter file and the same
//! machine, in one run. The sector is sealed by filecoin-proofs once and its
//! C1 output (or vanilla proof) cached in the work directory; parameters are
//! read from a Filecoin parameter cache, written there as random test
//! parameters when absent. Progress goes to stderr; stdout gets one JSON line
//! and a table.
#![forbid(unsafe_code)]

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use cuzk_benches::filecoin::inputs::parse_sector_size;
use cuzk_benches::filecoin::report::table;
use cuzk_benches::filecoin::{run, Data, Kind, Settings};
use cuzk_filecoin::SectorSize;

/// Compare cuzk's synthesis of a Filecoin partition with bellperson's.
#[derive(Parser)]
#[command(name = "filecoin-synth")]
struct Args {
    /// The sector size: 2KiB, 8MiB or 512MiB.
    #[arg(long, value_parser = parse_sector_size)]
    sector_size: SectorSize,
    /// The circuit: porep (a PoRep partition) or winning (WinningPoSt).
    #[arg(long, default_value = "porep")]
    kind: Kind,
    /// The sector's data: random or cc (committed capacity, zeros).
    #[arg(long, default_value = "random")]
    data: Data,
    /// A Filecoin parameter cache directory (test parameters are written there when absent).
    #[arg(long)]
    params_dir: PathBuf,
    /// Where sectors are sealed and their C1 outputs or vanilla proofs cached.
    #[arg(long)]
    work_dir: PathBuf,
    /// Repetitions of each measurement; medians are reported.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Also append the JSON line to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Seed of the sector's data, its challenges and the test parameters.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = filecoin_proofs_settings(&args.params_dir, &args.work_dir) {
        eprintln!("filecoin-synth: {e}");
        return ExitCode::FAILURE;
    }
    let settings = Settings {
        kind: args.kind,
        size: args.sector_size,
        data: args.data,
        params_dir: args.params_dir,
        work_dir: args.work_dir,
        reps: args.reps,
        seed: args.seed,
    };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    eprintln!(
        "filecoin-synth: {} {} ({} data), {cores} cores, {} rayon threads, {} reps",
        settings.kind,
        settings.size,
        settings.data,
        rayon::current_num_threads(),
        settings.reps
    );
    let report = match run(&settings, &|line| eprintln!("filecoin-synth: {line}")) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("filecoin-synth: {e}");
            return ExitCode::FAILURE;
        }
    };
    let line = serde_json::to_string(&report).expect("a report serialises");
    println!("{line}");
    if let Some(path) = &args.json {
        let written = OpenOptions::new().create(true).append(true).open(path).and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = written {
            eprintln!("filecoin-synth: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    print!("{}", table(std::slice::from_ref(&report)));
    ExitCode::SUCCESS
}

/// filecoin-proofs reads its settings from the environment on first use:
/// its parameter cache is ours and its SDR parent cache and other caches go
/// under the work directory, never /var/tmp. Set before any filecoin-proofs call.
fn filecoin_proofs_settings(params_dir: &Path, work_dir: &Path) -> Result<(), String> {
    let parents = work_dir.join("parents");
    let cache = work_dir.join("cache");
    for dir in [params_dir, &parents, &cache] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", params_dir);
    std::env::set_var("FIL_PROOFS_PARENT_CACHE", parents);
    std::env::set_var("FIL_PROOFS_CACHE_DIR", cache);
    std::env::set_var("FIL_PROOFS_VERIFY_PRODUCTION_PARAMS", "0");
    Ok(())
}
