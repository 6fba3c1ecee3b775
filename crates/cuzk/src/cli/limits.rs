//! Bounds on every size and count the command line takes, checked before
//! any circuit is built or anything sized by them is allocated: a typo such
//! as `--size 1099511627776` must be a clear error at once, not a machine
//! that runs out of memory an hour later.

use std::io::Read;
use std::path::Path;

use cuzk::groth16::{Domain, ParamsSummary};
use cuzk::synth::workloads::Workload;
use cuzk::Error;

/// Most partitions in one job (`prove --batch`, `bench --partitions`). A
/// 32 GiB PoRep has 10, a 32 GiB SnapDeals update 16; each partition holds
/// its witness and public inputs in memory from submission on.
pub const MAX_PARTITIONS: usize = 4096;

/// Most jobs one `bench` (or `filecoin prove --jobs`) submits.
pub const MAX_JOBS: usize = 100_000;

/// Most threads `filecoin prove --clients` starts, each holding a request's
/// circuits while it waits.
#[cfg(feature = "filecoin")]
pub const MAX_CALLERS: usize = 256;

/// Most proofs `verify` reads from one file (192 MiB of proofs).
pub const MAX_PROOFS: u64 = 1 << 20;

/// Largest public-inputs file `verify` reads: [`MAX_PROOFS`] proofs of a
/// few inputs each, 67 bytes per input in the file.
pub const MAX_INPUTS_JSON: u64 = 1 << 30;

/// Smallest and largest memory budgets `--memory-gib` takes: 1 MiB (below
/// that nothing fits, not even a verifying key) to 1 PiB (far beyond any
/// machine, and its byte count still fits a u64).
const MEMORY_GIB: (f64, f64) = (1.0 / 1024.0, 1024.0 * 1024.0);

/// A count in `1..=max`, for clap.
pub fn count(max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    move |s| match s.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} is outside 1..={max}")),
        Err(e) => Err(format!("not a count: {e}")),
    }
}

/// `--synth-workers`: at least one, at most one per core of this machine
/// (more only adds threads that wait for the cores, each with its stack).
pub fn synth_workers(s: &str) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    count(cores)(s).map_err(|e| format!("{e} (this machine has {cores} cores)"))
}

/// `--memory-gib`: a finite number of GiB within [`MEMORY_GIB`], as bytes.
pub fn memory_gib(s: &str) -> Result<u64, String> {
    let gib: f64 = s.trim().parse().map_err(|e| format!("not a number: {e}"))?;
    let (min, max) = MEMORY_GIB;
    if !gib.is_finite() || !(min..=max).contains(&gib) {
        return Err(format!("{s} GiB is outside {min}..={max} GiB"));
    }
    Ok((gib * (1u64 << 30) as f64) as u64)
}

/// `--device-memory-gib`: a card size in GiB, 1 to 1024.
pub fn device_memory_gib(s: &str) -> Result<u64, String> {
    let gib: f64 = s.trim().parse().map_err(|e| format!("not a number: {e}"))?;
    if !gib.is_finite() || !(1.0..=1024.0).contains(&gib) {
        return Err(format!("{s} GiB is outside 1..=1024 GiB"));
    }
    Ok((gib * (1u64 << 30) as f64) as u64)
}

/// The bytes of a regular file of at most `max` bytes, its size checked
/// before it is read: a FIFO would block for ever, /dev/zero would be read
/// until memory runs out.
pub fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path).map_err(Error::io(path))?;
    let refuse = |why: String| Err(Error::io(path)(std::io::Error::new(std::io::ErrorKind::InvalidInput, why)));
    if !meta.is_file() {
        return refuse("not a regular file".into());
    }
    if meta.len() > max {
        return refuse(format!("{} bytes, more than the {max} this file may have", meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    file.take(max + 1).read_to_end(&mut bytes).map_err(Error::io(path))?;
    if bytes.len() as u64 > max {
        return refuse(format!("grew past the {max} bytes this file may have while it was read"));
    }
    Ok(bytes)
}

/// `--size` of a workload: within what the workload builds at all.
pub fn check_size(workload: Workload, size: usize) -> Result<(), Error> {
    if size == 0 || size > workload.max_size() {
        return Err(Error::Usage(format!("--size {size}: {workload} takes 1..={}", workload.max_size())));
    }
    Ok(())
}

/// What the prover needs of a parameter file for `workload` at `size`: the
/// evaluation domain (constraints plus one per public input, the one
/// included) and the public-input count. Computed without synthesis.
fn needs(workload: Workload, size: usize) -> Result<(usize, u64), Error> {
    check_size(workload, size)?;
    let inputs = workload.public_inputs::<blstrs::Scalar>(size, 0)?.len() as u64 + 1;
    let domain = Domain::size_for(workload.expected_constraints(size) + inputs as usize)?;
    Ok((domain, inputs))
}

/// Checks `--size` against the parameter file's header before any circuit
/// is built: a wrong size used to synthesize every partition in full before
/// the prover noticed the mismatch.
pub fn check_params(workload: Workload, size: usize, params: &Path, summary: &ParamsSummary) -> Result<(), Error> {
    let (domain, inputs) = needs(workload, size)?;
    let have_domain = summary.h + 1;
    if have_domain != domain as u64 || summary.ic != inputs {
        return Err(Error::Usage(format!(
            "{workload} size {size} needs a domain of {domain} points and {inputs} public inputs (the one \
             included), but {} holds a domain of {have_domain} and {} inputs: --size or --params is wrong",
            params.display(),
            summary.ic
        )));
    }
    Ok(())
}

/// Bytes `setup` holds for `workload` at `size`, roughly: the parameters
/// (a G1 point for each domain point and for each of L, A and B in G1 per
/// variable, a G2 point for B per variable) and the setup's evaluations.
pub fn setup_bytes(workload: Workload, size: usize) -> Result<u64, Error> {
    let (domain, _) = needs(workload, size)?;
    let vars = workload.expected_constraints(size) as u64;
    Ok(domain as u64 * (96 + 4 * 32) + vars * (3 * 96 + 192))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_budgets_are_bounded() {
        let batch = count(MAX_PARTITIONS);
        assert_eq!(batch("3"), Ok(3));
        assert_eq!(batch("4096"), Ok(4096));
        for bad in ["0", "4097", "1099511627776", "-1", "x", ""] {
            assert!(batch(bad).is_err(), "{bad}");
        }
        assert_eq!(memory_gib("1"), Ok(1 << 30));
        assert_eq!(memory_gib("0.5"), Ok(1 << 29));
        for bad in ["NaN", "nan", "inf", "-inf", "-1", "0", "1e-300", "1e300", "x"] {
            assert!(memory_gib(bad).is_err(), "{bad}");
        }
        assert_eq!(device_memory_gib("48"), Ok(48 << 30));
        for bad in ["NaN", "inf", "0", "0.5", "1025", "x"] {
            assert!(device_memory_gib(bad).is_err(), "{bad}");
        }
        assert_eq!(synth_workers("1"), Ok(1));
        assert!(synth_workers("0").is_err());
        assert!(synth_workers("100000").unwrap_err().contains("cores"));
    }

    #[test]
    fn sizes_beyond_a_workload_are_refused_before_any_arithmetic() {
        for w in Workload::ALL {
            for size in [0, w.max_size() + 1, 1 << 40, 1 << 60, usize::MAX] {
                assert!(matches!(check_size(w, size), Err(Error::Usage(_))), "{w} {size}");
                assert!(setup_bytes(w, size).is_err());
            }
        }
        // The largest sha256 chain's parameters would need terabytes.
        assert!(setup_bytes(Workload::Sha256, Workload::Sha256.max_size()).unwrap() > 1 << 40);
    }
}
