//! The command line.

use std::path::PathBuf;

use clap::Parser;
use cuzk_synth::workloads::Workload;

/// bellperson 0.27 proving on the GPU through supraseal-c2 0.1.2, on cuzk's
/// benchmark circuits and parameter files: the peer column of cuzk's GPU
/// benchmarks (DESIGN §8).
///
/// Each rep (or job) draws fresh random witnesses for BATCH circuits, proves
/// them in one `create_random_proof_batch` call and verifies every proof with
/// bellperson's verifier. Loading the parameters and one warm-up proof happen
/// before any timing and are reported apart.
#[derive(Parser, Debug)]
#[command(name = "peer-supraseal", version)]
pub struct Args {
    /// Parameter file in bellperson's format (as `cuzk setup` writes it).
    #[arg(long)]
    pub params: PathBuf,
    /// Circuit family: `sha256` or `mul-chain`.
    #[arg(long, value_parser = parse_workload)]
    pub circuit: Workload,
    /// N: compressions for sha256, constraints for mul-chain (`2^K` accepted).
    #[arg(long, value_parser = parse_size)]
    pub size: usize,
    /// Circuits (partitions) proved in one call.
    #[arg(long, default_value = "1", value_parser = parse_count)]
    pub batch: usize,
    /// Timed repetitions; the last line gives their medians [default: 1].
    #[arg(long, value_parser = parse_count, conflicts_with = "jobs")]
    pub reps: Option<usize>,
    /// Engine-comparison mode: J jobs of BATCH partitions back to back, a
    /// line per job, then throughput (proofs per minute) and peak RSS, as
    /// `cuzk bench --jobs J --partitions BATCH` reports them.
    #[arg(long, value_parser = parse_count)]
    pub jobs: Option<usize>,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
}

fn parse_workload(s: &str) -> Result<Workload, String> {
    s.parse()
        .map_err(|e: cuzk_synth::SynthesisError| e.to_string())
}

/// A positive count.
fn parse_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{s:?} is not a positive whole number")),
    }
}

/// A positive size, written `N` or `2^K`.
fn parse_size(s: &str) -> Result<usize, String> {
    match s.split_once('^') {
        Some(("2", k)) => k
            .parse::<u32>()
            .ok()
            .and_then(|k| 1usize.checked_shl(k))
            .ok_or_else(|| format!("{s:?}: 2^K needs K from 0 to {}", usize::BITS - 1)),
        Some(_) => Err(format!("{s:?}: write a power of two as 2^K")),
        None => parse_count(s),
    }
}
