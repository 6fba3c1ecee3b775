//! The Groth16 device helpers of a build without nvcc: each fails with a typed
//! no_gpu error, so the host function never falls back to the CPU silently.
#include "../../cuda/api/groth16.hpp"
#include "../../cuda/util/error.hpp"

namespace cuzk::g16 {
namespace {
[[noreturn]] void unavailable() { throw_no_gpu("cuzk was built without CUDA (no nvcc found at build time)"); }
}  // namespace

pinned_memory::pinned_memory(uint64_t) { unavailable(); }
pinned_memory::~pinned_memory() = default;
void device_memory(int32_t, uint64_t*, uint64_t*) { unavailable(); }
std::unique_ptr<DeviceArray> allocate(int32_t, ArrayKind, uint64_t) { unavailable(); }
void copy_to_device(const DeviceArray&, const void*) { unavailable(); }
std::unique_ptr<DeviceArray> gather(const DeviceArray&, const uint32_t*, uint64_t) { unavailable(); }
void compact(const DeviceArray&, const uint64_t*, const DeviceArray&) { unavailable(); }

struct quotient_engine::state {};
quotient_engine::quotient_engine(int32_t, uint32_t, quotient_layout) { unavailable(); }
quotient_engine::~quotient_engine() = default;
void release_idle_quotients(int32_t) {}
bool quotient_engine::lean() const { unavailable(); }
void quotient_engine::release() { unavailable(); }
void quotient_engine::upload(const DeviceArray&, const void*) { unavailable(); }
std::unique_ptr<DeviceArray> quotient_engine::recorded_witness() const { unavailable(); }
const DeviceArray& quotient_engine::run(const uint64_t*, const uint64_t*, uint64_t, const std::function<void()>&) {
    unavailable();
}
const DeviceArray& quotient_engine::run_recorded(const DeviceR1cs&, const uint64_t*, uint64_t, const uint64_t*,
                                                 uint64_t, const std::function<void()>&) {
    unavailable();
}

}  // namespace cuzk::g16
