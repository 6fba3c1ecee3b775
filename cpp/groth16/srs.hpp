// The Groth16 SRS as the host function reads it: the verifying-key points on
// the host, and each query either resident in device memory (read at HBM
// speed by every proof) or in pinned host memory, streamed through a staging
// buffer in chunks when the device cannot hold it.
#pragma once

#include <cstdint>
#include <memory>

#include "../../cuda/api/groth16.hpp"
#include "curve.hpp"

namespace cuzk {

/// The verifying-key points the epilogue needs.
struct vk_points {
    ec::affine<ff::fp_t> alpha_g1, beta_g1, delta_g1;
    ec::affine<ff::fp2_t> beta_g2, delta_g2;
};

/// The bases of one query (h, l, a, b_g1 or b_g2).
struct query_bases {
    ArrayKind kind;
    uint64_t len = 0;
    /// Set when resident on the device.
    std::unique_ptr<DeviceArray> device;
    /// Set when streamed from pinned host memory.
    std::unique_ptr<g16::pinned_memory> host;
    /// Resident only, when the device had room: precomputed copies of the
    /// bases, one per MSM window (msm_table), for MSMs over all of them.
    std::unique_ptr<DeviceArray> table;
    /// The copies msm_table was asked for (its MSMs need the same).
    uint32_t table_copies = 0;

    /// Host address of base i (streaming only).
    const uint8_t* host_at(uint64_t i) const {
        return static_cast<const uint8_t*>(host->data()) + i * array_element_bytes(kind);
    }
};

/// An SRS uploaded once for one device and reused by every proof there.
/// Immutable after construction, so proofs may share it across threads.
class Groth16Srs {
public:
    int32_t device = 0;
    bool resident = false;
    /// Bases per streamed chunk (a multiple of 64, so bitmaps split at words).
    uint64_t stream_chunk = 0;
    vk_points vk;
    query_bases h, l, a, b_g1, b_g2;

    /// log2 of the domain (the h bases and one), or -1 when that is not a
    /// power of two (such an SRS cannot prove).
    int32_t log_domain() const {
        const uint64_t n = h.len + 1;
        if ((n & (n - 1)) != 0) return -1;
        int32_t log_n = 0;
        while ((uint64_t(1) << log_n) < n) log_n++;
        return log_n;
    }
};

}  // namespace cuzk
