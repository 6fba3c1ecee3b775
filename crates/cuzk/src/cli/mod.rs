//! Command-line parsing and one module per subcommand.

mod bench;
#[cfg(feature = "daemon")]
mod client;
#[cfg(feature = "daemon")]
mod daemon;
#[cfg(feature = "filecoin")]
mod filecoin;
mod jobs;
mod limits;
mod output;
mod progress;
mod inspect;
mod prove;
mod setup;
mod soak;
#[cfg(any(feature = "daemon", feature = "filecoin"))]
mod stats;
mod timeline;
mod verify;
mod workload;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cuzk::{BackendChoice, Error};

use workload::WorkloadArgs;

/// Groth16 proofs for BLS12-381 on NVIDIA GPUs (or the CPU).
#[derive(Parser)]
#[command(name = "cuzk", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate random (test) parameters for a built-in workload.
    Setup {
        #[command(flatten)]
        workload: WorkloadArgs,
        /// Where to write the parameter file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Prove a built-in workload.
    Prove(prove::ProveArgs),
    /// Verify proofs against public inputs.
    Verify {
        /// Parameter file (written by cuzk or bellperson).
        #[arg(long)]
        params: PathBuf,
        /// Proofs: 192 bytes each, concatenated.
        #[arg(long)]
        proofs: PathBuf,
        /// Public inputs (JSON; see `cuzk prove --out`).
        #[arg(long)]
        inputs: PathBuf,
    },
    /// Parameter-file tools.
    Params {
        #[command(subcommand)]
        command: ParamsCommand,
    },
    /// Prove several jobs through the engine and report throughput.
    Bench(bench::BenchArgs),
    /// Run the engine for a while under random load, verify every proof, and
    /// report proofs, invalid proofs, lost jobs, failures and memory.
    Soak(soak::SoakArgs),
    /// Engine timelines (`--timeline` files): draw one.
    Timeline {
        #[command(subcommand)]
        command: timeline::TimelineCommand,
    },
    /// Filecoin's proof kinds (PoRep, SnapDeals, WindowPoSt, WinningPoSt): prove, verify, parameters, test data.
    #[cfg(feature = "filecoin")]
    Filecoin {
        #[command(subcommand)]
        command: filecoin::FilecoinCommand,
    },
    /// Serve Curio's proving API (gRPC cuzk.v1.ProvingEngine) until SIGTERM or SIGINT.
    #[cfg(feature = "daemon")]
    Daemon(daemon::DaemonArgs),
    /// Talk to a running daemon: status, metrics, parameters, proofs, load.
    #[cfg(feature = "daemon")]
    Client(Box<client::ClientArgs>),
}

#[derive(Subcommand)]
enum ParamsCommand {
    /// Print section counts and validate the layout.
    Inspect {
        /// The parameter file.
        file: PathBuf,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Setup { workload, out } => setup::run(&workload, &out).map(|()| ExitCode::SUCCESS),
        Command::Prove(args) => prove::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Verify { params, proofs, inputs } => verify::run(&params, &proofs, &inputs),
        Command::Params { command: ParamsCommand::Inspect { file, json } } => {
            inspect::run(&file, json)
        }
        Command::Bench(args) => bench::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Soak(args) => soak::run(&args),
        Command::Timeline { command } => timeline::run(&command).map(|()| ExitCode::SUCCESS),
        #[cfg(feature = "filecoin")]
        Command::Filecoin { command } => filecoin::run(&command),
        #[cfg(feature = "daemon")]
        Command::Daemon(args) => daemon::run(&args),
        #[cfg(feature = "daemon")]
        Command::Client(args) => client::run(&args),
    }
}

/// Parses `--backend`.
fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    s.parse()
}
