//! The built-in workloads as command-line arguments.

use clap::Args;
use cuzk::synth::workloads::Workload;

/// `--circuit` and `--size`.
#[derive(Args, Clone, Debug)]
pub struct WorkloadArgs {
    /// Circuit family: `sha256` (N chained compressions) or `mul-chain` (N dense constraints).
    #[arg(long, value_parser = parse_workload)]
    pub circuit: Workload,
    /// N: compressions for sha256, constraints for mul-chain.
    #[arg(long)]
    pub size: usize,
}

fn parse_workload(s: &str) -> Result<Workload, String> {
    s.parse().map_err(|e| format!("{e}"))
}
