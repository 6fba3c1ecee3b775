//! `compare-cpu`: cuzk's and bellperson 0.27's CPU synthesis and prove times
//! on the same circuits, the same parameter files and the same machine, in
//! one run. Every proof is verified; the figures are medians of `--reps`.
//! Beside them, cuzk's recorded synthesis (the shape recorded once per case,
//! then witness-only synthesis plus the CPU sparse products) on the same
//! circuit, checked equal to classic synthesis.
#![forbid(unsafe_code)]

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use cuzk_benches::compare::{run_case, Case, Settings, DEFAULT_CASES};
use cuzk_benches::report::table;

/// Compare cuzk's CPU prover with bellperson 0.27's on the DESIGN §7 workloads.
#[derive(Parser)]
#[command(name = "compare-cpu")]
struct Args {
    /// Cases as WORKLOAD:SIZE, comma separated (SIZE may be 2^K).
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_CASES)]
    sizes: Vec<Case>,
    /// Proofs per library per case; medians are reported.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Also append the JSON lines to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Where parameter files are made once and reused.
    #[arg(long, default_value = "target/cuzk-bench")]
    params_dir: PathBuf,
    /// Seed of the witnesses (and of mul-chain's constant).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.reps == 0 {
        eprintln!("compare-cpu: --reps must be at least 1");
        return ExitCode::FAILURE;
    }
    let settings = Settings {
        reps: args.reps,
        params_dir: args.params_dir,
        seed: args.seed,
    };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    eprintln!(
        "compare-cpu: {cores} cores, {} rayon threads, EC_GPU_NUM_THREADS={}, {} reps",
        rayon::current_num_threads(),
        std::env::var("EC_GPU_NUM_THREADS").unwrap_or_else(|_| "unset".into()),
        settings.reps
    );
    let mut reports = Vec::new();
    for case in args.sizes {
        let report = match run_case(case, &settings, &mut |line| eprintln!("{line}")) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("compare-cpu: {case}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let line = serde_json::to_string(&report).expect("a report serialises");
        println!("{line}");
        if let Some(path) = &args.json {
            let written = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| writeln!(f, "{line}"));
            if let Err(e) = written {
                eprintln!("compare-cpu: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        reports.push(report);
    }
    print!("{}", table(&reports));
    ExitCode::SUCCESS
}
