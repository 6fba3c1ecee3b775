use crate::GpuError;
use cuzk_ffi::ffi;

pub use cuzk_ffi::ffi::DeviceInfo;

/// All CUDA devices of this machine; `NoGpu` when there are none.
pub fn devices() -> Result<Vec<DeviceInfo>, GpuError> {
    let count = ffi::device_count()?;
    (0..count).map(|id| ffi::device_info(id).map_err(GpuError::from)).collect()
}

/// Makes device `id` read as a card of `bytes` total to every plan cuzk
/// makes there (SRS placement, MSM batches, tables), or as itself again with
/// `None`: how the cards providers own are measured on a larger one. With
/// `enforce`, the memory above the cap is taken as well, so that an
/// allocation past the cap fails as it would on the smaller card (one
/// figure of the plan that was wrong shows as an error, not as a use of
/// memory the smaller card does not have). Set it before anything is
/// uploaded to the device.
pub fn cap_device_memory(id: i32, bytes: Option<u64>, enforce: bool) -> Result<(), GpuError> {
    if bytes == Some(0) {
        return Err(GpuError::InvalidInput("a device memory cap of 0 bytes".into()));
    }
    Ok(ffi::set_device_memory_cap(id, bytes.unwrap_or(0), enforce)?)
}

/// Frees the device memory kept between calls for reuse (the quotient's
/// buffers of the last domain size); the next call allocates it again.
pub fn release_idle_memory(id: i32) -> Result<(), GpuError> {
    Ok(ffi::release_idle_device_memory(id)?)
}

/// A handle on one device, checked to exist when opened. It holds no device
/// state: every kernel call passes its id, so devices work independently.
#[derive(Debug, Clone)]
pub struct Device {
    info: DeviceInfo,
}

impl Device {
    /// Opens device `id`: `NoGpu` without CUDA or devices, `NoDevice` for an id out of range.
    pub fn open(id: i32) -> Result<Device, GpuError> {
        Ok(Device { info: ffi::device_info(id)? })
    }

    /// The CUDA device ordinal.
    pub fn id(&self) -> i32 {
        self.info.id
    }

    /// Properties read when the device was opened (free memory is that moment's).
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }
}
