//! Declarations of the C++ test and bench hooks that the hook bridge
//! (crates/cuzk-ffi/src/hooks.rs) calls: the kernels' field, curve and index
//! code run on the CPU, the host function's CPU parts alone, every error
//! kind thrown on demand, the allocation fault hook, and two device probes. The timed bench entry
//! points are declared in cuda/api/bench.hpp. The shared types are defined
//! by cxx in the generated headers; they are only forward-declared here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rust/cxx.h"

namespace cuzk {

struct DeviceArray;
struct AllocCount;
struct Groth16Circuit;
struct Groth16Split;
struct Groth16Timings;
struct R1csMatrix;
enum class Field : uint8_t;
enum class FieldOp : uint8_t;
enum class Curve : uint8_t;
enum class CurveOp : uint8_t;
enum class ErrorKind : uint8_t;

// Host-compiled arithmetic (cpp/hooks/host_arith.cpp): the same field and
// curve code the kernels use, run on the CPU so tests compare it with blstrs.
uint32_t field_constants(Field field, rust::Slice<uint64_t> modulus, rust::Slice<uint64_t> one,
                         rust::Slice<uint64_t> r2);
void field_op(Field field, FieldOp op, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
              rust::Slice<uint64_t> out);
void curve_op(Curve curve, CurveOp op, rust::Slice<const uint64_t> p, rust::Slice<const uint64_t> q,
              rust::Slice<uint64_t> out);
void ntt_root_of_unity(uint32_t log_n, rust::Slice<uint64_t> out);

// The FP64-limb Fp product on the CPU (cpp/hooks/fp64_host.cpp): a b R^-1
// mod p, canonical, for Montgomery limbs a, b below 2p (others throw).
void fp64_mul_host(rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b, rust::Slice<uint64_t> out);

// Device probes (cuda/api/device.cu, or cpp/no_gpu.cpp without nvcc).
void device_alloc_probe(int32_t id, uint64_t bytes);
void gpu_field_mul(int32_t id, Field field, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
                   rust::Slice<uint64_t> out);

// The MSM's index logic over integers (cpp/hooks/msm_models.cpp).

/// The signed digits of the kernels' recoding for a scalar in blstrs'
/// Montgomery limbs and a window width.
rust::Vec<int32_t> msm_signed_digits(rust::Slice<const uint64_t> scalar, uint32_t window_bits);

/// An MSM over a table of `copies` copies run on the CPU over the integers
/// mod 2^64 (base i is values[i], scalars in blstrs' Montgomery limbs): the
/// table's copies, the kernels' digit slots (digits.hpp's slot_of) into the
/// window_stride bucket sets, and the sets' weights; throws where a slot
/// falls outside the table. Returns the sum.
uint64_t msm_table_model(rust::Slice<const uint64_t> scalars, rust::Slice<const uint64_t> values, uint32_t copies);

/// The kernels' two-level bucket accumulation and window reduction run over
/// the group of integers mod 2^64: `keys` sorted bucket keys, `values` their
/// items, split over `threads` first-level threads; returns per bucket the
/// sum of its values (`buckets` entries, wrapping) followed by, per window of
/// `buckets_per_window` buckets reduced in segments of `segment_len` (the
/// last of a window shorter when it does not divide them),
/// sum_b (b + 1) bucket_b.
rust::Vec<uint64_t> msm_reduce_model(rust::Slice<const uint32_t> keys, rust::Slice<const uint64_t> values,
                                     uint64_t threads, uint32_t buckets, uint32_t buckets_per_window,
                                     uint32_t segment_len);

/// The batch addition of bitmaps laid end to end run on the CPU over the
/// integers mod 2^64 (base i is values[i], 64 values per bitmap word): the
/// kernel's shares of the set-bit ranks over `threads` threads, its keys by
/// bitmap and the keyed-sum levels; returns one sum per bitmap.
rust::Vec<uint64_t> batch_add_model(rust::Slice<const uint64_t> bitmaps, rust::Slice<const uint64_t> values,
                                    uint64_t threads);

// The fixed-base multiplication on the CPU (cpp/hooks/fixed_base_host.cpp).

/// fixed_base_mul's result computed by the kernels' point code on the host:
/// s_i G from G's window table for `window_bits`-bit windows, converted to
/// affine by `stride` runs (point i in run i mod stride), as the kernels do.
void fixed_base_host(Curve curve, rust::Slice<const uint64_t> table, uint32_t window_bits,
                     rust::Slice<const uint64_t> scalars, uint64_t stride, rust::Slice<uint64_t> out);

// The shape checks and row code on the CPU (cpp/hooks/r1cs_host.cpp); `abc`
// holds a, then b, then c, one scalar per row each.
void r1cs_evaluate_host(const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                        rust::Slice<const uint64_t> coefficients, rust::Slice<const uint64_t> inputs,
                        rust::Slice<const uint64_t> aux, rust::Slice<uint64_t> abc);

// The host function's CPU parts (cpp/hooks/groth16_hooks.cpp).

/// The epilogue alone. `vk` as for the SRS upload; `sums` the Jacobian limbs
/// of ΣA, ΣB (G1), ΣB (G2), ΣL, ΣH; `rs` r then s.
void groth16_epilogue_hook(rust::Slice<const uint64_t> vk, rust::Slice<const uint64_t> sums,
                           rust::Slice<const uint64_t> rs, rust::Slice<uint8_t> proof);

/// The split of one query (0 = L, 1 = A, 2 = B) over `circuits`, on
/// `threads` threads, for a device that compacts dense aux scalars
/// (`compact`) or not, flattened into a Groth16Split.
Groth16Split groth16_split_hook(rust::Slice<const Groth16Circuit> circuits, uint8_t query, uint32_t threads,
                                bool compact);

/// g16::release_pages over buffer[first, first + len).
void release_pages_hook(rust::Slice<uint8_t> buffer, size_t first, size_t len);

/// The `CUZK_TIMING:` line a call with these timings prints (no newline).
rust::String groth16_timing_line(const Groth16Timings& timings);

// Allocation faults (cpp/hooks/fault_hooks.cpp).

/// Counts the prover's allocations from zero; the `fail_at`-th (1-based)
/// fails as out of memory (0: none does).
void alloc_faults_arm(uint64_t fail_at);

/// Stops counting; returns the allocations counted since the arm and the
/// bytes allocated minus those released meanwhile.
AllocCount alloc_faults_disarm();

// Errors (cpp/hooks/error_hooks.cpp).

/// Throws an error of `kind` (cuda/util/error.hpp) with fixed arguments.
void throw_error_kind(ErrorKind kind);

}  // namespace cuzk
