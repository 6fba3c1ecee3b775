//! The Groth16 SRS as the host function reads it: the verifying-key points on
//! the host, and each query either resident in device memory (read at HBM
//! speed by every proof) or in pinned host memory, streamed through a staging
//! buffer in chunks when the device cannot hold it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "../../cuda/api/groth16.hpp"
#include "curve.hpp"

namespace cuzk {

/// The verifying-key points the epilogue needs.
struct vk_points {
    ec::affine<ff::fp_t> alpha_g1, beta_g1, delta_g1;
    ec::affine<ff::fp2_t> beta_g2, delta_g2;
};

/// The five queries' bits in a set of them (the bridge's `resident` masks).
enum query_bit : uint8_t { bit_h = 1, bit_l = 2, bit_a = 4, bit_b_g1 = 8, bit_b_g2 = 16, all_queries = 31 };

/// The bases of one query (h, l, a, b_g1 or b_g2).
struct query_bases {
    ArrayKind kind;
    uint64_t len = 0;
    /// Set when resident on the device.
    std::unique_ptr<DeviceArray> device;
    /// Set when streamed from pinned host memory.
    std::unique_ptr<g16::pinned_memory> host;

    /// Host address of base i (streaming only).
    const uint8_t* host_at(uint64_t i) const {
        return static_cast<const uint8_t*>(host->data()) + i * array_element_bytes(kind);
    }
};

/// An MSM table (msm_table: precomputed copies of fixed bases) built on a
/// thread of its own, so that whoever asked for it does not wait: users
/// that look before it is ready go without it. Building one (0.55 s for
/// 2^22 G1 bases on the H200) costs more than a single proof saves.
class background_table {
public:
    background_table() = default;
    background_table(const background_table&) = delete;
    background_table& operator=(const background_table&) = delete;
    /// Waits for the build, which reads the bases.
    ~background_table();

    /// Starts building `copies` copies of `bases`, which must outlive this
    /// (once per table: the SRS's upload calls it).
    /// A build that fails (another user took the memory meanwhile) leaves
    /// no table: the table only makes MSMs faster.
    void start(const DeviceArray& bases, uint32_t copies);
    /// The table, or null until it is built.
    std::shared_ptr<const DeviceArray> get() const;
    /// Waits until a started build has finished; whether there is a table.
    bool wait() const;
    /// The copies it was asked for (its MSMs need the same).
    uint32_t copies() const { return copies_; }

private:
    mutable std::mutex lock_;
    mutable std::condition_variable finished_;
    bool building_ = false;
    std::shared_ptr<const DeviceArray> table_;
    uint32_t copies_ = 0;
    std::thread builder_;
};

/// An SRS uploaded once for one device and reused by every proof there.
/// Immutable after construction but for h_table, which is published under
/// its own lock, so proofs may share it across threads.
class Groth16Srs {
public:
    int32_t device = 0;
    /// Bases per streamed chunk (a multiple of 64, so bitmaps split at words).
    uint64_t stream_chunk = 0;
    /// How proofs compute H (groth16.hpp's quotient_layout): the placement
    /// plan's choice, lean or spilled for cards without room for the
    /// overlapped one.
    g16::quotient_layout quotient = g16::quotient_layout::overlapped;
    /// The host-to-device rate of pinned copies measured at upload (GB/s,
    /// the best of three chunk copies), 0 when nothing is streamed: the
    /// bus's peak, beside which each call reports what it achieved
    /// (Groth16Timings::h2d_mb / h2d_ms).
    double h2d_peak_gbps = 0;
    vk_points vk;
    query_bases h, l, a, b_g1, b_g2;
    /// The h query's MSM table, when the device had room for it (srs.cpp).
    /// Declared after the bases, so it is destroyed (its build joined) first.
    background_table h_table;

    /// The queries resident in device memory (query_bit).
    uint8_t resident_queries() const {
        return uint8_t((h.device ? bit_h : 0) | (l.device ? bit_l : 0) | (a.device ? bit_a : 0) |
                       (b_g1.device ? bit_b_g1 : 0) | (b_g2.device ? bit_b_g2 : 0));
    }

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
