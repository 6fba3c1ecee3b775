//! The resident shape (spmv.hpp, spmv.cuh): upload, evaluation launches and
//! the test entry point r1cs_evaluate.
//!
//! Coefficient indices stay at their recorded width: 16 bits for tables of up
//! to 2^16 entries (every circuit we prove), so a nonzero costs 6 bytes of
//! device memory and of each row's reads instead of 8, and the upload is a
//! plain copy of the host arrays with no widened host copy.
#include <algorithm>
#include <string>

#include "../util/r1cs.hpp"
#include "../spmv/kernels.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "spmv.cuh"

namespace cuzk {

/// One matrix on the device; only the index array of the shape's width is filled.
struct device_matrix {
    cuda::buffer<uint32_t> row_ptr, cols;
    cuda::buffer<uint16_t> narrow;
    cuda::buffer<uint32_t> wide;

    device_matrix(const R1csMatrix& m, bool is_wide)
        : row_ptr(m.row_ptr.size()),
          cols(m.cols.size()),
          narrow(is_wide ? 0 : m.cols.size()),
          wide(is_wide ? m.cols.size() : 0) {
        copy(row_ptr.get(), m.row_ptr.data(), m.row_ptr.size() * sizeof(uint32_t));
        copy(cols.get(), m.cols.data(), m.cols.size() * sizeof(uint32_t));
        if (is_wide) copy(wide.get(), m.wide.data(), m.cols.size() * sizeof(uint32_t));
        else copy(narrow.get(), m.narrow.data(), m.cols.size() * sizeof(uint16_t));
    }

    static void copy(void* dst, const void* src, size_t bytes) {
        if (bytes != 0) CUZK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    }

    template <class K>
    spmv::csr_view<K> view() const {
        if constexpr (sizeof(K) == 2) return {row_ptr.get(), cols.get(), narrow.get()};
        else return {row_ptr.get(), cols.get(), wide.get()};
    }
};

struct DeviceR1cs::state {
    device_matrix a, b, c;
    cuda::buffer<ff::fr_t> table;
    bool wide;

    state(const R1csMatrix& ma, const R1csMatrix& mb, const R1csMatrix& mc, rust::Slice<const uint64_t> coefficients,
          bool is_wide)
        : a(ma, is_wide), b(mb, is_wide), c(mc, is_wide), table(coefficients.size() / 4), wide(is_wide) {
        device_matrix::copy(table.get(), coefficients.data(), coefficients.size() * sizeof(uint64_t));
    }

    template <class K>
    spmv::r1cs_view<K> view(uint32_t rows) const {
        return {{a.view<K>(), b.view<K>(), c.view<K>()}, table.get(), rows};
    }
};

DeviceR1cs::DeviceR1cs(int32_t device, uint64_t rows, uint64_t num_inputs, uint64_t num_aux,
                       std::unique_ptr<state> s)
    : device_(device), rows_(rows), num_inputs_(num_inputs), num_aux_(num_aux), s_(std::move(s)) {}

DeviceR1cs::~DeviceR1cs() {
    // The arrays are freed on their own device, whichever is current here.
    cudaSetDevice(device_);
    s_.reset();
}

namespace spmv {
namespace {

constexpr unsigned THREADS = 256;

template <class T>
void grow(std::unique_ptr<cuda::buffer<T>>& b, uint64_t n) {
    if (!b || b->size() < n) {
        b.reset();  // free the old one before asking for the new one
        b = std::make_unique<cuda::buffer<T>>(n);
    }
}

}  // namespace

void scratch::reserve(uint64_t vars) {
    // At least one element each, so the pointers are valid even for an empty witness.
    grow(w_, std::max<uint64_t>(vars, 1));
    grow(classes_, std::max<uint64_t>(vars, 1));
    grow(first_bad_, 1);
}

void scratch::release() {
    w_.reset();
    classes_.reset();
}

void evaluate_async(const DeviceR1cs& shape, const scratch& sc, ff::fr_t* a, ff::fr_t* b, ff::fr_t* c, uint64_t len,
                    cudaStream_t s) {
    if (len < shape.rows())
        throw_invalid("spmv: " + std::to_string(len) + " outputs for " + std::to_string(shape.rows()) + " rows");
    CUZK_CUDA(cudaMemsetAsync(sc.first_bad(), 0xff, sizeof(uint32_t), s));
    const uint64_t vars = shape.num_inputs() + shape.num_aux();
    if (vars != 0) {
        classify_kernel<<<cuda::blocks_for(vars, THREADS), THREADS, 0, s>>>(sc.witness(), vars, sc.classes());
        CUZK_LAUNCHED();
    }
    if (len == 0) return;
    const witness_view w{sc.witness(), sc.classes()};
    const DeviceR1cs::state& st = shape.arrays();
    const uint32_t rows = uint32_t(shape.rows());
    const unsigned blocks = cuda::blocks_for(len, THREADS);
    if (st.wide) {
        rows_kernel<uint32_t><<<blocks, THREADS, 0, s>>>(st.view<uint32_t>(rows), w, a, b, c, len, sc.first_bad());
    } else {
        rows_kernel<uint16_t><<<blocks, THREADS, 0, s>>>(st.view<uint16_t>(rows), w, a, b, c, len, sc.first_bad());
    }
    CUZK_LAUNCHED();
}

void check_rows(const scratch& sc, cudaStream_t s) {
    uint32_t bad = NO_ROW;
    CUZK_CUDA(cudaMemcpyAsync(&bad, sc.first_bad(), sizeof(bad), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    if (bad != NO_ROW) throw_unsatisfied(bad);
}

}  // namespace spmv

std::unique_ptr<DeviceR1cs> r1cs_upload(int32_t device, const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                                        rust::Slice<const uint64_t> coefficients, uint64_t num_inputs,
                                        uint64_t num_aux) {
    const r1cs_layout layout =
        check_r1cs(r1cs_view_of(a), r1cs_view_of(b), r1cs_view_of(c), span_of(coefficients), num_inputs, num_aux);
    cuda::use_device(device);
    auto st = std::make_unique<DeviceR1cs::state>(a, b, c, coefficients, layout.wide);
    return std::make_unique<DeviceR1cs>(device, layout.rows, num_inputs, num_aux, std::move(st));
}

void r1cs_evaluate(const DeviceR1cs& shape, rust::Slice<const uint64_t> inputs, rust::Slice<const uint64_t> aux,
                   rust::Slice<uint64_t> a, rust::Slice<uint64_t> b, rust::Slice<uint64_t> c) {
    const uint64_t rows = shape.rows();
    if (inputs.size() != 4 * shape.num_inputs() || aux.size() != 4 * shape.num_aux())
        throw_invalid("r1cs_evaluate: the shape has " + std::to_string(shape.num_inputs()) + " inputs and " +
                      std::to_string(shape.num_aux()) + " aux variables, the witness " +
                      std::to_string(inputs.size() / 4) + " and " + std::to_string(aux.size() / 4) + " (4 limbs each)");
    if (a.size() != 4 * rows || b.size() != 4 * rows || c.size() != 4 * rows)
        throw_invalid("r1cs_evaluate: a, b and c must hold " + std::to_string(rows) + " scalars each");
    cuda::use_device(shape.device());
    cuda::stream s;
    spmv::scratch sc;
    sc.reserve(shape.num_inputs() + shape.num_aux());
    if (!inputs.empty())
        CUZK_CUDA(cudaMemcpyAsync(sc.witness(), inputs.data(), inputs.size() * 8, cudaMemcpyHostToDevice, s));
    if (!aux.empty())
        CUZK_CUDA(cudaMemcpyAsync(sc.witness() + shape.num_inputs(), aux.data(), aux.size() * 8,
                                  cudaMemcpyHostToDevice, s));
    cuda::buffer<ff::fr_t> da(rows), db(rows), dc(rows);
    spmv::evaluate_async(shape, sc, da.get(), db.get(), dc.get(), rows, s);
    const size_t bytes = rows * sizeof(ff::fr_t);
    if (bytes != 0) {
        CUZK_CUDA(cudaMemcpyAsync(a.data(), da.get(), bytes, cudaMemcpyDeviceToHost, s));
        CUZK_CUDA(cudaMemcpyAsync(b.data(), db.get(), bytes, cudaMemcpyDeviceToHost, s));
        CUZK_CUDA(cudaMemcpyAsync(c.data(), dc.get(), bytes, cudaMemcpyDeviceToHost, s));
    }
    spmv::check_rows(sc, s);
}

}  // namespace cuzk
