// Declarations of every C++ function the Rust bridge (crates/cuzk-ffi) calls.
// The shared types are defined by cxx in the generated header; they are only
// forward-declared here because cxx includes this file before defining them.
// No CUDA type appears here, so g++ alone can compile against it.
#pragma once

#include <cstdint>

#include "rust/cxx.h"

namespace cuzk {

struct DeviceInfo;
enum class Field : uint8_t;
enum class FieldOp : uint8_t;
enum class Curve : uint8_t;
enum class CurveOp : uint8_t;
enum class NttKind : uint8_t;

// Host-compiled arithmetic hooks (cpp/host_hooks.cpp): the same field and
// curve code the kernels use, run on the CPU so tests compare it with blstrs.
uint32_t field_constants(Field field, rust::Slice<uint64_t> modulus, rust::Slice<uint64_t> one,
                         rust::Slice<uint64_t> r2);
void field_op(Field field, FieldOp op, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
              rust::Slice<uint64_t> out);
void curve_op(Curve curve, CurveOp op, rust::Slice<const uint64_t> p, rust::Slice<const uint64_t> q,
              rust::Slice<uint64_t> out);
void ntt_root_of_unity(uint32_t log_n, rust::Slice<uint64_t> out);

// Operating-system services (cpp/os.cpp).
void lower_thread_priority(int32_t steps);

// GPU entry points (cuda/api/*.cu, or cpp/no_gpu.cpp when built without nvcc).
int32_t device_count();
DeviceInfo device_info(int32_t id);
void device_alloc_probe(int32_t id, uint64_t bytes);
void gpu_field_mul(int32_t id, Field field, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
                   rust::Slice<uint64_t> out);
void fr_ntt(int32_t id, NttKind kind, rust::Slice<uint64_t> data);

}  // namespace cuzk
