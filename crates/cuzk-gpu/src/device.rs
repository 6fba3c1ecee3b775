use crate::GpuError;
use cuzk_ffi::ffi;

pub use cuzk_ffi::ffi::DeviceInfo;

/// All CUDA devices of this machine; `NoGpu` when there are none.
pub fn devices() -> Result<Vec<DeviceInfo>, GpuError> {
    let count = ffi::device_count()?;
    (0..count).map(|id| ffi::device_info(id).map_err(GpuError::from)).collect()
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
