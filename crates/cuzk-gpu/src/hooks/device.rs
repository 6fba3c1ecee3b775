use cuzk_ffi::hooks::ffi as hooks;
use crate::{Device, GpuError};

/// Allocates, fills and frees `bytes` of memory on `device`: lets tests check
/// that an allocation failure is a typed `OutOfMemory` that leaves the
/// device usable.
pub fn probe_alloc(device: &Device, bytes: u64) -> Result<(), GpuError> {
    Ok(hooks::device_alloc_probe(device.id(), bytes)?)
}
