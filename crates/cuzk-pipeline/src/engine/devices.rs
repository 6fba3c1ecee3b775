//! Each device's standing: the job it proves now, how long it has been busy,
//! and its failures. A call that fails through the device (a CUDA or host
//! error, out of memory, a proof that fails the self-check) is retried once,
//! on another device when there is one in service; a device whose calls keep
//! failing is taken out of service, its prove threads stop taking work, and
//! [`Engine::devices`](super::Engine::devices) says why.
//!
//! Only faults that cannot come from the work itself count against a device:
//! a witness that fails a constraint is the job's fault, and a proof that
//! fails the self-check counts only once another device has proved the same
//! partitions (a client sending bad witnesses must not be able to retire a
//! healthy GPU).

use crate::backends::BackendError;
use crate::job::JobId;
use cuzk_gpu::GpuError;

/// Consecutive counted faults that take a device out of service.
pub(super) const FAULTS_TO_RETIRE: u32 = 3;

/// What a device's failed call means for its partitions and for the device.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// The work's own fault (a witness that fails a constraint, parameters
    /// that do not fit): the job fails, the device is not blamed.
    Work,
    /// The device's: retried once, and counted against the device.
    Device,
    /// Maybe the device's (out of memory under load, a proof that fails the
    /// self-check): retried once; counted only when another device proves
    /// the same partitions.
    Suspect,
}

impl Fault {
    pub(super) fn of(e: &BackendError) -> Fault {
        match e {
            BackendError::Gpu(GpuError::Cuda { .. } | GpuError::Host(_) | GpuError::NoGpu(_) | GpuError::NoDevice { .. }) => {
                Fault::Device
            }
            BackendError::Gpu(GpuError::OutOfMemory { .. })
            | BackendError::SelfCheck { .. }
            | BackendError::SelfCheckFailed { .. } => Fault::Suspect,
            BackendError::Gpu(_) | BackendError::Groth16(_) | BackendError::Synthesis(_) => Fault::Work,
        }
    }
}

/// A device's standing, under the engine's lock.
#[derive(Clone, Debug, Default)]
pub(super) struct DeviceState {
    pub(super) current_job: Option<JobId>,
    pub(super) busy_ms: f64,
    pub(super) calls: u64,
    pub(super) faults: u64,
    consecutive: u32,
    pub(super) retired: Option<String>,
}

impl DeviceState {
    /// A call that proved.
    pub(super) fn succeeded(&mut self) {
        self.consecutive = 0;
    }

    /// A fault counted against the device; true when it takes the device out
    /// of service (it was in service before).
    pub(super) fn blame(&mut self, name: &str, why: &str) -> bool {
        self.faults += 1;
        self.consecutive += 1;
        if self.retired.is_none() && self.consecutive >= FAULTS_TO_RETIRE {
            self.retired = Some(format!("{} consecutive failed calls, the last: {why}", self.consecutive));
            tracing::error!(device = name, reason = why, "device taken out of service");
            return true;
        }
        false
    }
}

/// A device as [`Engine::devices`](super::Engine::devices) reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceStatus {
    /// The engine's name of it: `cuda:0`, `cpu`.
    pub name: String,
    /// The job whose partitions it proves now.
    pub current_job: Option<JobId>,
    /// Milliseconds spent in prove calls since the engine started.
    pub busy_ms: f64,
    /// Prove calls made.
    pub calls: u64,
    /// Failed calls counted against the device.
    pub faults: u64,
    /// Why it was taken out of service; `None` while in service.
    pub out_of_service: Option<String>,
    /// Its memory (total, free bytes) as the device reports it now; `None`
    /// for the CPU backend.
    pub memory: Option<(u64, u64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::SynthesisError;

    #[test]
    fn witness_faults_never_count_against_a_device() {
        let cuda = BackendError::from(GpuError::Cuda { code: 700, message: "illegal address".into() });
        let oom = BackendError::from(GpuError::OutOfMemory { requested: 1, free: 0 });
        let row = BackendError::from(GpuError::UnsatisfiedConstraint { row: 3 });
        let cpu_row = BackendError::from(SynthesisError::UnsatisfiedConstraint(3));
        let checked = BackendError::SelfCheck { index: 0 };
        let kinds: Vec<Fault> = [&cuda, &oom, &row, &cpu_row, &checked].into_iter().map(Fault::of).collect();
        assert_eq!(kinds, [Fault::Device, Fault::Suspect, Fault::Work, Fault::Work, Fault::Suspect]);
    }

    #[test]
    fn a_device_retires_after_consecutive_faults_only() {
        let mut d = DeviceState::default();
        assert!(!d.blame("cuda:0", "a") && !d.blame("cuda:0", "b"));
        d.succeeded();
        assert!(!d.blame("cuda:0", "c") && !d.blame("cuda:0", "d"));
        assert!(d.blame("cuda:0", "e"), "the third in a row retires it");
        assert!(!d.blame("cuda:0", "f"), "it is retired once");
        assert_eq!(d.faults, 6);
        assert!(d.retired.as_deref().unwrap().contains("the last: e"));
    }
}
