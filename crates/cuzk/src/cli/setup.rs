//! `cuzk setup`: random parameters for a built-in workload.

use std::path::Path;
use std::time::Instant;

use cuzk::Error;

use super::progress::Progress;
use super::workload::WorkloadArgs;

/// Generates parameters and writes them to `out` (via a temporary file, so an
/// interrupted setup never leaves a truncated file under the final name).
pub fn run(w: &WorkloadArgs, out: &Path) -> Result<(), Error> {
    let start = Instant::now();
    let progress = Progress::new("setup");
    let circuit = w.circuit.circuit::<blstrs::Scalar>(w.size, 0)?;
    let mut rng = rand::thread_rng();
    let params = cuzk::groth16::generate_random_parameters(
        circuit,
        &mut rng,
        Some(&|phase: &str, done: u64, total: u64| progress.update(phase, done, total)),
    )?;
    let tmp = out.with_extension("params.partial");
    let file = std::fs::File::create(&tmp).map_err(Error::io(&tmp))?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 22, file);
    params.write(&mut writer)?;
    std::io::Write::flush(&mut writer).map_err(Error::io(&tmp))?;
    drop(writer);
    std::fs::rename(&tmp, out).map_err(Error::io(out))?;
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
