//! `cuzk soak`: the engine run for a given time under a seeded random load
//! (batch sizes, priorities, cancellations), every proof verified twice (the
//! engine's self-check, then here against the parameter file's key), and at
//! the end what an operator needs to trust it for a day: proofs made,
//! invalid proofs returned and jobs lost (both must be 0), cancellations,
//! failures by kind, and the memory curve.

mod memory;
mod tally;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use clap::Args;
use cuzk::groth16::{verify_proof, verify_proofs_batch, PreparedVerifyingKey};
use cuzk::synth::workloads::Workload;
use cuzk::{Error, Job, JobHandle, JobStatus, Priority};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use self::memory::Sampler;
use self::tally::{Outcome, Tally};
use super::jobs::{self, EngineArgs};
use super::limits;
use super::workload::WorkloadArgs;

/// Longest soak one command runs: a week.
const MAX_DURATION_S: usize = 7 * 24 * 3600;

/// How long jobs still in flight at the end may take to end before they
/// count as lost.
const GRACE: Duration = Duration::from_secs(300);

/// Arguments of `cuzk soak`.
#[derive(Args)]
pub struct SoakArgs {
    /// Seconds to keep submitting jobs (jobs in flight then finish).
    #[arg(long, value_parser = limits::count(MAX_DURATION_S))]
    duration: usize,
    /// Circuit family: `sha256` or `mul-chain`.
    #[arg(long, default_value = "mul-chain", value_parser = |s: &str| s.parse::<Workload>().map_err(|e| e.to_string()))]
    circuit: Workload,
    /// N: compressions for sha256, constraints for mul-chain.
    #[arg(long, default_value_t = 1024)]
    size: usize,
    /// Seed of every random choice (batch sizes, priorities, cancellations,
    /// witnesses, the engine's r and s); drawn and printed when not given.
    #[arg(long)]
    seed: Option<u64>,
    /// Most partitions in one job (each job draws 1..=this many).
    #[arg(long, default_value_t = 16, value_parser = limits::count(limits::MAX_PARTITIONS))]
    max_batch: usize,
    /// Jobs kept in flight at once.
    #[arg(long, default_value_t = 4, value_parser = limits::count(1024))]
    in_flight: usize,
    /// Percent of jobs cancelled, each 0 to 50 ms after it was submitted.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u8).range(0..=100))]
    cancel_percent: u8,
    /// Where parameters are made once and cached.
    #[arg(long, default_value = "target/cuzk-soak")]
    params_dir: PathBuf,
    #[command(flatten)]
    engine: EngineArgs,
}

/// A job in flight and what the soak knows of it.
struct Flight {
    handle: JobHandle,
    inputs: Vec<Vec<Scalar>>,
    cancel_at: Option<Instant>,
    cancelled: bool,
}

/// Runs the soak; fails (exit code 1) when any invalid proof came back or
/// any job was lost.
pub fn run(a: &SoakArgs) -> Result<ExitCode, Error> {
    limits::check_size(a.circuit, a.size)?;
    let params = a.params_dir.join(format!("{}-{}.params", a.circuit, a.size));
    if !params.exists() {
        std::fs::create_dir_all(&a.params_dir).map_err(Error::io(&a.params_dir))?;
        eprintln!("soak: making parameters {} (cached for later runs)", params.display());
        super::setup::run(&WorkloadArgs { circuit: a.circuit, size: a.size }, &params)?;
    }
    limits::check_params(a.circuit, a.size, &params, &jobs::inspect(&params)?)?;
    let seed = a.seed.unwrap_or_else(rand::random);
    let mut rng = StdRng::seed_from_u64(seed);
    let pvk = jobs::pvk(&params)?;
    let mut config = jobs::config(&a.engine, &params)?;
    config.self_check = true;
    config.rng_seed = Some(rng.gen());
    let engine = jobs::start(&a.engine, config)?;
    let load_s = engine.preload(&params)? / 1e3;
    eprintln!(
        "soak: {} s of {} size {} (seed {seed}), batches 1..={}, {} jobs in flight, {}% cancelled; params ready in {load_s:.2} s",
        a.duration, a.circuit, a.size, a.max_batch, a.in_flight, a.cancel_percent
    );

    let mut sampler = Sampler::new(engine.backends());
    let mut tally = Tally::default();
    let start = Instant::now();
    let stop_submitting = start + Duration::from_secs(a.duration as u64);
    let mut flights: VecDeque<Flight> = VecDeque::new();
    loop {
        let now = Instant::now();
        while now < stop_submitting && flights.len() < a.in_flight {
            flights.push_back(submit(&engine, &params, a, &mut rng)?);
            tally.submitted += 1;
        }
        poll(&mut flights, &pvk, &mut tally);
        sampler.sample(start);
        if flights.is_empty() && now >= stop_submitting {
            break;
        }
        if now >= stop_submitting + GRACE {
            tally.lost += flights.len();
            eprintln!("soak: {} jobs never ended, {} s after the last was submitted", flights.len(), GRACE.as_secs());
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let wall_s = start.elapsed().as_secs_f64();
    jobs::report_recordings(&engine);
    let summary = tally.summary(seed, a.circuit, a.size, &engine.backends().join(","), wall_s, &sampler);
    println!("{}", tally.line(wall_s, &sampler));
    println!("{summary}");
    // The engine is dropped with the jobs lost in it; a lost job must not
    // hang the exit.
    drop(flights);
    Ok(if tally.passed() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Submits one job: a random batch size and priority, fresh witnesses, and
/// whether (and when) it is to be cancelled, all from the soak's seed.
fn submit(engine: &cuzk::Engine, params: &std::path::Path, a: &SoakArgs, rng: &mut StdRng) -> Result<Flight, Error> {
    let batch = rng.gen_range(1..=a.max_batch);
    let priority = [Priority::Low, Priority::Normal, Priority::High, Priority::Critical][rng.gen_range(0..4)];
    let mut job = Job::new(params).priority(priority);
    let mut inputs = Vec::with_capacity(batch);
    for _ in 0..batch {
        let circuit = a.circuit.circuit::<Scalar>(a.size, rng.gen())?;
        inputs.push(circuit.public_inputs());
        job = job.partition(circuit);
    }
    let cancel = rng.gen_range(0..100) < a.cancel_percent;
    let delay = Duration::from_millis(rng.gen_range(0..=50));
    let handle = engine.submit(job)?;
    Ok(Flight { handle, inputs, cancel_at: cancel.then(|| Instant::now() + delay), cancelled: false })
}

/// Cancels the jobs whose time has come and collects those that ended.
fn poll(flights: &mut VecDeque<Flight>, pvk: &PreparedVerifyingKey, tally: &mut Tally) {
    let now = Instant::now();
    let mut i = 0;
    while i < flights.len() {
        let f = &mut flights[i];
        if !f.cancelled && f.cancel_at.is_some_and(|t| now >= t) {
            f.handle.cancel();
            f.cancelled = true;
            tally.cancels_asked += 1;
        }
        if f.handle.status() != JobStatus::Finished {
            i += 1;
            continue;
        }
        let Some(f) = flights.remove(i) else { break };
        let outcome = match f.handle.wait() {
            Ok(result) => Outcome::Proved { invalid: invalid_proofs(pvk, &result.proofs, &f.inputs), proofs: result.proofs.len() },
            Err(e) => Outcome::Failed(e),
        };
        tally.add(outcome, f.cancelled);
    }
}

/// Proofs of a job that do not verify against their inputs, checked here
/// independently of the engine's self-check: a batch check, then one by one
/// when the batch fails. A missing or extra proof counts as invalid. The
/// batch's weights come from fresh entropy, not the soak's seed, whose
/// draws must not depend on the order jobs end in.
fn invalid_proofs(pvk: &PreparedVerifyingKey, proofs: &[cuzk::groth16::Proof], inputs: &[Vec<Scalar>]) -> usize {
    let missing = inputs.len().abs_diff(proofs.len());
    if missing == 0 && verify_proofs_batch(pvk, &mut rand::thread_rng(), proofs, inputs).unwrap_or(false) {
        return 0;
    }
    let bad = proofs.iter().zip(inputs).filter(|(p, x)| !verify_proof(pvk, p, x).unwrap_or(false)).count();
    bad + missing
}
