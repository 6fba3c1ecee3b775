//! The host side of the MSM entry points, built with or without CUDA:
//! element sizes, the window width and the table copies the kernels pick
//! (cuda/msm/plan.hpp), for the device code, cpp/groth16/ and the public
//! Rust API alike.
#include "../cuda/msm/plan.hpp"
#include "../cuda/util/error.hpp"
#include "cuzk-ffi/src/lib.rs.h"

namespace cuzk {

uint64_t array_element_bytes(ArrayKind kind) {
    switch (kind) {
        case ArrayKind::G1Affine: return 96;
        case ArrayKind::G2Affine: return 192;
        case ArrayKind::Scalar: return 32;
    }
    throw_invalid("unknown array kind");
}

uint64_t device_array_len(const DeviceArray& array) { return array.len(); }

uint32_t msm_window_bits(uint64_t n, uint64_t wide) { return msm::window_bits_for(msm::digit_points(n, wide)); }

uint64_t msm_table_copies(uint64_t len, uint32_t copies) { return msm::table_copies(len, copies); }

float batch_add(const DeviceArray& bases, rust::Slice<const uint64_t> bitmaps, rust::Slice<uint64_t> out) {
    return batch_add_sums(bases, span_of(bitmaps), span_of(out));
}

}  // namespace cuzk
