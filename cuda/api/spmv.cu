//! The resident shape (spmv.hpp, spmv.cuh): upload, evaluation launches and
//! the test entry point r1cs_evaluate.
//!
//! Coefficient indices stay at their recorded width: 16 bits for tables of up
//! to 2^16 entries (every circuit we prove), so a nonzero costs 6 bytes of
//! device memory and of each row's reads instead of 8, and the upload is a
//! plain copy of the host arrays with no widened host copy.
#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "../util/r1cs.hpp"
#include "../spmv/kernels.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "spmv.cuh"

namespace cuzk {

/// Host ranges registered with the driver, counted: a registration is
/// process-wide (portable, every device's context sees it), and the shape
/// of one recording on two GPUs registers the same arrays twice, which the
/// driver refuses; the last user unregisters.
class host_registrations {
public:
    /// Registers [p, p + bytes) or counts one more user of it; false when
    /// the driver refuses because the range shares a page with another
    /// registered array (small arrays of one allocation can): that array
    /// is copied to the device instead.
    static bool acquire(void* p, size_t bytes) {
        std::lock_guard<std::mutex> guard(lock());
        auto it = counts().find(p);
        if (it != counts().end()) {
            it->second++;
            return true;
        }
        const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
        if (e == cudaErrorHostMemoryAlreadyRegistered) {
            cudaGetLastError();
            return false;
        }
        CUZK_CUDA(e);
        counts()[p] = 1;
        return true;
    }
    static void release(void* p) {
        std::lock_guard<std::mutex> guard(lock());
        auto it = counts().find(p);
        if (it == counts().end() || --it->second > 0) return;
        counts().erase(it);
        cudaHostUnregister(p);
    }

private:
    static std::mutex& lock() {
        static std::mutex m;
        return m;
    }
    static std::map<void*, unsigned>& counts() {
        static std::map<void*, unsigned> c;
        return c;
    }
};

/// One array of a matrix where the device reads it: copied into device
/// memory, or left in host memory that the driver pins and maps in place,
/// so the device reads it across the bus and the card keeps the memory
/// (a 2^27 shape is ~5.9 GB, more than a 16 GB card can spare beside the
/// witness and the quotient). The host array must outlive it: the Rust
/// side keeps its recording for as long as the shape (cuzk-ffi's MappedShape).
template <class T>
class shape_array {
public:
    shape_array(const T* host, size_t n, bool on_host) : n_(n) {
        if (n == 0) return;
        const size_t bytes = n * sizeof(T);
        void* p = const_cast<T*>(host);
        if (!on_host || !host_registrations::acquire(p, bytes)) {
            stored_ = std::make_unique<cuda::buffer<T>>(n);
            CUZK_CUDA(cudaMemcpy(stored_->get(), host, bytes, cudaMemcpyHostToDevice));
            ptr_ = stored_->get();
            return;
        }
        host_ = p;
        void* mapped = nullptr;
        const cudaError_t e = cudaHostGetDevicePointer(&mapped, p, 0);
        if (e != cudaSuccess) {
            host_registrations::release(p);
            host_ = nullptr;
            CUZK_CUDA(e);
        }
        ptr_ = static_cast<const T*>(mapped);
    }
    ~shape_array() {
        if (host_) host_registrations::release(host_);
    }
    shape_array(const shape_array&) = delete;
    shape_array& operator=(const shape_array&) = delete;

    const T* get() const { return ptr_; }
    size_t size() const { return n_; }
    /// Bytes the device reads across the bus.
    uint64_t host_bytes() const { return host_ ? n_ * sizeof(T) : 0; }

private:
    size_t n_;
    const T* ptr_ = nullptr;
    void* host_ = nullptr;
    std::unique_ptr<cuda::buffer<T>> stored_;
};

/// One matrix; only the index array of the shape's width is filled.
struct device_matrix {
    shape_array<uint32_t> row_ptr, cols;
    shape_array<uint16_t> narrow;
    shape_array<uint32_t> wide;

    device_matrix(const R1csMatrix& m, bool is_wide, bool on_host)
        : row_ptr(m.row_ptr.data(), m.row_ptr.size(), on_host),
          cols(m.cols.data(), m.cols.size(), on_host),
          narrow(m.narrow.data(), is_wide ? 0 : m.cols.size(), on_host),
          wide(m.wide.data(), is_wide ? m.cols.size() : 0, on_host) {}

    template <class K>
    spmv::csr_view<K> view() const {
        if constexpr (sizeof(K) == 2) return {row_ptr.get(), cols.get(), narrow.get()};
        else return {row_ptr.get(), cols.get(), wide.get()};
    }

    uint64_t host_bytes() const {
        return row_ptr.host_bytes() + cols.host_bytes() + narrow.host_bytes() + wide.host_bytes();
    }
};

struct DeviceR1cs::state {
    device_matrix a, b, c;
    /// The coefficient table stays in device memory either way: every
    /// nonzero's term reads it.
    shape_array<ff::fr_t> table;
    bool wide;

    state(const R1csMatrix& ma, const R1csMatrix& mb, const R1csMatrix& mc, rust::Slice<const uint64_t> coefficients,
          bool is_wide, bool on_host)
        : a(ma, is_wide, on_host),
          b(mb, is_wide, on_host),
          c(mc, is_wide, on_host),
          table(reinterpret_cast<const ff::fr_t*>(coefficients.data()), coefficients.size() / 4, false),
          wide(is_wide) {}

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

namespace {

std::unique_ptr<DeviceR1cs> place(int32_t device, const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                                  rust::Slice<const uint64_t> coefficients, uint64_t num_inputs, uint64_t num_aux,
                                  bool on_host) {
    const r1cs_layout layout =
        check_r1cs(r1cs_view_of(a), r1cs_view_of(b), r1cs_view_of(c), span_of(coefficients), num_inputs, num_aux);
    cuda::use_device(device);
    auto st = std::make_unique<DeviceR1cs::state>(a, b, c, coefficients, layout.wide, on_host);
    return std::make_unique<DeviceR1cs>(device, layout.rows, num_inputs, num_aux, std::move(st));
}

}  // namespace

std::unique_ptr<DeviceR1cs> r1cs_upload(int32_t device, const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                                        rust::Slice<const uint64_t> coefficients, uint64_t num_inputs,
                                        uint64_t num_aux) {
    return place(device, a, b, c, coefficients, num_inputs, num_aux, false);
}

std::unique_ptr<DeviceR1cs> r1cs_upload_mapped(int32_t device, const R1csMatrix& a, const R1csMatrix& b,
                                               const R1csMatrix& c, rust::Slice<const uint64_t> coefficients,
                                               uint64_t num_inputs, uint64_t num_aux) {
    return place(device, a, b, c, coefficients, num_inputs, num_aux, true);
}

uint64_t r1cs_host_bytes(const DeviceR1cs& shape) {
    const DeviceR1cs::state& st = shape.arrays();
    return st.a.host_bytes() + st.b.host_bytes() + st.c.host_bytes();
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
