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

/// The build script's own search for nvcc, to know which form was asked for.
#[path = "../../cuzk-ffi/nvcc.rs"]
#[allow(dead_code)] // the test uses `find` only
mod nvcc;

/// The form asked for is the one built: `CUZK_NO_CUDA=1` (the second run of
/// `cargo xtask test`) gives the build without CUDA; otherwise CUDA is
/// compiled in exactly when the build script's search (`NVCC`, `CUDA_HOME`,
/// `PATH`, target/cuda) finds a compiler. cargo hands the build script and
/// the tests the same environment, so a mismatch means a run tested the
/// other form than the one it asked for. A test binary run away from its
/// source tree is the GPU bundle's, which is always built with CUDA.
#[test]
fn the_form_asked_for_is_the_form_built() {
    let without = std::env::var("CUZK_NO_CUDA").is_ok_and(|v| v == "1");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // A value, not the constant: which arm asserts what is decided at run time.
    let compiled = std::hint::black_box(cuzk_gpu::CUDA_COMPILED);
    match (without, nvcc::find(&root)) {
        (true, _) => assert!(!compiled, "CUZK_NO_CUDA=1, yet CUDA is compiled in"),
        (false, Some(nvcc)) => {
            assert!(compiled, "{} is a compiler, yet CUDA is not compiled in", nvcc.display())
        }
        (false, None) if !root.join("Cargo.toml").is_file() => {
            assert!(compiled, "a bundle's test binary built without CUDA")
        }
        (false, None) => assert!(!compiled, "no nvcc is found, yet CUDA is compiled in"),
    }
}
