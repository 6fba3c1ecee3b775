use cuzk_ffi::hooks::ffi as hooks;

pub use cuzk_ffi::hooks::ffi::ErrorKind;

use crate::GpuError;

/// What the C++ side's error of `kind` (cuda/util/error.hpp, thrown by a hook
/// with fixed arguments) becomes once it has crossed the bridge.
pub fn thrown(kind: ErrorKind) -> GpuError {
    match hooks::throw_error_kind(kind) {
        Ok(()) => GpuError::Host(format!("the hook threw nothing for {kind:?}")),
        Err(e) => e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{thrown, ErrorKind};
    use crate::GpuError;

    /// Each kind with the arguments cpp/hooks/error_hooks.cpp throws it with.
    #[test]
    fn every_cpp_error_kind_arrives_typed() {
        let hook = "thrown by the error hook".to_string();
        let cases = [
            (ErrorKind::NoGpu, GpuError::NoGpu(hook.clone())),
            (ErrorKind::NoDevice, GpuError::NoDevice { id: 7, count: 2 }),
            (ErrorKind::CudaOom, GpuError::OutOfMemory { requested: 1 << 40, free: 12345 }),
            (ErrorKind::CudaError, GpuError::Cuda { code: 702, message: hook.clone() }),
            (ErrorKind::InvalidInput, GpuError::InvalidInput(hook)),
            (ErrorKind::Unsatisfied, GpuError::UnsatisfiedConstraint { row: 4096 }),
            (ErrorKind::Host, GpuError::Host("std::bad_alloc".into())),
        ];
        for (kind, expected) in cases {
            assert_eq!(thrown(kind), expected, "{kind:?}");
        }
    }
}
