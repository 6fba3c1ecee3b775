use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use blstrs::Scalar;
use cuzk_gpu::groth16::HostTimings;
use cuzk_gpu::placement::WorkingSet;
use cuzk_gpu::{Device, DeviceShape, GpuError, GpuSrs, Placement, QuerySet, QuotientLayout, SrsPlacement, SrsSizes};
use cuzk_groth16::Parameters;
use cuzk_synth::{ProvingAssignment, RecordedShape, Witness};

use super::{BackendError, ProveBackend, ProveOutput};

/// One GPU as a backend: the Groth16 host function, with each parameter set
/// and each recorded shape uploaded to this device once and kept there while
/// the engine holds it; witnesses of a recorded shape get their a, b, c
/// computed on the device.
pub struct CudaBackend {
    device: Device,
    host_timing: bool,
    resident: Cache<Parameters, GpuSrs>,
    shapes: Cache<RecordedShape<Scalar>, DeviceShape>,
}

/// Device copies of host values, found by the host value's address; the
/// weak reference tells when the engine has dropped the host value.
type Cache<K, V> = Mutex<Vec<(Weak<K>, Arc<V>)>>;

/// The entry of `key` in a cache of device copies, made by `upload` the
/// first time; entries whose host value is gone are released first.
fn cached<K, V, E>(cache: &Cache<K, V>, key: &Arc<K>, upload: impl FnOnce() -> Result<V, E>) -> Result<Arc<V>, E> {
    let mut entries = cache.lock().unwrap_or_else(|p| p.into_inner());
    entries.retain(|(weak, _)| weak.strong_count() > 0);
    if let Some((_, v)) = entries.iter().find(|(w, _)| w.as_ptr() == Arc::as_ptr(key)) {
        return Ok(v.clone());
    }
    let v = Arc::new(upload()?);
    entries.push((Arc::downgrade(key), v.clone()));
    Ok(v)
}

impl CudaBackend {
    /// Opens device `id`. With `host_timing` the host function prints its
    /// `CUZK_TIMING:` line for every call. With a memory cap the device
    /// reads as a card of that many bytes (cuzk_gpu::cap_device_memory).
    pub fn open(id: i32, host_timing: bool, cap: Option<MemoryCap>) -> Result<Self, GpuError> {
        if let Some(cap) = cap {
            cuzk_gpu::cap_device_memory(id, Some(cap.bytes), cap.enforce)?;
        }
        Ok(CudaBackend {
            device: Device::open(id)?,
            host_timing,
            resident: Mutex::new(Vec::new()),
            shapes: Mutex::new(Vec::new()),
        })
    }

    /// The SRS of `params` on this device, uploading it the first time,
    /// placed so that a call over it and a call over any SRS already here
    /// each find their working set free (placement.rs). The plan goes to
    /// the log. Entries whose parameters the engine has dropped are
    /// released here.
    fn srs(&self, params: &Arc<Parameters>) -> Result<Arc<GpuSrs>, GpuError> {
        let others = {
            let entries = self.resident.lock().unwrap_or_else(|p| p.into_inner());
            entries
                .iter()
                .filter(|(w, _)| w.strong_count() > 0)
                .map(|(_, srs)| srs.placement().working_set.total())
                .max()
                .unwrap_or(0)
        };
        cached(&self.resident, params, || {
            // This SRS's own working set, at its least (the spilled layout's,
            // the shape in host memory): what the others need beyond it
            // stays free.
            let sizes = SrsSizes::of(params);
            let total = self.device.info().total_mem;
            let own = WorkingSet::of(&sizes, total, QuerySet::NONE, QuotientLayout::Spilled).with_shape_on_host().total();
            let srs = GpuSrs::upload_beside(&self.device, params, SrsPlacement::Auto, others.saturating_sub(own))?;
            tracing::info!(
                device = %self.name(),
                placement = %srs.placement(),
                h2d_peak_gbps = srs.h2d_peak_gbps().map(|r| format!("{r:.1}")).unwrap_or_default(),
                "SRS placed"
            );
            Ok(srs)
        })
    }

    /// The SRS already uploaded for `params`, if any (no upload).
    fn uploaded(&self, params: &Arc<Parameters>) -> Option<Arc<GpuSrs>> {
        let entries = self.resident.lock().unwrap_or_else(|p| p.into_inner());
        entries.iter().find(|(w, _)| w.as_ptr() == Arc::as_ptr(params)).map(|(_, srs)| Arc::clone(srs))
    }

    /// The recorded shape on this device, placed the first time (or again
    /// when its place changed): left in host memory (mapped) when `on_host`,
    /// else uploaded; and the milliseconds that took (0 when it was
    /// placed already). Entries whose recording only mapped shapes still
    /// hold are released first.
    fn shape(&self, shape: &Arc<RecordedShape<Scalar>>, on_host: bool) -> Result<(Arc<DeviceShape>, f64), GpuError> {
        let mut entries = self.shapes.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(weak, _)| !DeviceShape::only_mapped(weak));
        if let Some(i) = entries.iter().position(|(w, _)| w.as_ptr() == Arc::as_ptr(shape)) {
            if entries[i].1.is_mapped() == on_host {
                return Ok((Arc::clone(&entries[i].1), 0.0));
            }
            // Its memory goes before the other placement takes more.
            entries.swap_remove(i);
        }
        let start = Instant::now();
        let placed = if on_host {
            DeviceShape::map(&self.device, Arc::clone(shape))?
        } else {
            DeviceShape::upload(&self.device, shape)?
        };
        let placed = Arc::new(placed);
        entries.push((Arc::downgrade(shape), Arc::clone(&placed)));
        Ok((placed, start.elapsed().as_secs_f64() * 1e3))
    }

    /// Whether a shape prepared before its proof should stay in host
    /// memory: as the plan of any SRS placed here says (a card small
    /// enough for that holds one at a time).
    fn shapes_on_host(&self) -> bool {
        let entries = self.resident.lock().unwrap_or_else(|p| p.into_inner());
        entries.iter().any(|(w, srs)| w.strong_count() > 0 && srs.placement().shape_on_host)
    }
}

/// A cap on the device memory a backend plans with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryCap {
    /// The card size to behave as, in bytes.
    pub bytes: u64,
    /// Also take the memory above the cap, so that exceeding it fails.
    pub enforce: bool,
}

impl ProveBackend for CudaBackend {
    fn name(&self) -> String {
        format!("cuda:{}", self.device.id())
    }

    fn memory(&self) -> Option<(u64, u64)> {
        // Read afresh: the handle's own figures are those of when it opened.
        let now = Device::open(self.device.id()).ok()?;
        Some((now.info().total_mem, now.info().free_mem))
    }

    fn prove(
        &self,
        params: &Arc<Parameters>,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        let srs = self.srs(params)?;
        let (proofs, t) = cuzk_gpu::groth16::prove(&self.device, &srs, assignments, randomness, self.host_timing)?;
        Ok(ProveOutput { proofs, breakdown: breakdown(&t) })
    }

    fn takes_witnesses(&self) -> bool {
        true
    }

    fn prove_witnesses(
        &self,
        params: &Arc<Parameters>,
        shape: &Arc<RecordedShape<Scalar>>,
        witnesses: &[Witness<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        let srs = self.srs(params)?;
        let (resident, upload_ms) = self.shape(shape, srs.placement().shape_on_host)?;
        let (proofs, t) =
            cuzk_gpu::prove_recorded(&self.device, &srs, &resident, witnesses, randomness, self.host_timing)?;
        // Normally the shape was uploaded when its recording became ready
        // (prepare_shape); if that failed and this call did it, say so.
        let mut stages = breakdown(&t);
        if upload_ms > 0.0 {
            stages.insert(0, ("shape_upload".to_string(), upload_ms));
        }
        Ok(ProveOutput { proofs, breakdown: stages })
    }

    fn prepare(&self, params: &Arc<Parameters>) -> Result<(), BackendError> {
        Ok(self.srs(params).map(|_| ())?)
    }

    fn settle(&self, params: &Arc<Parameters>) {
        if let Some(srs) = self.uploaded(params) {
            srs.wait_for_tables();
        }
    }

    /// Every uploaded SRS holds all its bases: the streamed ones in pinned
    /// host memory of its own, so the engine's copy serves nothing more.
    fn holds_bases(&self, params: &Arc<Parameters>) -> bool {
        self.uploaded(params).is_some()
    }

    fn placement(&self, params: &Arc<Parameters>) -> Option<Placement> {
        self.uploaded(params).map(|srs| *srs.placement())
    }

    fn pinned_bytes(&self, params: &Arc<Parameters>) -> u64 {
        self.uploaded(params).map_or(0, |srs| srs.placement().pinned_host_bytes())
    }

    fn adopt_slim(&self, full: &Arc<Parameters>, slim: &Arc<Parameters>) {
        let mut entries = self.resident.lock().unwrap_or_else(|p| p.into_inner());
        for (weak, _) in entries.iter_mut().filter(|(w, _)| w.as_ptr() == Arc::as_ptr(full)) {
            *weak = Arc::downgrade(slim);
        }
    }

    fn prepare_shape(&self, shape: &Arc<RecordedShape<Scalar>>) -> Result<(), BackendError> {
        Ok(self.shape(shape, self.shapes_on_host()).map(|_| ())?)
    }
}

/// The host function's stages as the engine's named breakdown.
fn breakdown(t: &HostTimings) -> Vec<(String, f64)> {
    cuzk_gpu::groth16::stages(t).into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
