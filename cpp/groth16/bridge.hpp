//! Bridge declarations of the Groth16 host function (crates/cuzk-ffi). The
//! shared structs are defined by cxx after this header is included, so they
//! are only forward-declared here; no CUDA type appears.
#pragma once

#include <cstdint>
#include <memory>

#include "../../cuda/api/spmv.hpp"
#include "rust/cxx.h"
#include "srs.hpp"

namespace cuzk {

struct Groth16Circuit;
struct Groth16Timings;

/// Uploads an SRS for device `device`: `vk` holds alpha_g1, beta_g1, beta_g2,
/// delta_g1, delta_g2 (affine limbs, in that order); the queries are affine
/// limbs. The queries in `resident` (query_bit) go to device memory, each
/// streamed instead if the device turns out not to have room for it; the
/// rest stay in pinned host memory. `quotient_layout`: how proofs compute H
/// (groth16.hpp's quotient_layout: 0 overlapped, 1 lean, 2 spilled). `working_set`: device bytes a call needs
/// beside the SRS, which the h query's MSM table leaves free. The caller
/// plans with the device's free memory after release_idle_device_memory.
/// `stream_chunk` bases per streamed chunk (0: a default of ~256 MiB).
std::unique_ptr<Groth16Srs> groth16_srs_upload(int32_t device, rust::Slice<const uint64_t> vk,
                                               rust::Slice<const uint64_t> h, rust::Slice<const uint64_t> l,
                                               rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b_g1,
                                               rust::Slice<const uint64_t> b_g2, uint8_t resident, uint8_t quotient_layout,
                                               uint64_t working_set, uint64_t stream_chunk);

/// A timing-only SRS made on the device: every query resident, filled by
/// repeating the given affine points (G1 for h, l, a, b_g1; G2 for b_g2).
/// Proofs made with it do not verify; it lets Filecoin-scale runs skip
/// generating and uploading tens of gigabytes of real bases.
std::unique_ptr<Groth16Srs> groth16_srs_tiled(int32_t device, rust::Slice<const uint64_t> vk,
                                              rust::Slice<const uint64_t> g1_pattern,
                                              rust::Slice<const uint64_t> g2_pattern, uint64_t h, uint64_t l,
                                              uint64_t a, uint64_t b);

/// The queries whose bases are in device memory (query_bit), the others in
/// pinned host memory.
uint8_t groth16_srs_resident_queries(const Groth16Srs& srs);
/// The host-to-device rate of pinned copies measured at upload, GB/s (0: nothing streamed).
double groth16_srs_h2d_peak_gbps(const Groth16Srs& srs);

/// Frees what the device keeps between calls for reuse (the quotient's
/// buffers), so that an SRS about to be placed counts that memory as free.
void release_idle_device_memory(int32_t device);

/// Waits for the SRS's MSM tables being built in the background (srs.hpp);
/// whether the h query has one.
bool groth16_srs_wait_for_tables(const Groth16Srs& srs);

/// Proves every circuit with its (r, s) on `device` and writes 192 bytes per
/// proof (A ‖ B ‖ C compressed) into `proofs`.
Groth16Timings generate_groth16_proofs_c(int32_t device, const Groth16Srs& srs,
                                         rust::Slice<const Groth16Circuit> circuits, bool timing,
                                         rust::Slice<uint8_t> proofs);

/// As generate_groth16_proofs_c for circuits of one recorded shape, resident
/// on the SRS's device: each circuit gives its witness (input, aux) and
/// densities with empty a, b, c, which the device computes from the witness
/// (its only upload for H). A witness that fails a constraint is an
/// unsatisfied(row=R) error naming the lowest such row.
Groth16Timings generate_groth16_proofs_recorded_c(int32_t device, const Groth16Srs& srs, const DeviceR1cs& shape,
                                                  rust::Slice<const Groth16Circuit> circuits, bool timing,
                                                  rust::Slice<uint8_t> proofs);

}  // namespace cuzk
