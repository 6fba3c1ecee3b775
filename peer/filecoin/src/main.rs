//! `peer-filecoin`: filecoin-proofs-api 19.1 with `cuda-supraseal` (what a
//! Curio provider's filecoin-ffi runs) proving PoRep C2 from the C1 and the
//! parameter cache cuzk proves from, so PERF.md can put both in one call on
//! one GPU. Each rep is one `seal_commit_phase2`, timed, then checked by
//! `verify_seal`; the first rep also loads the parameters (filecoin-proofs
//! keeps them in process after that). One JSON line per rep on stdout.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use base64::Engine;
use clap::Parser;
use filecoin_proofs_api::seal::{seal_commit_phase2, verify_seal, SealCommitPhase1Output};
use filecoin_proofs_api::{ProverId, SectorId};
use serde_json::{json, Value};

/// Prove a PoRep C2 with filecoin-proofs + supraseal.
#[derive(Parser)]
#[command(name = "peer-filecoin")]
struct Args {
    /// Curio's c1.json wrapper ({"SectorNum", "Phase1Out", "SectorSize"}) or the raw C1 JSON.
    #[arg(long)]
    c1: PathBuf,
    /// The miner's actor id (the prover id is its ID address payload).
    #[arg(long)]
    miner_id: u64,
    /// The sector number, for a raw C1 (the wrapper carries its own).
    #[arg(long)]
    sector_number: Option<u64>,
    /// The Filecoin parameter cache (FIL_PROOFS_PARAMETER_CACHE).
    #[arg(long)]
    params_dir: PathBuf,
    /// Proofs to make, one after another in this process.
    #[arg(long, default_value_t = 3)]
    reps: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peer-filecoin: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(a: &Args) -> Result<()> {
    // filecoin-proofs reads its settings once, on first use, after this.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &a.params_dir);
    let bytes = std::fs::read(&a.c1).with_context(|| format!("reading {}", a.c1.display()))?;
    let (c1_json, sector) = unwrap_c1(&bytes, a.sector_number)?;
    let c1: SealCommitPhase1Output = serde_json::from_slice(&c1_json).context("parsing the C1 output")?;
    let prover_id = prover_id(a.miner_id);
    let sector_id = SectorId::from(sector);
    for rep in 0..a.reps {
        let start = Instant::now();
        let out = seal_commit_phase2(c1.clone(), prover_id, sector_id).context("seal_commit_phase2")?;
        let prove_ms = start.elapsed().as_secs_f64() * 1e3;
        let start = Instant::now();
        let ok = verify_seal(c1.registered_proof, c1.comm_r, c1.comm_d, prover_id, sector_id, c1.ticket, c1.seed, &out.proof)
            .context("verify_seal")?;
        let verify_ms = start.elapsed().as_secs_f64() * 1e3;
        if !ok {
            bail!("rep {rep}: verify_seal refused the proof");
        }
        let line = json!({
            "peer": "filecoin-proofs-api 19.1 cuda-supraseal",
            "rep": rep,
            "registered_proof": format!("{:?}", c1.registered_proof),
            "prove_ms": prove_ms,
            "verify_ms": verify_ms,
            "proof_bytes": out.proof.len(),
            "peak_rss_mib": peak_rss_mib(),
        });
        println!("{line}");
    }
    Ok(())
}

/// The raw C1 JSON and the sector number, from Curio's wrapper or as given.
fn unwrap_c1(bytes: &[u8], sector: Option<u64>) -> Result<(Vec<u8>, u64)> {
    let value: Value = serde_json::from_slice(bytes).context("the C1 file is not JSON")?;
    match value.get("Phase1Out").and_then(Value::as_str) {
        Some(b64) => {
            let raw = base64::engine::general_purpose::STANDARD.decode(b64).context("Phase1Out is not base64")?;
            let number = value.get("SectorNum").and_then(Value::as_u64).ok_or_else(|| anyhow!("SectorNum missing"))?;
            Ok((raw, number))
        }
        None => Ok((bytes.to_vec(), sector.ok_or_else(|| anyhow!("a raw C1 needs --sector-number"))?)),
    }
}

/// The prover id of miner `id`: its ID address's payload (the id as an
/// unsigned LEB128 varint), zero-padded to 32 bytes, as filecoin-ffi takes it.
fn prover_id(mut id: u64) -> ProverId {
    let mut out = [0u8; 32];
    let mut i = 0;
    loop {
        let byte = (id & 0x7f) as u8;
        id >>= 7;
        out[i] = if id == 0 { byte } else { byte | 0x80 };
        i += 1;
        if id == 0 {
            return out;
        }
    }
}

/// The process's peak resident set (VmHWM), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
