//! Device helpers of the Groth16 host function (cpp/groth16/): resident and
//! pinned memory for the SRS, uploads and gathers of bases, and the quotient
//! polynomial H computed on the device. No CUDA type appears here, so the
//! host function, compiled by g++, can drive them; without nvcc they come from
//! cpp/groth16/no_gpu.cpp and fail with a no_gpu error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "../util/error.hpp"
#include "msm.hpp"
#include "spmv.hpp"

namespace cuzk::g16 {

/// Page-locked host memory, read by the device through DMA at full PCIe
/// speed: where the SRS lives when the device cannot hold it.
class pinned_memory {
public:
    explicit pinned_memory(uint64_t bytes);
    ~pinned_memory();
    pinned_memory(const pinned_memory&) = delete;
    pinned_memory& operator=(const pinned_memory&) = delete;
    void* data() const { return data_; }
    uint64_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    uint64_t bytes_ = 0;
};

/// Free and total device memory of device `id`, in bytes.
void device_memory(int32_t id, uint64_t* free, uint64_t* total);

/// A new array of `len` elements on device `id`, uninitialised.
std::unique_ptr<DeviceArray> allocate(int32_t id, ArrayKind kind, uint64_t len);

/// Copies `dst.len()` elements from host memory (pageable or pinned) into `dst`.
void copy_to_device(const DeviceArray& dst, const void* host);

/// A new array holding src[positions[i]] for i < count, built on src's device.
std::unique_ptr<DeviceArray> gather(const DeviceArray& src, const uint32_t* positions, uint64_t count);

/// Writes into `out` the scalars of `src` whose bit is set in `density`
/// (host words, bit i for src[i]), in order, on src's device; `out` must
/// have room for exactly that many. A dense query's scalars compacted from
/// the aux assignment already on the device (split.hpp's aux_compacted).
void compact(const DeviceArray& src, const uint64_t* density, const DeviceArray& out);

/// How a quotient engine holds its n-scalar buffers (quotient.cu); the
/// bridge's numbers, cuzk-gpu's placement::QuotientLayout.
enum class quotient_layout : uint8_t {
    /// Five buffers kept between calls: a call overlaps the caller's H MSMs.
    overlapped = 0,
    /// Three, allocated by each call and freed by the next (or release()).
    lean = 1,
    /// Two, c waiting in pinned host memory while a and b are transformed,
    /// and the twiddles built by each call: for cards that cannot hold a
    /// third buffer beside the witness.
    spilled = 2,
};

/// The layout of the bridge's number `v`; anything else is invalid_argument.
inline quotient_layout quotient_layout_of(uint8_t v) {
    if (v > uint8_t(quotient_layout::spilled)) throw_invalid("quotient layout " + std::to_string(v) + " is not 0, 1 or 2");
    return quotient_layout(v);
}

/// The coefficients of h = (a·b − c)/Z for circuits of one domain size,
/// computed on one device with every intermediate kept there: the twiddle
/// tables are built once, the buffers reused for each circuit, in one of
/// three layouts (quotient_layout). Lean and spilled calls cannot overlap
/// the caller's H MSMs.
class quotient_engine {
public:
    quotient_engine(int32_t device, uint32_t log_n, quotient_layout layout = quotient_layout::overlapped);
    ~quotient_engine();
    quotient_engine(const quotient_engine&) = delete;
    quotient_engine& operator=(const quotient_engine&) = delete;

    /// h's n coefficients (the top one zero) from the first m evaluations of
    /// a and b on the domain (Montgomery Fr limbs, m <= n; the rest are
    /// zero): a and b to the coset (iNTT, coset NTT), their product there,
    /// its inverse coset NTT, then c's iNTT subtracted and Z⁻¹ applied.
    /// c's evaluations are a·b on the domain, as they are for any witness
    /// that satisfies the circuit, so they are computed here, not uploaded.
    /// (For one that does not, the proof fails to verify either way: the
    /// verifier's equation then holds only where the interpolations of c
    /// and of a·b agree, which a random τ misses but with chance n/r.)
    /// The work is finished when the call returns. The array stays valid until
    /// the call after next: results alternate between two arrays, so one
    /// thread may run an MSM over this circuit's h while another computes
    /// the next circuit's (calls on one engine must not overlap). Lean: until
    /// the next call or release(), so its MSM must end before either.
    /// `host_read`, when given, is called on this thread as soon as the call
    /// has copied a and b out of host memory, before the transforms end:
    /// the host function starts its CPU split there, whose threads would
    /// otherwise slow the copies (a 2^27 circuit uploads 8.3 GB).
    const DeviceArray& run(const uint64_t* a, const uint64_t* b, uint64_t m,
                           const std::function<void()>& host_read = {});

    /// As `run`, with a, b, c computed on the device by `shape` from the
    /// witness, host Montgomery limbs of num_inputs inputs and num_aux aux
    /// values: the witness is the only upload. The shape must be on this
    /// engine's device and the counts its own (the host function's batch
    /// checks both before any call). Throws unsatisfied(row=R) for the lowest row where a·b ≠ c,
    /// after which the engine is as usable as after a success.
    const DeviceArray& run_recorded(const DeviceR1cs& shape, const uint64_t* inputs, uint64_t num_inputs,
                                    const uint64_t* aux, uint64_t num_aux, const std::function<void()>& host_read = {});

    /// Copies dst.len() elements from host memory into dst (on this engine's
    /// device) through the engine's pinned staging buffers and copy threads,
    /// done when it returns. The host function's other uploads (tail and
    /// dense scalars) go this way: a pageable cudaMemcpy of them ran at
    /// ~6 GB/s on the H200 host, ~30 ms per 2^20·6 scalars. Not while a
    /// run is in flight on another thread.
    void upload(const DeviceArray& dst, const void* host);

    /// Whether the engine holds one h at a time (lean or spilled).
    bool lean() const;

    /// Lean: frees the buffers, the last h with them, so what comes after
    /// the H MSMs has the memory. Overlapped: nothing.
    void release();

    /// The witness of the last call when it was run_recorded (its inputs,
    /// then its aux values, as uploaded), else null (always, lean: the
    /// witness is freed before h is made). Nothing reads it after
    /// that call returned, so the caller may overwrite it until its next
    /// call on this engine.
    std::unique_ptr<DeviceArray> recorded_witness() const;

    struct state;

private:
    std::unique_ptr<state> s_;
};

/// Frees the quotient state device `device` keeps between calls (for
/// callers that need the memory, e.g. before uploading a larger SRS).
void release_idle_quotients(int32_t device);

}  // namespace cuzk::g16
