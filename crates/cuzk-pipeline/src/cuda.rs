use std::sync::{Arc, Mutex, Weak};

use blstrs::Scalar;
use cuzk_gpu::groth16::HostTimings;
use cuzk_gpu::{Device, GpuError, GpuSrs, SrsPlacement};
use cuzk_groth16::Parameters;
use cuzk_synth::ProvingAssignment;

use crate::backend::{ProveBackend, ProveOutput};

/// One GPU as a backend: the Groth16 host function, with each parameter set
/// uploaded to this device once and kept there while the engine holds it.
pub struct CudaBackend {
    device: Device,
    host_timing: bool,
    resident: Mutex<Vec<(Weak<Parameters>, Arc<GpuSrs>)>>,
}

impl CudaBackend {
    /// Opens device `id`. With `host_timing` the host function prints its
    /// `CUZK_TIMING:` line for every call.
    pub fn open(id: i32, host_timing: bool) -> Result<Self, GpuError> {
        Ok(CudaBackend { device: Device::open(id)?, host_timing, resident: Mutex::new(Vec::new()) })
    }

    /// The SRS of `params` on this device, uploading it the first time.
    /// Entries whose parameters the engine has dropped are released here.
    fn srs(&self, params: &Arc<Parameters>) -> Result<Arc<GpuSrs>, GpuError> {
        let mut resident = self.resident.lock().unwrap_or_else(|p| p.into_inner());
        resident.retain(|(weak, _)| weak.strong_count() > 0);
        if let Some((_, srs)) = resident.iter().find(|(w, _)| w.as_ptr() == Arc::as_ptr(params)) {
            return Ok(srs.clone());
        }
        let srs = Arc::new(GpuSrs::upload(&self.device, params, SrsPlacement::Auto)?);
        resident.push((Arc::downgrade(params), srs.clone()));
        Ok(srs)
    }
}

impl ProveBackend for CudaBackend {
    fn name(&self) -> String {
        format!("cuda:{}", self.device.id())
    }

    fn prove(
        &self,
        params: &Arc<Parameters>,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, String> {
        let srs = self.srs(params).map_err(|e| e.to_string())?;
        let (proofs, t) =
            cuzk_gpu::groth16::prove(&self.device, &srs, assignments, randomness, self.host_timing)
                .map_err(|e| e.to_string())?;
        Ok(ProveOutput { proofs, breakdown: breakdown(&t) })
    }

    fn prepare(&self, params: &Arc<Parameters>) -> Result<(), String> {
        self.srs(params).map(|_| ()).map_err(|e| e.to_string())
    }
}

fn breakdown(t: &HostTimings) -> Vec<(String, f64)> {
    cuzk_gpu::groth16::stages(t).into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
