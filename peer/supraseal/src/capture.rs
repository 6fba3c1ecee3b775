//! bellperson 0.27 synthesizes and proves in one call and only *logs* how
//! long each part took: "synthesis time: {:?}" once every circuit of the
//! batch is synthesized, then "prover time: {:?}" from there to the finished
//! proofs (the supraseal call included). This logger keeps the last value of
//! each line; warnings and errors from any crate go to stderr.
//!
//! The binary proves from one thread at a time, so one process-wide slot per
//! line is enough.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use log::{Level, LevelFilter, Log, Metadata, Record};

use crate::debug_duration;
use crate::error::PeerError;

/// bellperson's own account of one batch call.
#[derive(Copy, Clone, Debug)]
pub struct Phases {
    /// Synthesis of every circuit of the batch (in parallel, on rayon).
    pub synthesis: Duration,
    /// From the end of synthesis to the finished proofs: the supraseal call.
    pub prove: Duration,
}

/// Installs the logger once per process.
pub fn install() -> Result<(), PeerError> {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    let ok = *INSTALLED.get_or_init(|| {
        let ok = log::set_logger(&CAPTURE).is_ok();
        if ok {
            log::set_max_level(LevelFilter::Info);
        }
        ok
    });
    ok.then_some(()).ok_or(PeerError::LoggerTaken)
}

/// Forgets the figures of the previous call.
pub fn reset() {
    *slots() = Slots::default();
}

/// The figures bellperson logged since [`reset`].
pub fn take() -> Result<Phases, PeerError> {
    let slots = std::mem::take(&mut *slots());
    match (slots.synthesis, slots.prove) {
        (Some(synthesis), Some(prove)) => Ok(Phases { synthesis, prove }),
        _ => Err(PeerError::TimingsNotLogged),
    }
}

#[derive(Default)]
struct Slots {
    synthesis: Option<Duration>,
    prove: Option<Duration>,
}

fn slots() -> std::sync::MutexGuard<'static, Slots> {
    static SLOTS: Mutex<Slots> = Mutex::new(Slots {
        synthesis: None,
        prove: None,
    });
    // A panic while holding the lock leaves plain data behind; keep using it.
    SLOTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Capture;

static CAPTURE: Capture = Capture;

impl Log for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= Level::Warn
            || (metadata.target().starts_with("bellperson") && metadata.level() <= Level::Info)
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        if record.level() <= Level::Warn {
            eprintln!("{} {}: {}", record.level(), record.target(), record.args());
            return;
        }
        let line = record.args().to_string();
        if let Some(rest) = line.strip_prefix("synthesis time: ") {
            slots().synthesis = debug_duration::parse(rest);
        } else if let Some(rest) = line.strip_prefix("prover time: ") {
            slots().prove = debug_duration::parse(rest);
        }
    }

    fn flush(&self) {}
}
