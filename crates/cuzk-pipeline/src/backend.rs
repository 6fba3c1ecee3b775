use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use blstrs::Scalar;
use cuzk_groth16::{Parameters, Proof};
use cuzk_synth::{ProvingAssignment, RecordedShape, Witness};

use crate::cuda::CudaBackend;
use crate::EngineError;

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
        params: &Arc<Parameters>,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String>;

    /// Whether the backend computes a, b, c itself from a recorded shape and
    /// a witness ([`ProveBackend::prove_witnesses`]). When every backend of
    /// an engine does, recorded synthesis stops at the witness.
    fn takes_witnesses(&self) -> bool {
        false
    }

    /// Proves witnesses of one recorded shape. By default the products are
    /// evaluated on the CPU (every row checked; the engine calls this only
    /// when [`ProveBackend::takes_witnesses`] says so, so the default's
    /// copies of the witnesses cost nothing in practice) and proved by
    /// [`ProveBackend::prove`]; the CUDA backend computes them on its device.
    fn prove_witnesses(
        &self,
        params: &Arc<Parameters>,
        shape: &Arc<RecordedShape<Scalar>>,
        witnesses: &[Witness<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        let assignments = witnesses
            .iter()
            .map(|w| shape.evaluate(w.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        self.prove(params, &assignments, randomness)
    }

    /// Makes `params` ready to prove with, once, when the engine loads them
    /// (a GPU uploads its SRS here), so that the cost lands in the jobs'
    /// `srs_ms` instead of inside their first prove call.
    fn prepare(&self, _params: &Arc<Parameters>) -> Result<(), String> {
        Ok(())
    }

    /// Waits for work `prepare` left running in the background for `params`
    /// (a GPU builds MSM tables for its SRS while proofs already run), for
    /// callers that want the steady state before they start timing.
    fn settle(&self, _params: &Arc<Parameters>) {}

    /// Whether this backend proves with `params` without their host bases
    /// (a GPU holding them in device memory). When every backend of an
    /// engine does, the engine keeps only the key and the counts in host
    /// memory, and tells the backends through [`ProveBackend::adopt_slim`].
    fn holds_bases(&self, _params: &Arc<Parameters>) -> bool {
        false
    }

    /// From now on `slim` (the same parameters without their bases) stands
    /// for `full` in every call: state kept per parameter set moves over.
    fn adopt_slim(&self, _full: &Arc<Parameters>, _slim: &Arc<Parameters>) {}

    /// Makes a recorded shape ready to prove witnesses of, once, when the
    /// engine's recording of it is ready (a GPU uploads its matrices here),
    /// so that the upload is not inside the first prove call.
    fn prepare_shape(&self, _shape: &Arc<RecordedShape<Scalar>>) -> Result<(), String> {
        Ok(())
    }
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
        params: &Arc<Parameters>,
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
/// error, never a silent fallback; `Auto` falls back to the CPU and says why.
pub fn select(
    choice: BackendChoice,
    host_timing: bool,
) -> Result<(Vec<Arc<dyn ProveBackend>>, String), EngineError> {
    let cpu = || -> Vec<Arc<dyn ProveBackend>> { vec![Arc::new(CpuBackend::new())] };
    let gpus = |ids: Vec<i32>| -> Result<Vec<Arc<dyn ProveBackend>>, EngineError> {
        ids.into_iter()
            .map(|id| {
                CudaBackend::open(id, host_timing)
                    .map(|b| Arc::new(b) as Arc<dyn ProveBackend>)
                    .map_err(|e| EngineError::BackendUnavailable(e.to_string()))
            })
            .collect()
    };
    let visible = cuzk_gpu::devices().map(|d| d.iter().map(|i| i.id).collect::<Vec<i32>>());
    match (choice, visible) {
        (BackendChoice::Cpu, _) => Ok((cpu(), "asked for".into())),
        (BackendChoice::Auto, Ok(ids)) if !ids.is_empty() => Ok((gpus(ids)?, "GPU present".into())),
        (BackendChoice::Auto, Ok(_)) => Ok((cpu(), "no CUDA device found".into())),
        (BackendChoice::Auto, Err(e)) => Ok((cpu(), e.to_string())),
        (BackendChoice::Cuda(_), Err(e)) => Err(EngineError::BackendUnavailable(e.to_string())),
        (BackendChoice::Cuda(None), Ok(ids)) if ids.is_empty() => {
            Err(EngineError::BackendUnavailable("no CUDA device found".into()))
        }
        (BackendChoice::Cuda(None), Ok(ids)) => Ok((gpus(ids)?, "asked for".into())),
        (BackendChoice::Cuda(Some(id)), Ok(ids)) => {
            if ids.contains(&(id as i32)) {
                Ok((gpus(vec![id as i32])?, "asked for".into()))
            } else {
                Err(EngineError::BackendUnavailable(format!(
                    "CUDA device {id} not found ({} visible)",
                    ids.len()
                )))
            }
        }
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
        let (backends, why) = select(BackendChoice::Auto, false).unwrap();
        assert!(!why.is_empty());
        match cuzk_gpu::devices() {
            Ok(ids) if !ids.is_empty() => {
                assert_eq!(backends[0].name(), "cuda:0");
                assert!(matches!(
                    select(BackendChoice::Cuda(Some(999)), false),
                    Err(EngineError::BackendUnavailable(_))
                ));
            }
            _ => {
                assert_eq!(backends[0].name(), "cpu");
                assert!(matches!(
                    select(BackendChoice::Cuda(Some(0)), false),
                    Err(EngineError::BackendUnavailable(_))
                ));
            }
        }
    }
}
