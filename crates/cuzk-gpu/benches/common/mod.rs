//! What the device benches share.

use cuzk_gpu::{Device, GpuError};

/// Device 0, or the process ends when there is none: with status 0 when
/// CUZK_ALLOW_NO_GPU=1 (CI compiles and runs the benches without a GPU),
/// else 1, saying that `what` did not run.
pub fn open_device_or_exit(what: &str) -> Device {
    match Device::open(0) {
        Ok(d) => d,
        Err(e @ (GpuError::NoGpu(_) | GpuError::NoDevice { .. })) => {
            eprintln!("no CUDA device: {what} did not run ({e})");
            let allowed = std::env::var("CUZK_ALLOW_NO_GPU").is_ok_and(|v| v == "1");
            std::process::exit(if allowed { 0 } else { 1 });
        }
        Err(e) => panic!("opening device 0 failed: {e}"),
    }
}
