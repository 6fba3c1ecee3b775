//! A recorded constraint system resident on one device, and the sparse
//! products a = A·w, b = B·w, c = C·w computed there (DESIGN §5: "a/b/c
//! without the CPU"). No CUDA type appears here, so the bridge (g++) and the
//! Groth16 host function can hold shapes; without nvcc the entry points come
//! from cpp/no_gpu.cpp and fail with a no_gpu error.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "rust/cxx.h"

namespace cuzk {

// Shared with Rust; cxx defines it after this header is included.
struct R1csMatrix;

/// The matrices A, B, C of one circuit shape (CSR over the column space
/// inputs-then-aux, coefficient indices as recorded: 16 or 32 bits) and
/// their coefficient table (Montgomery Fr), uploaded once and read by every
/// evaluation, or (on_host) left in the caller's host memory, pinned and
/// mapped, and read across the bus by every evaluation. Immutable after
/// construction; each evaluation brings its own scratch memory, so several
/// threads may evaluate one shape at once.
class DeviceR1cs {
public:
    /// The device arrays (cuda/api/spmv.cuh).
    struct state;

    DeviceR1cs(int32_t device, uint64_t rows, uint64_t num_inputs, uint64_t num_aux, std::unique_ptr<state> s);
    ~DeviceR1cs();
    DeviceR1cs(const DeviceR1cs&) = delete;
    DeviceR1cs& operator=(const DeviceR1cs&) = delete;

    int32_t device() const { return device_; }
    /// Constraints, the input rows included.
    uint64_t rows() const { return rows_; }
    /// Public inputs, the constant one included.
    uint64_t num_inputs() const { return num_inputs_; }
    uint64_t num_aux() const { return num_aux_; }
    const state& arrays() const { return *s_; }

private:
    int32_t device_;
    uint64_t rows_, num_inputs_, num_aux_;
    std::unique_ptr<state> s_;
};

/// Uploads a shape to device `device` after checking every index against
/// the table and the column space (a malformed shape would read out of
/// bounds on the device). `coefficients` holds 4 limbs per table entry.
std::unique_ptr<DeviceR1cs> r1cs_upload(int32_t device, const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                                        rust::Slice<const uint64_t> coefficients, uint64_t num_inputs,
                                        uint64_t num_aux);

/// As r1cs_upload with the matrices left where they are, registered with
/// the driver (pinned and mapped); the caller keeps them allocated and
/// unchanged until the shape is destroyed.
std::unique_ptr<DeviceR1cs> r1cs_upload_mapped(int32_t device, const R1csMatrix& a, const R1csMatrix& b,
                                               const R1csMatrix& c, rust::Slice<const uint64_t> coefficients,
                                               uint64_t num_inputs, uint64_t num_aux);

/// Bytes of the shape's matrices that its device reads from host memory
/// (arrays that share a page with another registered one are copied).
uint64_t r1cs_host_bytes(const DeviceR1cs& shape);

/// a, b, c (one scalar per row each) of the witness on the shape's device;
/// fails with `unsatisfied(row=R)` naming the lowest row where a·b ≠ c (the
/// outputs are written either way).
void r1cs_evaluate(const DeviceR1cs& shape, rust::Slice<const uint64_t> inputs, rust::Slice<const uint64_t> aux,
                   rust::Slice<uint64_t> a, rust::Slice<uint64_t> b, rust::Slice<uint64_t> c);

/// Host test hook: the same checks and row code run on the CPU; `abc` holds
/// a, then b, then c, one scalar per row each.
void r1cs_evaluate_host(const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                        rust::Slice<const uint64_t> coefficients, rust::Slice<const uint64_t> inputs,
                        rust::Slice<const uint64_t> aux, rust::Slice<uint64_t> abc);

}  // namespace cuzk
