//! The device side of a resident shape (spmv.hpp), for the translation units
//! that launch evaluations: spmv.cu's own entry points and the quotient
//! engine (quotient.cu), which writes a and b straight into its NTT buffers.
#pragma once

#include <memory>

#include "../ff/bls12_381.hpp"
#include "../util/cuda_util.cuh"
#include "spmv.hpp"

namespace cuzk::spmv {

/// Device memory of one evaluation besides the shape: the witness, its
/// classes and the lowest unsatisfied row. Grown on demand and reused, so
/// a caller that keeps one (the quotient engine) allocates once.
class scratch {
public:
    /// Room for `vars` witness values on the current device.
    void reserve(uint64_t vars);
    /// Frees the witness and its classes (reserve makes them again).
    void release();
    ff::fr_t* witness() const { return w_->get(); }
    uint8_t* classes() const { return classes_->get(); }
    uint32_t* first_bad() const { return first_bad_->get(); }

private:
    std::unique_ptr<cuda::buffer<ff::fr_t>> w_;
    std::unique_ptr<cuda::buffer<uint8_t>> classes_;
    std::unique_ptr<cuda::buffer<uint32_t>> first_bad_;
};

/// Queues on `s`, behind whatever wrote the witness into `sc`: its
/// classification, then a, b, c of rows [0, len) (len >= shape.rows(); rows
/// past the shape's are zero), noting the lowest unsatisfied row in `sc`.
/// `c` may be null: where every row holds, c = a·b, which the quotient
/// makes from a and b itself instead of storing a third array.
/// The shape's device must be current.
void evaluate_async(const DeviceR1cs& shape, const scratch& sc, ff::fr_t* a, ff::fr_t* b, ff::fr_t* c, uint64_t len,
                    cudaStream_t s);

/// Waits for `s`, then throws unsatisfied(row=R) if the evaluation queued
/// there found an unsatisfied row.
void check_rows(const scratch& sc, cudaStream_t s);

}  // namespace cuzk::spmv
