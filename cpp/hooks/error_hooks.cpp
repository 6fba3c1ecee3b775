//! A hook that throws each error kind of cuda/util/error.hpp on demand, so a
//! host test checks that every kind reaches Rust as its typed GpuError.
#include <new>

#include "../../cuda/util/error.hpp"
#include "cuzk-ffi/src/hooks.rs.h"

namespace cuzk {

void throw_error_kind(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::NoGpu: throw_no_gpu("thrown by the error hook");
        case ErrorKind::NoDevice: throw_no_device(7, 2);
        case ErrorKind::CudaOom: throw_oom(uint64_t(1) << 40, 12345, "thrown by the error hook");
        case ErrorKind::CudaError: throw_cuda(702, "thrown by the error hook");
        case ErrorKind::InvalidInput: throw_invalid("thrown by the error hook");
        case ErrorKind::Unsatisfied: throw_unsatisfied(4096);
        case ErrorKind::Host: throw std::bad_alloc();
    }
    throw_invalid("throw_error_kind: unknown kind");
}

}  // namespace cuzk
