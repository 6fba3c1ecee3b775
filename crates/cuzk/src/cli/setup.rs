//! `cuzk setup`: random parameters for a built-in workload.

use std::path::Path;
use std::time::Instant;

use cuzk::Error;

use super::limits;
use super::output::Output;
use super::progress::Progress;
use super::workload::WorkloadArgs;

/// Generates parameters and writes them to `out` (through a temporary file
/// of this run's own, so an interrupted setup never leaves a truncated file
/// under the final name and two setups never write through one file).
pub fn run(w: &WorkloadArgs, out: &Path) -> Result<(), Error> {
    let needed = limits::setup_bytes(w.circuit, w.size)?;
    let budget = cuzk::Config::default().memory_budget;
    if needed > budget {
        return Err(Error::Usage(format!(
            "{} size {} needs about {:.1} GiB for its setup, more than three quarters of this machine's memory ({:.1} GiB)",
            w.circuit,
            w.size,
            needed as f64 / (1u64 << 30) as f64,
            budget as f64 / (1u64 << 30) as f64
        )));
    }
    let mut file = Output::create(out, &[])?;
    let start = Instant::now();
    let progress = Progress::new("setup");
    let circuit = w.circuit.circuit::<blstrs::Scalar>(w.size, 0)?;
    let mut rng = rand::thread_rng();
    let params = cuzk::groth16::generate_random_parameters(
        circuit,
        &mut rng,
        Some(&|phase: &str, done: u64, total: u64| progress.update(phase, done, total)),
    )?;
    params.write(file.writer())?;
    file.commit()?;
    eprintln!(
        "setup: {} size {} ({} constraints) -> {} in {:.1} s",
        w.circuit,
        w.size,
        w.circuit.expected_constraints(w.size),
        out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
