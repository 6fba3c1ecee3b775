//! Runs everywhere, CI included: asking for a device that does not exist is
//! a typed error, never a panic or a silent fallback.

use cuzk_gpu::{devices, Device, GpuError};

#[test]
fn missing_device_is_a_typed_error() {
    match Device::open(i32::MAX) {
        Err(GpuError::NoGpu(_)) => assert!(devices().is_err_and(|e| matches!(e, GpuError::NoGpu(_)))),
        Err(GpuError::NoDevice { id, count }) => {
            assert_eq!(id, i32::MAX);
            assert_eq!(usize::try_from(count).unwrap(), devices().unwrap().len());
        }
        other => panic!("expected NoGpu or NoDevice, got {other:?}"),
    }
}

#[test]
fn negative_ids_are_rejected() {
    let err = Device::open(-1).unwrap_err();
    assert!(matches!(err, GpuError::NoGpu(_) | GpuError::NoDevice { id: -1, .. }), "{err:?}");
}

#[test]
fn build_without_cuda_reports_no_gpu() {
    if !cuzk_gpu::CUDA_COMPILED {
        let err = devices().unwrap_err();
        assert!(matches!(&err, GpuError::NoGpu(m) if m.contains("without CUDA")), "{err:?}");
    }
}
