//! bellperson 0.27 has no public entry point for synthesis alone: its prover
//! synthesizes and proves in one call and only *logs* how long each part took
//! ("synthesis time: {:?}", then "prover time: {:?}" measured from the end of
//! synthesis to the finished proofs), both on the calling thread. This module
//! captures those lines with a `log` logger that keeps them per thread, so
//! concurrent callers (tests) never see each other's figures.

use std::cell::Cell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use log::{LevelFilter, Log, Metadata, Record};
use rand::RngCore;

use crate::debug_duration;
use crate::error::BenchError;
use crate::fixture::{BellParams, BellProof};

/// bellperson's own account of one proof.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PeerTimings {
    /// Synthesis, as bellperson logged it.
    pub synthesis: Duration,
    /// Everything after synthesis up to the finished proof, as bellperson logged it.
    pub prove: Duration,
    /// The whole `create_random_proof` call, timed by us.
    pub total: Duration,
}

/// Proves `circuit` with bellperson's CPU prover and returns its logged timings.
pub fn prove<C, R>(
    circuit: C,
    params: &BellParams,
    rng: &mut R,
) -> Result<(BellProof, PeerTimings), BenchError>
where
    C: bellpepper_core::Circuit<Scalar> + Send,
    R: RngCore,
{
    install()?;
    SYNTHESIS.with(|c| c.set(None));
    PROVE.with(|c| c.set(None));
    let start = Instant::now();
    let proof = bellperson::groth16::create_random_proof(circuit, params, rng)?;
    let total = start.elapsed();
    match (SYNTHESIS.with(Cell::take), PROVE.with(Cell::take)) {
        (Some(synthesis), Some(prove)) => Ok((
            proof,
            PeerTimings {
                synthesis,
                prove,
                total,
            },
        )),
        _ => Err(BenchError::TimingsNotLogged),
    }
}

thread_local! {
    static SYNTHESIS: Cell<Option<Duration>> = const { Cell::new(None) };
    static PROVE: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Keeps bellperson's two timing lines and drops every other record.
struct Capture;

static CAPTURE: Capture = Capture;

impl Log for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target().starts_with("bellperson") && metadata.level() <= log::Level::Info
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = record.args().to_string();
        let slot = if let Some(rest) = line.strip_prefix("synthesis time: ") {
            Some((&SYNTHESIS, rest))
        } else {
            line.strip_prefix("prover time: ")
                .map(|rest| (&PROVE, rest))
        };
        if let Some((slot, rest)) = slot {
            let duration = debug_duration::parse(rest);
            slot.with(|c| c.set(duration));
        }
    }

    fn flush(&self) {}
}

/// Installs the capturing logger once per process.
fn install() -> Result<(), BenchError> {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    let ok = *INSTALLED.get_or_init(|| {
        let ok = log::set_logger(&CAPTURE).is_ok();
        if ok {
            log::set_max_level(LevelFilter::Info);
        }
        ok
    });
    if ok {
        Ok(())
    } else {
        Err(BenchError::LoggerTaken)
    }
}
