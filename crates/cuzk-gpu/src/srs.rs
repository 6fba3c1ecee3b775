use crate::placement::{self, Placement, QuerySet, QuotientLayout, SrsSizes};
use crate::{Device, GpuError};
use blstrs::{G1Affine, G2Affine};
use cuzk_ffi::cast::as_limbs;
use cuzk_ffi::{ffi, UniquePtr};
use cuzk_groth16::{Parameters, VerifyingKey};

/// Where [`GpuSrs::upload`] keeps the bases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SrsPlacement {
    /// As the placement plan says (placement.rs): the queries that fit
    /// beside one call's working set in device memory, where batch
    /// additions and MSMs read them at HBM speed; the others in pinned host
    /// memory, streamed. A device too small for one call is an error.
    Auto,
    /// In pinned host memory, streamed to the device in chunks: for testing
    /// that path on large cards.
    HostStreaming,
    /// These queries resident (each streamed instead if it does not fit),
    /// the others streamed, H computed in this layout: for testing partial
    /// placements and the lean quotient on any card.
    Forced(QuerySet, QuotientLayout),
}

/// A proving key uploaded once to one device and reused by every proof
/// there, so no call pays for moving tens of gigabytes of bases again.
pub struct GpuSrs {
    srs: UniquePtr<ffi::Groth16Srs>,
    device: i32,
    sizes: SrsSizes,
    placement: Placement,
}

impl GpuSrs {
    /// Uploads `params` to `device`, placed as `placement` says.
    pub fn upload(device: &Device, params: &Parameters, placement: SrsPlacement) -> Result<GpuSrs, GpuError> {
        Self::upload_as(device, params, placement, 0, 0)
    }

    /// As [`GpuSrs::upload`], keeping `held` more bytes free for the calls
    /// over SRSs already on the device (their working sets beyond this
    /// one's), so that placing this one does not take their room.
    pub fn upload_beside(
        device: &Device,
        params: &Parameters,
        placement: SrsPlacement,
        held: u64,
    ) -> Result<GpuSrs, GpuError> {
        Self::upload_as(device, params, placement, held, 0)
    }

    /// Uploads `params` to pinned host memory, streamed in chunks of
    /// `chunk_bases` bases (rounded up to a multiple of 64): small chunks let
    /// tests cross chunk boundaries with small circuits.
    pub fn upload_streaming(device: &Device, params: &Parameters, chunk_bases: usize) -> Result<GpuSrs, GpuError> {
        if chunk_bases == 0 {
            return Err(GpuError::InvalidInput("a streamed chunk needs at least one base".into()));
        }
        Self::upload_as(device, params, SrsPlacement::HostStreaming, 0, chunk_bases as u64)
    }

    fn upload_as(
        device: &Device,
        params: &Parameters,
        placement: SrsPlacement,
        held: u64,
        chunk: u64,
    ) -> Result<GpuSrs, GpuError> {
        if params.b_g1.len() != params.b_g2.len() {
            return Err(GpuError::InvalidInput(format!(
                "the B query has {} G1 bases but {} G2 bases",
                params.b_g1.len(),
                params.b_g2.len()
            )));
        }
        if !params.has_bases() {
            return Err(GpuError::InvalidInput(
                "the parameters' bases were released from host memory: nothing to upload".into(),
            ));
        }
        // The CPU prover refuses such a key on every call; a device proves
        // only with what was uploaded, so the upload is where it is refused.
        params.vk.refuse_degenerate().map_err(|e| GpuError::InvalidInput(e.to_string()))?;
        let vk = &params.vk;
        let sizes = SrsSizes::of(params);
        // The plan counts as free what the device keeps only for reuse.
        ffi::release_idle_device_memory(device.id())?;
        let now = ffi::device_info(device.id())?;
        let (free, total) = (now.free_mem, now.total_mem);
        let planned = match placement {
            SrsPlacement::Auto => placement::plan(&sizes, free, total, held)?,
            SrsPlacement::HostStreaming => placement::forced(&sizes, free, total, QuerySet::NONE, QuotientLayout::Overlapped),
            SrsPlacement::Forced(set, layout) => placement::forced(&sizes, free, total, set, layout),
        };
        // A chunk asked for (tests crossing chunk bounds) over the plan's.
        let planned = if chunk > 0 { planned.with_chunk(&sizes, chunk) } else { planned };
        let srs = ffi::groth16_srs_upload(
            device.id(),
            &vk_limbs(vk),
            as_limbs(&params.h),
            as_limbs(&params.l),
            as_limbs(&params.a),
            as_limbs(&params.b_g1),
            as_limbs(&params.b_g2),
            planned.resident.bits(),
            planned.quotient.bits(),
            planned.working_set.total(),
            planned.stream_chunk(),
        )?;
        // A query the device had no room for after all was streamed.
        let resident = QuerySet::from_bits(ffi::groth16_srs_resident_queries(&srs));
        let mut placement = placement::forced(&sizes, free, total, resident, planned.quotient);
        if planned.shape_on_host {
            placement = placement.with_shape_on_host();
        }
        let placement = placement.with_chunk(&sizes, planned.stream_chunk());
        Ok(GpuSrs { srs, device: device.id(), sizes, placement })
    }

    /// A timing-only SRS of the given sizes, made on the device by repeating
    /// `g1` and `g2` points (so Filecoin-scale runs need neither a 47 GB file
    /// nor its upload). Proofs made with it do not verify: use it only to
    /// time the host function, whose cost does not depend on the bases' values.
    pub fn tiled_for_timing(
        device: &Device,
        vk: &VerifyingKey,
        g1: &[G1Affine],
        g2: &[G2Affine],
        sizes: SrsSizes,
    ) -> Result<GpuSrs, GpuError> {
        if g1.is_empty() || g2.is_empty() {
            return Err(GpuError::InvalidInput("a tiled SRS needs at least one G1 and one G2 point".into()));
        }
        if vk.ic.len() != sizes.ic {
            return Err(GpuError::InvalidInput(format!(
                "the verifying key has {} IC points, the sizes say {}",
                vk.ic.len(),
                sizes.ic
            )));
        }
        let now = ffi::device_info(device.id())?;
        let srs = ffi::groth16_srs_tiled(
            device.id(),
            &vk_limbs(vk),
            as_limbs(g1),
            as_limbs(g2),
            sizes.h as u64,
            sizes.l as u64,
            sizes.a as u64,
            sizes.b as u64,
        )?;
        let placement = placement::forced(&sizes, now.free_mem, now.total_mem, QuerySet::ALL, QuotientLayout::Overlapped);
        Ok(GpuSrs { srs, device: device.id(), sizes, placement })
    }

    /// Whether every query's bases are in device memory.
    pub fn is_resident(&self) -> bool {
        self.placement.resident == QuerySet::ALL
    }

    /// The host-to-device rate of pinned copies measured at upload, in
    /// GB/s: the bus's peak, beside which each call's `h2d_mb / h2d_ms`
    /// is what it achieved; `None` when every query is resident.
    pub fn h2d_peak_gbps(&self) -> Option<f64> {
        let rate = ffi::groth16_srs_h2d_peak_gbps(&self.srs);
        (rate > 0.0).then_some(rate)
    }

    /// Where the bases are: the queries resident in device memory (the
    /// others streamed from pinned host memory), and the device memory the
    /// plan was made from.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// Waits for the MSM table the upload left building in the background
    /// (a resident h query gets one when the device has room; proofs that
    /// start earlier run without it); whether there is one.
    pub fn wait_for_tables(&self) -> bool {
        ffi::groth16_srs_wait_for_tables(self.raw())
    }

    /// The device the SRS was uploaded for.
    pub fn device_id(&self) -> i32 {
        self.device
    }

    /// The query sizes assignments are checked against.
    pub fn sizes(&self) -> SrsSizes {
        self.sizes
    }

    pub(crate) fn raw(&self) -> &ffi::Groth16Srs {
        self.srs.as_ref().expect("a GpuSrs always holds an SRS")
    }
}

/// alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2 as affine limbs, the order
/// the host function reads them in.
fn vk_limbs(vk: &VerifyingKey) -> Vec<u64> {
    let mut limbs = Vec::with_capacity(84);
    for p in [vk.alpha_g1, vk.beta_g1] {
        limbs.extend_from_slice(as_limbs::<G1Affine>(&[p]));
    }
    limbs.extend_from_slice(as_limbs::<G2Affine>(&[vk.beta_g2]));
    limbs.extend_from_slice(as_limbs::<G1Affine>(&[vk.delta_g1]));
    limbs.extend_from_slice(as_limbs::<G2Affine>(&[vk.delta_g2]));
    limbs
}
