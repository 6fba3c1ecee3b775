//! Runs everywhere, CI included, in both forms of the build (`cargo xtask
//! test` runs it with CUDA compiled in and again with `CUZK_NO_CUDA=1`):
//! asking for a device that does not exist is a typed error, never a panic or
//! a silent fallback, and each form says which it is.

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

/// Without CUDA, `devices()` fails saying so. With CUDA compiled in, it lists
/// at least one device, or fails with `NoGpu` from the runtime (no driver or
/// no device), never with the message of the build without CUDA.
#[test]
fn devices_report_which_form_was_built() {
    let built_without_cuda = |e: &GpuError| matches!(e, GpuError::NoGpu(m) if m.contains("without CUDA"));
    match (cuzk_gpu::CUDA_COMPILED, devices()) {
        (false, Err(e)) => assert!(built_without_cuda(&e), "{e:?}"),
        (true, Ok(list)) => assert!(!list.is_empty(), "an empty device list should be a NoGpu error"),
        (true, Err(e)) => {
            assert!(matches!(&e, GpuError::NoGpu(_)) && !built_without_cuda(&e), "{e:?}");
        }
        (false, Ok(list)) => panic!("a build without CUDA listed devices: {list:?}"),
    }
}

/// The form `cargo xtask test` asks for is the one built: `CUZK_NO_CUDA=1`
/// (its second run) gives the build without CUDA, an `NVCC` naming a
/// compiler (its first run) the build with it. cargo hands the build script
/// and the tests the same environment, so a mismatch means the second run
/// tested the CUDA form twice, or the first the no-CUDA form.
#[test]
fn the_form_asked_for_is_the_form_built() {
    let without = std::env::var("CUZK_NO_CUDA").is_ok_and(|v| v == "1");
    let nvcc = std::env::var_os("NVCC").is_some_and(|p| std::path::Path::new(&p).is_file());
    match (without, nvcc) {
        (true, _) => assert!(!cuzk_gpu::CUDA_COMPILED, "CUZK_NO_CUDA=1, yet CUDA is compiled in"),
        (false, true) => assert!(cuzk_gpu::CUDA_COMPILED, "NVCC names a compiler, yet CUDA is not compiled in"),
        // Neither asked: build.rs searched CUDA_HOME, PATH and target/cuda,
        // and `devices_report_which_form_was_built` checks the form it found.
        (false, false) => {}
    }
}
