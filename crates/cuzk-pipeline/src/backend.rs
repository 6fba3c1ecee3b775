use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use blstrs::Scalar;
use cuzk_groth16::{Parameters, Proof};
use cuzk_synth::ProvingAssignment;

/// What a backend returns for one call: the proofs in order, and its own
/// per-stage breakdown (stage name, milliseconds) for the timing report.
#[derive(Clone, Debug, Default)]
pub struct ProveOutput {
    /// One proof per assignment.
    pub proofs: Vec<Proof>,
    /// Stage timings inside the call, in the order the stages ran.
    pub breakdown: Vec<(String, f64)>,
}

/// Something that turns synthesized circuits into proofs: the CPU prover, or
/// one GPU. Each instance is one "device" to the scheduler.
pub trait ProveBackend: Send + Sync {
    /// How the backend is reported: `cpu`, `cpu:1`, `cuda:0`.
    fn name(&self) -> String;

    /// Proves a batch of assignments against `params` with the given `(r, s)`
    /// per proof. Errors are messages; the engine wraps them with the name.
    fn prove(
        &self,
        params: &Parameters,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String>;
}

/// The CPU prover (rayon NTTs and multi-exponentiations) as a backend.
#[derive(Clone, Debug, Default)]
pub struct CpuBackend {
    name: String,
}

impl CpuBackend {
    /// The CPU backend, reported as `cpu`.
    pub fn new() -> Self {
        CpuBackend { name: "cpu".into() }
    }

    /// One of several simulated CPU "devices" (for scheduling tests), `cpu:i`.
    pub fn simulated(i: usize) -> Self {
        CpuBackend { name: format!("cpu:{i}") }
    }
}

impl ProveBackend for CpuBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn prove(
        &self,
        params: &Parameters,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        let (proofs, t) = cuzk_groth16::prove_timed(params, assignments, randomness)
            .map_err(|e| e.to_string())?;
        let breakdown = vec![
            ("ntt_ms".to_string(), t.ntt_ms),
            ("msm_h_ms".to_string(), t.msm_h_ms),
            ("msm_l_ms".to_string(), t.msm_l_ms),
            ("msm_ab_ms".to_string(), t.msm_ab_ms),
            ("epilogue_ms".to_string(), t.epilogue_ms),
        ];
        Ok(ProveOutput { proofs, breakdown })
    }
}

/// Which backend the user asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The GPU when this build has the GPU prover and a device is present, else the CPU.
    #[default]
    Auto,
    /// The CPU prover.
    Cpu,
    /// A GPU: one device, or every visible device when `None`.
    Cuda(Option<u32>),
}

impl FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "cpu" => Ok(BackendChoice::Cpu),
            "cuda" | "gpu" => Ok(BackendChoice::Cuda(None)),
            _ => s
                .strip_prefix("cuda:")
                .and_then(|id| id.parse().ok())
                .map(|id| BackendChoice::Cuda(Some(id)))
                .ok_or_else(|| format!("unknown backend `{s}` (auto, cpu, cuda, cuda:N)")),
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendChoice::Auto => f.write_str("auto"),
            BackendChoice::Cpu => f.write_str("cpu"),
            BackendChoice::Cuda(None) => f.write_str("cuda"),
            BackendChoice::Cuda(Some(id)) => write!(f, "cuda:{id}"),
        }
    }
}

/// The backends a choice resolves to on this machine, and why (for the log
/// line that makes the choice visible). Asking for a GPU that is absent is an
/// error, never a silent fallback.
pub fn select(choice: BackendChoice) -> Result<(Vec<Arc<dyn ProveBackend>>, String), crate::EngineError> {
    let gpu = crate::backend::gpu_status();
    match (choice, gpu) {
        (BackendChoice::Cpu, _) => Ok((vec![Arc::new(CpuBackend::new())], "asked for".into())),
        (BackendChoice::Auto, Err(why)) => {
            Ok((vec![Arc::new(CpuBackend::new())], format!("no usable GPU: {why}")))
        }
        (BackendChoice::Cuda(_), Err(why)) => Err(crate::EngineError::BackendUnavailable(why)),
        (_, Ok(never)) => match never {},
    }
}

/// Whether this build can prove on a GPU here. The GPU Groth16 host function
/// is not part of this build yet, so the answer is always the reason why not.
fn gpu_status() -> Result<std::convert::Infallible, String> {
    match cuzk_gpu::devices() {
        Ok(devs) if devs.is_empty() => Err("no CUDA device found".into()),
        Ok(devs) => Err(format!(
            "{} CUDA device(s) found, but this build has no GPU Groth16 prover yet",
            devs.len()
        )),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_and_print_back() {
        for s in ["auto", "cpu", "cuda", "cuda:3"] {
            assert_eq!(s.parse::<BackendChoice>().unwrap().to_string(), s);
        }
        assert!("cuda:x".parse::<BackendChoice>().is_err());
        assert!("tpu".parse::<BackendChoice>().is_err());
    }

    #[test]
    fn auto_is_visible_and_an_absent_gpu_is_an_error() {
        let (backends, why) = select(BackendChoice::Auto).unwrap();
        assert_eq!(backends[0].name(), "cpu");
        assert!(!why.is_empty());
        assert!(matches!(
            select(BackendChoice::Cuda(Some(0))),
            Err(crate::EngineError::BackendUnavailable(_))
        ));
    }
}
