use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::cpu::CpuBackend;
use super::cuda::{CudaBackend, MemoryCap};
use super::ProveBackend;

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
/// error saying why it is unavailable, never a silent fallback; `Auto` falls
/// back to the CPU and says why.
pub(crate) fn select(
    choice: BackendChoice,
    host_timing: bool,
    cap: Option<MemoryCap>,
) -> Result<(Vec<Arc<dyn ProveBackend>>, String), String> {
    let cpu = || -> Vec<Arc<dyn ProveBackend>> { vec![Arc::new(CpuBackend::new())] };
    let gpus = |ids: Vec<i32>| -> Result<Vec<Arc<dyn ProveBackend>>, String> {
        ids.into_iter()
            .map(|id| {
                CudaBackend::open(id, host_timing, cap)
                    .map(|b| Arc::new(b) as Arc<dyn ProveBackend>)
                    .map_err(|e| format!("cuda:{id}: {e}"))
            })
            .collect()
    };
    let visible = cuzk_gpu::devices().map(|d| d.iter().map(|i| i.id).collect::<Vec<i32>>());
    match (choice, visible) {
        (BackendChoice::Cpu, _) => Ok((cpu(), "asked for".into())),
        (BackendChoice::Auto, Ok(ids)) if !ids.is_empty() => Ok((gpus(ids)?, "GPU present".into())),
        (BackendChoice::Auto, Ok(_)) => Ok((cpu(), "no CUDA device found".into())),
        (BackendChoice::Auto, Err(e)) => Ok((cpu(), e.to_string())),
        (BackendChoice::Cuda(_), Err(e)) => Err(e.to_string()),
        (BackendChoice::Cuda(None), Ok(ids)) if ids.is_empty() => Err("no CUDA device found".into()),
        (BackendChoice::Cuda(None), Ok(ids)) => Ok((gpus(ids)?, "asked for".into())),
        (BackendChoice::Cuda(Some(id)), Ok(ids)) => {
            if ids.contains(&(id as i32)) {
                Ok((gpus(vec![id as i32])?, "asked for".into()))
            } else {
                Err(format!("CUDA device {id} not found ({} visible)", ids.len()))
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
        let (backends, why) = select(BackendChoice::Auto, false, None).unwrap();
        assert!(!why.is_empty());
        match cuzk_gpu::devices() {
            Ok(ids) if !ids.is_empty() => {
                assert_eq!(backends[0].name(), "cuda:0");
                let absent = select(BackendChoice::Cuda(Some(999)), false, None).map(|_| ()).unwrap_err();
                assert!(absent.contains("999 not found"), "{absent}");
            }
            _ => {
                assert_eq!(backends[0].name(), "cpu");
                assert!(select(BackendChoice::Cuda(Some(0)), false, None).is_err());
            }
        }
    }
}
