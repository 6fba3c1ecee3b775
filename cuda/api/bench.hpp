//! Entry points that exist to measure the kernels: a timed NTT on a resident
//! input and three arithmetic throughput kernels. Every one returns what it
//! computed as well as the time, so the benchmark checks its result against
//! blstrs and a kernel that was optimised away or is wrong cannot report a
//! figure. No CUDA type appears here (the g++ bridge includes this header).
#pragma once

#include <cstdint>

#include "msm.hpp"
#include "rust/cxx.h"

namespace cuzk {

// Shared with Rust; cxx defines it after this header is included.
enum class NttKind : uint8_t;

/// Runs the transform `kind` of a resident power-of-two array of scalars
/// `runs` times out of place (tables built once, untimed), returning each
/// run's device milliseconds; when `out` is not empty it receives the result.
rust::Vec<float> fr_ntt_timed(const DeviceArray& input, NttKind kind, uint32_t runs, rust::Slice<uint64_t> out);

/// `threads` threads each compute x = seeds[t % k] * y^iters by `iters`
/// dependent Montgomery multiplications in Fp, y = seeds[(t + 1) % k] (k
/// seeds of 6 limbs). Writes x of threads 0, 1, ... to `sample` (as many as
/// it holds) and returns the device milliseconds of the kernel.
float fp_mul_chain(int32_t id, rust::Slice<const uint64_t> seeds, uint64_t threads, uint32_t iters,
                   rust::Slice<uint64_t> sample);

/// fp_mul_chain's chains computed with the FP64-limb product (ff/fp64.hpp):
/// the same inputs, the same results, a different multiplier to time.
float fp64_mul_chain(int32_t id, rust::Slice<const uint64_t> seeds, uint64_t threads, uint32_t iters,
                     rust::Slice<uint64_t> sample);

/// `threads` threads each start an XYZZ accumulator at bases[t % k] and add
/// bases[(t + j) % k] for j = 1..iters by mixed addition (k affine G1 bases,
/// a power of two, at most 256). Writes the accumulators (X, Y, ZZ, ZZZ) of
/// threads 0, 1, ... to `sample` and returns the device milliseconds.
float g1_add_chain(int32_t id, rust::Slice<const uint64_t> bases, uint64_t threads, uint32_t iters,
                   rust::Slice<uint64_t> sample);

}  // namespace cuzk
