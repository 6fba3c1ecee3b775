//! The fixed-base multiplication entry point of a Groth16 setup. No CUDA
//! type appears here: the bridge (g++) includes this header.
#pragma once

#include <cstdint>

#include "rust/cxx.h"

namespace cuzk {

// Shared with Rust; cxx defines it after this header is included.
enum class ArrayKind : uint8_t;

/// s_i G for every scalar of `scalars` (blstrs' Montgomery limbs, 4 each)
/// on device `device`: `table` is G's window table for `window_bits`-bit
/// windows (cuda/msm/fixed_base.hpp's layout) as affine points of `kind`
/// (G1Affine or G2Affine), and `out` receives one affine point per scalar
/// in blstrs' layout, the identity as zeros. The scalars go through the
/// device `chunk` at a time in two alternating streams, so that one
/// chunk's copy back overlaps the next one's kernels and device memory
/// stays bounded whatever their number.
void fixed_base_mul(int32_t device, ArrayKind kind, rust::Slice<const uint64_t> table, uint32_t window_bits,
                    rust::Slice<const uint64_t> scalars, uint64_t chunk, rust::Slice<uint64_t> out);

}  // namespace cuzk
