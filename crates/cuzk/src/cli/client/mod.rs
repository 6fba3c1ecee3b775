//! `cuzk client`: a running daemon's RPCs from the command line, one
//! subcommand each, and `bench`, load from concurrent clients. Every call
//! goes through `cuzk_daemon::client`, a blocking API: this crate has no
//! async runtime. `--tls-ca`, `--tls-cert`/`--tls-key` and `--token-file`
//! (or `CUZK_TOKEN`) reach a TCP listener with TLS and bearer tokens.

mod bench;
mod request;
mod show;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand};
use cuzk::Error;
use cuzk_daemon::client::{status_name, Client, Options, Token};
use cuzk_daemon::proto::{self, await_proof_response::Status as AwaitStatus};

use super::limits::read_file;
use super::output::{write_all, Output};
use request::{JobOptions, RequestArgs};

/// The exit status of `await` when its timeout passed first (the job goes on).
const EXIT_TIMEOUT: u8 = 3;

/// The environment variable a bearer token is read from without `--token-file`.
const TOKEN_VARIABLE: &str = "CUZK_TOKEN";

/// The largest `--token-file` read: a token is tens of bytes.
const MAX_TOKEN_FILE: u64 = 64 << 10;

/// `cuzk client` arguments.
#[derive(Args)]
pub struct ClientArgs {
    /// The daemon's address, as its `server.listen` gives it:
    /// `unix:///absolute/path.sock` or `host:port`.
    #[arg(long, value_name = "ADDR", default_value = "unix:///run/cuzk/cuzk.sock")]
    addr: String,
    /// The CA certificate (PEM) the daemon's certificate chains to: connect
    /// over TLS (https) and check the daemon against it. TCP addresses only.
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// This client's certificate (PEM), for a daemon that requires client
    /// certificates (its server.tls.client_ca); with --tls-key and --tls-ca.
    #[arg(long, value_name = "FILE", requires_all = ["tls_key", "tls_ca"])]
    tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires_all = ["tls_cert", "tls_ca"])]
    tls_key: Option<PathBuf>,
    /// A file holding the bearer token sent with every call (surrounding
    /// white space ignored); without it, the CUZK_TOKEN environment
    /// variable's value, when set.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    #[command(subcommand)]
    command: ClientCommand,
}

#[derive(Subcommand)]
enum ClientCommand {
    /// Devices, resident parameters, queues, totals and memory.
    Status {
        /// One JSON object instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// The daemon's Prometheus metrics (the text of its /metrics).
    Metrics,
    /// Load a circuit's parameters now (`wpost-32g`, `mul-chain-1024`, ...).
    Preload {
        /// The circuit id.
        circuit_id: String,
    },
    /// Drop a circuit's parameters (refused while a job uses them).
    Evict {
        /// The circuit id.
        circuit_id: String,
    },
    /// Queue a proof and print its job id.
    Submit {
        #[command(flatten)]
        request: RequestArgs,
        #[command(flatten)]
        job: JobOptions,
    },
    /// Wait for a job: exit 0 when it completed, 1 when it failed or was
    /// cancelled, 3 when the timeout passed first (the job goes on).
    Await {
        /// The job id (`submit` printed it).
        job: String,
        /// Give up waiting after this many milliseconds (0: until the job ends).
        #[arg(long, value_name = "MS", default_value_t = 0)]
        timeout_ms: u64,
        /// Write the proof here (atomically) when the job completed.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Cancel a job: queued, it is dropped; running, it stops at its next partition.
    Cancel {
        /// The job id.
        job: String,
    },
    /// Prove one request and print where the time went.
    Prove {
        #[command(flatten)]
        request: RequestArgs,
        #[command(flatten)]
        job: JobOptions,
        /// Write the proof here (atomically: the file appears whole, and only
        /// once the daemon has proved and verified it).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Send many requests from concurrent clients; report throughput and
    /// latency per circuit.
    Bench(bench::BenchArgs),
}

/// Runs one client command.
pub fn run(args: &ClientArgs) -> Result<ExitCode, Error> {
    let options = options(args)?;
    let connect = || Client::connect_with(&args.addr, &options).map_err(Error::from);
    match &args.command {
        ClientCommand::Status { json } => {
            let status = connect()?.status()?;
            print!("{}", if *json { show::status_json(&status) } else { show::status_table(&status) });
        }
        ClientCommand::Metrics => print!("{}", connect()?.metrics()?),
        ClientCommand::Preload { circuit_id } => {
            let r = connect()?.preload(circuit_id)?;
            if r.already_loaded {
                println!("{circuit_id}: already loaded");
            } else {
                println!("{circuit_id}: loaded in {} ms", r.load_time_ms);
            }
        }
        ClientCommand::Evict { circuit_id } => {
            let r = connect()?.evict(circuit_id)?;
            if r.was_loaded {
                println!("{circuit_id}: evicted, {} freed", show::bytes(r.freed_bytes));
            } else {
                println!("{circuit_id}: was not loaded");
            }
        }
        ClientCommand::Submit { request, job } => {
            let req = job.apply(request.build()?)?;
            let r = connect()?.submit(req)?;
            eprintln!("queued, {} job(s) ahead", r.queue_position);
            println!("{}", r.job_id);
        }
        ClientCommand::Await { job, timeout_ms, out, json } => {
            let output = out.as_deref().map(|o| Output::create(o, &[])).transpose()?;
            let started = Instant::now();
            let r = connect()?.await_proof(job, *timeout_ms)?;
            return finish(&r, output, started, *json);
        }
        ClientCommand::Cancel { job } => {
            let was_running = connect()?.cancel(job)?;
            let state = if was_running { "it had started" } else { "it had not started" };
            println!("{job}: cancelled ({state})");
        }
        ClientCommand::Prove { request, job, out, json } => {
            let req = job.apply(request.build()?)?;
            let inputs: Vec<&Path> = request.files();
            let output = out.as_deref().map(|o| Output::create(o, &inputs)).transpose()?;
            let client = connect()?;
            let started = Instant::now();
            let r = client.prove(req)?;
            return finish(&r, output, started, *json);
        }
        ClientCommand::Bench(b) => return bench::run(&args.addr, &options, b),
    }
    Ok(ExitCode::SUCCESS)
}

/// The connection options of the flags: TLS files, and the token from
/// `--token-file` or else `CUZK_TOKEN`.
fn options(args: &ClientArgs) -> Result<Options, Error> {
    let token = match &args.token_file {
        Some(path) => {
            let bytes = read_file(path, MAX_TOKEN_FILE)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::Usage(format!("--token-file {}: not UTF-8", path.display())))?;
            Some(token(text.trim(), format!("--token-file {}", path.display()))?)
        }
        None => match std::env::var(TOKEN_VARIABLE) {
            Ok(value) => Some(token(value.trim(), TOKEN_VARIABLE.to_string())?),
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(_)) => return Err(Error::Usage(format!("{TOKEN_VARIABLE}: not UTF-8"))),
        },
    };
    let tls_identity = args.tls_cert.clone().zip(args.tls_key.clone());
    Ok(Options { tls_ca: args.tls_ca.clone(), tls_identity, token })
}

/// A token read from `origin`; an empty one is refused rather than sent.
fn token(secret: &str, origin: String) -> Result<Token, Error> {
    if secret.is_empty() {
        return Err(Error::Usage(format!("{origin}: the bearer token is empty")));
    }
    Ok(Token { secret: secret.to_string(), origin })
}

/// Reports a job's outcome; a completed job's proof goes to `output`. Only
/// a completed job exits 0.
fn finish(
    r: &proto::AwaitProofResponse,
    output: Option<Output>,
    started: Instant,
    json: bool,
) -> Result<ExitCode, Error> {
    let client_ms = started.elapsed().as_secs_f64() * 1e3;
    match AwaitStatus::try_from(r.status) {
        Ok(AwaitStatus::Completed) => {
            if r.proof.is_empty() || r.proof.len() % 192 != 0 {
                let why = format!("the daemon answered {} proof bytes, not 192 per partition", r.proof.len());
                return Err(Error::NotProved { job: r.job_id.clone(), status: "COMPLETED", message: why });
            }
            if let Some(mut out) = output {
                write_all(&mut out, &r.proof)?;
                out.commit()?;
            }
            println!("{}", if json { show::result_json(r, client_ms) } else { show::result_line(r, client_ms) });
            Ok(ExitCode::SUCCESS)
        }
        Ok(AwaitStatus::Timeout) => {
            println!("{}", if json { show::result_json(r, client_ms) } else { show::result_line(r, client_ms) });
            Ok(ExitCode::from(EXIT_TIMEOUT))
        }
        _ => Err(Error::NotProved {
            job: r.job_id.clone(),
            status: status_name(r.status),
            message: r.error_message.clone(),
        }),
    }
}
