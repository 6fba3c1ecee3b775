//! MSM and batch-addition entry points, and the resident device arrays they
//! read. No CUDA type appears here: the bridge (g++) includes this header, and
//! cpp/ host code can hold DeviceArrays without seeing the runtime.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "../util/span.hpp"
#include "rust/cxx.h"

namespace cuzk {

// Shared with Rust; cxx defines them after this header is included.
enum class ArrayKind : uint8_t;
struct MsmWindows;

/// Bytes of one element of an array kind (96 for G1 affine, 192 for G2
/// affine, 32 for a scalar), as blstrs lays them out.
uint64_t array_element_bytes(ArrayKind kind);

/// Device memory that lives across calls: bases (the SRS kept on the GPU) or
/// scalars, in blstrs' layout. It remembers its device so every call that
/// reads it runs there; `owner` frees the memory on that device.
class DeviceArray {
public:
    DeviceArray(int32_t device, ArrayKind kind, uint64_t len, void* data, std::shared_ptr<void> owner)
        : device_(device), kind_(kind), len_(len), data_(data), owner_(std::move(owner)) {}

    int32_t device() const { return device_; }
    ArrayKind kind() const { return kind_; }
    uint64_t len() const { return len_; }
    void* data() const { return data_; }

private:
    int32_t device_;
    ArrayKind kind_;
    uint64_t len_;
    void* data_;
    std::shared_ptr<void> owner_;
};

/// Copies `data` (whole elements of `kind`, from pageable or pinned host
/// memory) to a new array on device `id`.
std::unique_ptr<DeviceArray> device_array_upload(int32_t id, ArrayKind kind, rust::Slice<const uint64_t> data);

/// A new array of `len` elements on device `id` repeating `pattern`: large
/// inputs for benchmarks and memory tests without host memory or PCIe time.
std::unique_ptr<DeviceArray> device_array_tile(int32_t id, ArrayKind kind, rust::Slice<const uint64_t> pattern,
                                               uint64_t len);

/// Number of elements of an array.
uint64_t device_array_len(const DeviceArray& array);

/// Pippenger MSM of the first scalars.len() bases with those scalars, on the
/// bases' device, up to the per-window sums (see MsmWindows).
MsmWindows msm_windows(const DeviceArray& bases, const DeviceArray& scalars);

/// Precomputed copies of `bases` for MSMs whose windows share buckets: copy t
/// of base i is 2^(c S t) bases[i] (cuda/msm/plan.hpp's window_stride), so an
/// MSM over the table adds as many digits but reduces S bucket sets instead
/// of one per window, which lets it take a wider window (fewer digits) for
/// the same reduction. Holds table_copies(len, copies) copies, len apart.
std::unique_ptr<DeviceArray> msm_table(const DeviceArray& bases, uint32_t copies);

/// msm_windows over a table msm_table built from table_n bases with `copies`.
MsmWindows msm_windows_table(const DeviceArray& table, uint64_t table_n, uint32_t copies, const DeviceArray& scalars);

/// For each of the bitmaps laid end to end in `bitmaps` (bit i of a
/// bitmap's word i / 64; ceil(len / 64) words each, no bit at or past len),
/// the sum of bases[i] over its set bits, written to `out` as Jacobian points
/// in blstrs' layout, one per bitmap (out's size says how many); returns the
/// device time in milliseconds. The bridge's entry point; C++ callers use
/// batch_add_sums.
float batch_add(const DeviceArray& bases, rust::Slice<const uint64_t> bitmaps, rust::Slice<uint64_t> out);

/// batch_add over plain views, for the host function (cpp/groth16/).
float batch_add_sums(const DeviceArray& bases, span<const uint64_t> bitmaps, span<uint64_t> out);

/// The window width the MSM picks for n scalars of which `wide` are neither
/// 0 nor 1 (n for random ones).
uint32_t msm_window_bits(uint64_t n, uint64_t wide);

/// The copies msm_table(bases, copies) keeps for `len` bases (also the
/// host function's sizing of its h table).
uint64_t msm_table_copies(uint64_t len, uint32_t copies);

}  // namespace cuzk
