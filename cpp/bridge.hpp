//! Declarations of the production C++ functions the Rust bridge
//! (crates/cuzk-ffi/src/lib.rs) calls that no other header declares; the
//! test and bench hooks are declared in cpp/hooks/hooks.hpp.
//! The shared types are defined by cxx in the generated header; they are only
//! forward-declared here because cxx includes this file before defining them.
//! No CUDA type appears here, so g++ alone can compile against it.
#pragma once

#include <cstdint>

#include "rust/cxx.h"

namespace cuzk {

struct DeviceInfo;
enum class NttKind : uint8_t;

// Operating-system services (cpp/os.cpp).
void lower_thread_priority(int32_t steps);

// GPU entry points (cuda/api/*.cu, or cpp/no_gpu.cpp when built without nvcc).
int32_t device_count();
DeviceInfo device_info(int32_t id);
void set_device_memory_cap(int32_t id, uint64_t bytes, bool enforce);
void fr_ntt(int32_t id, NttKind kind, rust::Slice<uint64_t> data);

}  // namespace cuzk
