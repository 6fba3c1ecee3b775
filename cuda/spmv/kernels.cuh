//! The SpMV kernels: classify the witness, then one thread per row computes
//! a, b and c (row.hpp) and notes the lowest row that fails a·b = c.
//!
//! One thread per row keeps a row's three dot products and its check in
//! registers with no inter-thread reduction. Rows are short in the circuits
//! we prove (one to a few terms; MultiEq's packed rows reach a few hundred),
//! so a warp waits on its longest row at worst.
#pragma once

#include "row.hpp"

namespace cuzk::spmv {
namespace {

__global__ void classify_kernel(const fr_t* values, uint64_t n, uint8_t* classes) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) classes[i] = classify(values[i]);
}

/// Rows [0, len): a, b, c of the shape's rows, zeros past them (the
/// quotient's padding to the domain), c left out when null; `first_bad`
/// keeps the lowest unsatisfied row (it starts at NO_ROW).
template <class K>
__global__ void rows_kernel(r1cs_view<K> s, witness_view w, fr_t* a, fr_t* b, fr_t* c, uint64_t len,
                            uint32_t* first_bad) {
    const uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= len) return;
    if (r >= s.rows) {
        a[r] = fr_t::zero();
        b[r] = fr_t::zero();
        if (c) c[r] = fr_t::zero();
        return;
    }
    if (!eval_row(s, w, uint32_t(r), a, b, c)) atomicMin(first_bad, uint32_t(r));
}

}  // namespace
}  // namespace cuzk::spmv
