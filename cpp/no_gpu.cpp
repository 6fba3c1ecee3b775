//! The GPU entry points of a build without nvcc: each call fails with a typed
//! no_gpu error at run time, so a missing toolkit is never a silent CPU fallback.
#include "cuzk-ffi/src/hooks.rs.h"
#include "cuzk-ffi/src/lib.rs.h"
#include "../cuda/util/error.hpp"

namespace cuzk {
namespace {
[[noreturn]] void unavailable() { throw_no_gpu("cuzk was built without CUDA (no nvcc found at build time)"); }
}  // namespace

int32_t device_count() { unavailable(); }
DeviceInfo device_info(int32_t) { unavailable(); }
void set_device_memory_cap(int32_t, uint64_t, bool) { unavailable(); }
void device_alloc_probe(int32_t, uint64_t) { unavailable(); }
void gpu_field_mul(int32_t, Field, rust::Slice<const uint64_t>, rust::Slice<const uint64_t>, rust::Slice<uint64_t>) {
    unavailable();
}
void fr_ntt(int32_t, NttKind, rust::Slice<uint64_t>) { unavailable(); }
std::unique_ptr<DeviceArray> device_array_upload(int32_t, ArrayKind, rust::Slice<const uint64_t>) { unavailable(); }
std::unique_ptr<DeviceArray> device_array_tile(int32_t, ArrayKind, rust::Slice<const uint64_t>, uint64_t) {
    unavailable();
}
MsmWindows msm_windows(const DeviceArray&, const DeviceArray&) { unavailable(); }
std::unique_ptr<DeviceArray> msm_table(const DeviceArray&, uint32_t) { unavailable(); }
MsmWindows msm_windows_table(const DeviceArray&, uint64_t, uint32_t, const DeviceArray&) { unavailable(); }
void fixed_base_mul(int32_t, ArrayKind, rust::Slice<const uint64_t>, uint32_t, rust::Slice<const uint64_t>, uint64_t,
                    rust::Slice<uint64_t>) {
    unavailable();
}
float batch_add_sums(const DeviceArray&, span<const uint64_t>, span<uint64_t>) { unavailable(); }
rust::Vec<float> fr_ntt_timed(const DeviceArray&, NttKind, uint32_t, rust::Slice<uint64_t>) { unavailable(); }
float fp_mul_chain(int32_t, rust::Slice<const uint64_t>, uint64_t, uint32_t, rust::Slice<uint64_t>) { unavailable(); }
float fp64_mul_chain(int32_t, rust::Slice<const uint64_t>, uint64_t, uint32_t, rust::Slice<uint64_t>) {
    unavailable();
}
float g1_add_chain(int32_t, rust::Slice<const uint64_t>, uint64_t, uint32_t, rust::Slice<uint64_t>) { unavailable(); }

struct DeviceR1cs::state {};
DeviceR1cs::~DeviceR1cs() = default;
std::unique_ptr<DeviceR1cs> r1cs_upload(int32_t, const R1csMatrix&, const R1csMatrix&, const R1csMatrix&,
                                        rust::Slice<const uint64_t>, uint64_t, uint64_t) {
    unavailable();
}
std::unique_ptr<DeviceR1cs> r1cs_upload_mapped(int32_t, const R1csMatrix&, const R1csMatrix&, const R1csMatrix&,
                                               rust::Slice<const uint64_t>, uint64_t, uint64_t) {
    unavailable();
}
uint64_t r1cs_host_bytes(const DeviceR1cs&) { unavailable(); }
void r1cs_evaluate(const DeviceR1cs&, rust::Slice<const uint64_t>, rust::Slice<const uint64_t>, rust::Slice<uint64_t>,
                   rust::Slice<uint64_t>, rust::Slice<uint64_t>) {
    unavailable();
}

}  // namespace cuzk
