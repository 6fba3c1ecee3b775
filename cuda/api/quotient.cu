//! The quotient H = (a·b − c)/Z of the Groth16 host function (groth16.hpp's
//! quotient_engine), every transform on the device, in one of two layouts:
//!   - overlapped: five n-scalar buffers kept between calls (a, b, c and
//!     two results taken in turn), so one circuit's H MSM reads its h while
//!     the next circuit's quotient is computed; out-of-place transforms.
//!   - lean: three buffers, allocated by each call as it goes and freed
//!     when its h has been read; in-place transforms; calls one after the
//!     other. 2^27 takes 12.9 GB instead of 21.5 GB (with the twiddles,
//!     15.0 instead of 23.6): what a 24 GB card can hold beside a shape.
//!   - spilled: as lean with two buffers: c = a·b waits in pinned host
//!     memory while a and b are transformed, and the twiddles are built by
//!     each call once the witness is gone. 2^27 peaks at 12.9 GB (the
//!     witness with a and b) instead of 15.0 + the witness's phase beside
//!     the twiddles kept: what a 16 GB card can hold.
#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../ntt/domain.hpp"
#include "../ntt/roots.hpp"
#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "groth16.hpp"
#include "host_copy.hpp"
#include "spmv.cuh"
#include "../util/timer.cuh"

namespace cuzk::g16 {
namespace {

using ff::fr_t;

constexpr unsigned THREADS = 256;

/// a·b into out (which may be a): c's values on the domain, or the
/// product's on the coset.
__global__ void product_kernel(fr_t* out, const fr_t* a, const fr_t* b, uint64_t n) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * b[i];
}

/// (r − c)·z_inv into r: h's coefficients from those of r = a·b mod
/// (X^n − g^n) and of c (quotient_engine::state::divide_to_h).
__global__ void subtract_scaled_kernel(fr_t* r, const fr_t* c, fr_t z_inv, uint64_t n) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) r[i] = (r[i] - c[i]) * z_inv;
}

fr_t pow2_power(fr_t x, uint32_t log) {
    for (uint32_t i = 0; i < log; i++) x = x.sqr();
    return x;
}

/// Bytes per pinned staging buffer of the uploads of a and b (and the rest)
/// for a domain of n: a 16th of n scalars, 32 to 256 MiB. Each buffer is
/// filled by every copy thread at once, a fork and a join per buffer; while
/// synthesis kept the 16 cores busy, 128 joins of 16 threads (a 4 GB
/// witness in 32 MiB) each waited for the slowest thread to get a core,
/// and a 2^27 WindowPoSt witness took 0.9-1.0 s to leave host memory
/// instead of 0.1 s. Sixteen buffers' worth wait 8 times less.
uint64_t stage_bytes(uint64_t n) {
    return std::clamp<uint64_t>(n * sizeof(fr_t) / 16, uint64_t(32) << 20, uint64_t(256) << 20);
}

using scalars = std::unique_ptr<cuda::buffer<fr_t>>;

scalars scalar_buffer(uint64_t n) { return std::make_unique<cuda::buffer<fr_t>>(n); }

}  // namespace

struct quotient_engine::state {
    int32_t device;
    uint32_t log_n;
    uint64_t n;
    quotient_layout layout;
    /// One h at a time (lean or spilled).
    bool lean;
    /// Transforms run on `s`, uploads on `copy`, so the upload of b
    /// overlaps a's transforms.
    cuda::stream s, copy;
    /// a, b, c, and (overlapped only) h in one of two result buffers (each
    /// call's transform scratch too), taken in turn, so the caller's H MSM
    /// can read one circuit's h while the next call computes the next
    /// circuit's. Lean: a holds h; null between calls.
    scalars a, b, c, t[2];
    unsigned slot = 0;
    /// The transforms' tables: kept, but built by each spilled call and
    /// freed when it ends.
    std::unique_ptr<ntt::domain> dom;
    /// Spilled: c's n scalars while a and b are transformed (pinned, so the
    /// device writes and reads them across the bus).
    std::unique_ptr<pinned_memory> spill;
    cuda::event spilled, freed;
    fr_t z_inv;
    /// The arrays over the results: overlapped, one per t[k], made once,
    /// since the caller still reads one while the next call runs; lean,
    /// result[0] over a, made by each call.
    std::unique_ptr<DeviceArray> result[2];
    /// Two pinned staging buffers, each free again once its event fires.
    const uint64_t stage_len;
    pinned_memory stage[2];
    cuda::event staged[2], uploaded;
    /// Up to 16 copy threads: 16 read ~60 GB/s on the H200's host, above
    /// the DMA's 55 (8 read ~47); the split waits for the first circuit's
    /// copies, so they have the cores to themselves (PERF round 43).
    copy_pool copier{std::max(1u, std::min(16u, std::thread::hardware_concurrency()))};
    /// The witness of run_recorded, kept between calls like the buffers
    /// (lean: freed once a and b are made).
    spmv::scratch witness;
    /// Values the last call left in `witness`: 0 unless it was run_recorded,
    /// succeeded and kept them.
    uint64_t witness_len = 0;

    state(int32_t id, uint32_t log, quotient_layout l)
        : device(id), log_n(log), n(uint64_t(1) << log), layout(l), lean(l != quotient_layout::overlapped),
          stage_len(stage_bytes(n)), stage{pinned_memory(stage_len), pinned_memory(stage_len)} {
        const fr_t g = fr_t::from_u32(ff::fr_params::GENERATOR);
        z_inv = (pow2_power(g, log_n) - fr_t::one()).inverse();
        if (layout == quotient_layout::spilled) {
            spill = std::make_unique<pinned_memory>(n * sizeof(fr_t));
            return;
        }
        dom = std::make_unique<ntt::domain>(log, s);
        if (lean) return;
        a = scalar_buffer(n);
        b = scalar_buffer(n);
        c = scalar_buffer(n);
        for (unsigned k = 0; k < 2; k++) {
            t[k] = scalar_buffer(n);
            result[k] = std::make_unique<DeviceArray>(device, ArrayKind::Scalar, n, t[k]->get(), nullptr);
        }
    }

    /// Lean: frees the buffers, the last h with them, once the queued work
    /// is done (spilled: the twiddles too). Overlapped: nothing (they are
    /// kept).
    void release() {
        if (!lean) return;
        s.sync();
        copy.sync();
        result[0].reset();
        a.reset();
        b.reset();
        c.reset();
        if (layout == quotient_layout::spilled) dom.reset();
    }

    /// The array over this call's h: overlapped, the slot's; lean, a new
    /// one over a.
    const DeviceArray& publish() {
        if (!lean) return *result[slot];
        result[0] = std::make_unique<DeviceArray>(device, ArrayKind::Scalar, n, a->get(), nullptr);
        return *result[0];
    }

    /// Overlapped: this call's result and scratch buffer, the one the call
    /// before did not use.
    fr_t* take_slot() {
        slot ^= 1;
        return t[slot]->get();
    }

    /// Queues the copy of `bytes` from host memory to `dst` on the copy
    /// stream through the two pinned staging buffers: the host fills one
    /// while the other drains.
    void upload_staged(void* dst, const void* host, uint64_t bytes) {
        const auto* src = static_cast<const uint8_t*>(host);
        auto* out = static_cast<uint8_t*>(dst);
        for (uint64_t off = 0, k = 0; off < bytes; off += stage_len, k ^= 1) {
            const uint64_t len = std::min(stage_len, bytes - off);
            CUZK_CUDA(cudaEventSynchronize(staged[k]));
            copier.copy(stage[k].data(), src + off, len);
            CUZK_CUDA(cudaMemcpyAsync(out + off, stage[k].data(), len, cudaMemcpyHostToDevice, copy));
            CUZK_CUDA(cudaEventRecord(staged[k], copy));
        }
    }

    /// Makes the transform stream wait for the uploads queued so far.
    void wait_for_uploads() {
        CUZK_CUDA(cudaEventRecord(uploaded, copy));
        CUZK_CUDA(cudaStreamWaitEvent(s, uploaded, 0));
    }

    /// Uploads m evaluations (upload_staged), zero-padded to n, and makes
    /// the transform stream wait for them.
    void upload_evaluations(fr_t* buf, const uint64_t* host, uint64_t m) {
        if (m < n) CUZK_CUDA(cudaMemsetAsync(buf + m, 0, (n - m) * sizeof(fr_t), copy));
        upload_staged(buf, host, m * sizeof(fr_t));
        wait_for_uploads();
    }

    /// [inputs | aux] into the witness through the staging buffers.
    void upload_witness(const uint64_t* inputs, uint64_t num_inputs, const uint64_t* aux, uint64_t num_aux) {
        witness.reserve(num_inputs + num_aux);
        upload_staged(witness.witness(), inputs, num_inputs * sizeof(fr_t));
        upload_staged(witness.witness() + num_inputs, aux, num_aux * sizeof(fr_t));
    }

    /// out = in·rhs elementwise, on stream `on` (the transform stream by
    /// default).
    void product(fr_t* out, const fr_t* in, const fr_t* rhs, cudaStream_t on = nullptr) {
        product_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, on ? on : cudaStream_t(s)>>>(out, in, rhs, n);
        CUZK_LAUNCHED();
    }

    /// Makes stream `later` wait for the work queued on `earlier` so far.
    void order(cudaStream_t earlier, cudaStream_t later, cudaEvent_t ev) {
        CUZK_CUDA(cudaEventRecord(ev, earlier));
        CUZK_CUDA(cudaStreamWaitEvent(later, ev, 0));
    }

    /// r = (r − c)·z_inv, on the transform stream.
    void subtract_scaled(fr_t* r, const fr_t* cs) {
        subtract_scaled_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(r, cs, z_inv, n);
        CUZK_LAUNCHED();
    }

    /// Overlapped: buf's evaluations on the domain to its evaluations on
    /// the coset, through t[slot].
    void move_to_coset(fr_t* buf) {
        dom->run(buf, t[slot]->get(), true, false, s);
        dom->run(t[slot]->get(), buf, false, true, s);
    }

    /// Overlapped: h's coefficients into t[slot], from a and b on the coset
    /// and c's evaluations on the domain, in six transforms instead of
    /// seven: c enters linearly, so with r = a·b mod (X^n − g^n), the
    /// polynomial that the inverse coset transform of a·b's values gives,
    /// h = (a·b − c)/Z agrees with (r − c)/(g^n − 1) on the coset, and both
    /// have degree below n, so they are equal. c needs its coefficients
    /// only, not its coset values.
    void divide_to_h() {
        product(a->get(), a->get(), b->get());
        dom->run(c->get(), b->get(), true, false, s);
        dom->run(a->get(), t[slot]->get(), true, true, s);
        subtract_scaled(t[slot]->get(), b->get());
    }

    /// Overlapped: h into t[slot] from a and b on the domain (run_recorded's),
    /// c = a·b made here.
    void overlapped_h() {
        product(c->get(), a->get(), b->get());
        for (fr_t* buf : {a->get(), b->get()}) move_to_coset(buf);
        divide_to_h();
    }

    /// Lean and spilled: buf's evaluations on the domain to its evaluations
    /// on the coset, in place.
    void coset_in_place(fr_t* buf) {
        dom->run_in_place(buf, true, false, s);
        dom->run_in_place(buf, false, true, s);
    }

    /// Lean: h into a, from a and b on the domain, the same six transforms
    /// in place, c allocated here (after the witness was freed) and b and c
    /// freed when done.
    const DeviceArray& lean_h() {
        if (layout == quotient_layout::spilled) return spilled_h();
        c = scalar_buffer(n);
        product(c->get(), a->get(), b->get());
        for (fr_t* buf : {a->get(), b->get()}) coset_in_place(buf);
        product(a->get(), a->get(), b->get());
        dom->run_in_place(a->get(), true, true, s);
        dom->run_in_place(c->get(), true, false, s);
        subtract_scaled(a->get(), c->get());
        s.sync();
        b.reset();
        c.reset();
        return publish();
    }

    /// Spilled: as lean_h with two device buffers. The product kernel
    /// writes c = a·b across the bus into pinned host memory (on the copy
    /// stream, while the twiddles are built); a and b go to the coset and
    /// their product into a, which frees b's buffer for c to come back to
    /// while a's inverse transform runs. c's round trip is what the layout
    /// costs: 2 × 4.3 GB of bus traffic per circuit at 2^27.
    const DeviceArray& spilled_h() {
        // Memory of cudaHostAlloc is device-accessible at its host address
        // under unified addressing (every 64-bit platform CUDA 13 runs on),
        // whatever flags it was allocated with.
        fr_t* c_host = static_cast<fr_t*>(spill->data());
        order(s, copy, spilled);
        product(c_host, a->get(), b->get(), copy);
        CUZK_CUDA(cudaEventRecord(spilled, copy));
        dom = std::make_unique<ntt::domain>(log_n, s);
        CUZK_CUDA(cudaStreamWaitEvent(s, spilled, 0));
        for (fr_t* buf : {a->get(), b->get()}) coset_in_place(buf);
        product(a->get(), a->get(), b->get());
        order(s, copy, freed);
        CUZK_CUDA(cudaMemcpyAsync(b->get(), spill->data(), n * sizeof(fr_t), cudaMemcpyHostToDevice, copy));
        dom->run_in_place(a->get(), true, true, s);
        wait_for_uploads();
        dom->run_in_place(b->get(), true, false, s);
        subtract_scaled(a->get(), b->get());
        s.sync();
        b.reset();
        dom.reset();
        return publish();
    }
};

namespace {

/// One quotient state kept per device between calls, so a call does not
/// allocate its buffers, pin staging buffers and rebuild twiddles every
/// time; a call for another domain size or layout replaces it.
struct idle_states {
    std::mutex lock;
    std::vector<std::unique_ptr<quotient_engine::state>> states;
};

idle_states& idle() {
    static idle_states pool;
    return pool;
}

}  // namespace

quotient_engine::quotient_engine(int32_t device, uint32_t log_n, quotient_layout layout) {
    if (log_n > ntt::TWO_ADICITY) throw_invalid("quotient: domain 2^" + std::to_string(log_n) + " too large");
    cuda::use_device(device);
    {
        idle_states& pool = idle();
        std::lock_guard<std::mutex> guard(pool.lock);
        for (auto& st : pool.states) {
            if (st && st->device == device && st->log_n == log_n && st->layout == layout) {
                s_ = std::move(st);
                break;
            }
        }
        // A state of this device for another size gives its memory back first.
        for (auto& st : pool.states) {
            if (st && st->device == device) st.reset();
        }
        pool.states.erase(std::remove(pool.states.begin(), pool.states.end(), nullptr), pool.states.end());
    }
    if (!s_) s_ = std::make_unique<state>(device, log_n, layout);
}

quotient_engine::~quotient_engine() {
    if (!s_) return;
    // Only a state whose work all finished is kept: after an error the
    // streams may hold a failed launch, so it is freed instead.
    if (cudaSetDevice(s_->device) != cudaSuccess || cudaStreamSynchronize(s_->copy) != cudaSuccess ||
        cudaStreamSynchronize(s_->s) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    try {
        s_->release();
    } catch (...) {
        return;
    }
    idle_states& pool = idle();
    std::lock_guard<std::mutex> guard(pool.lock);
    pool.states.push_back(std::move(s_));
}

void release_idle_quotients(int32_t device) {
    idle_states& pool = idle();
    std::lock_guard<std::mutex> guard(pool.lock);
    for (auto& st : pool.states) {
        if (st && st->device == device) st.reset();
    }
    pool.states.erase(std::remove(pool.states.begin(), pool.states.end(), nullptr), pool.states.end());
}

bool quotient_engine::lean() const { return s_->lean; }

void quotient_engine::release() {
    cuda::use_device(s_->device);
    s_->release();
}

void quotient_engine::upload(const DeviceArray& dst, const void* host) {
    state& st = *s_;
    if (dst.device() != st.device)
        throw_invalid("upload: the array is on device " + std::to_string(dst.device()) + ", the engine on device " +
                      std::to_string(st.device));
    cuda::use_device(st.device);
    st.upload_staged(dst.data(), host, dst.len() * array_element_bytes(dst.kind()));
    st.copy.sync();
}

const DeviceArray& quotient_engine::run(const uint64_t* a, const uint64_t* b, uint64_t m,
                                       const std::function<void()>& host_read) {
    state& st = *s_;
    if (m == 0 || m > st.n)
        throw_invalid("quotient: " + std::to_string(m) + " evaluations for a domain of " + std::to_string(st.n));
    cuda::use_device(st.device);
    st.witness_len = 0;
    st.release();
    if (st.lean) {
        st.a = scalar_buffer(st.n);
        st.b = scalar_buffer(st.n);
    }
    fr_t* h = st.lean ? st.a->get() : st.take_slot();
    if (st.log_n == 0) {
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(h, 0, sizeof(fr_t), st.s));
        if (host_read) host_read();
        st.s.sync();
        return st.publish();
    }
    if (st.lean) {
        st.upload_evaluations(st.a->get(), a, m);
        st.upload_evaluations(st.b->get(), b, m);
        if (host_read) host_read();
        return st.lean_h();
    }
    // a's values go to c's buffer, where they wait for b's to make c = a·b
    // on the domain; a's transforms to the coset run while b uploads.
    st.upload_evaluations(st.c->get(), a, m);
    st.dom->run(st.c->get(), h, true, false, st.s);
    st.dom->run(h, st.a->get(), false, true, st.s);
    st.upload_evaluations(st.b->get(), b, m);
    if (host_read) host_read();
    st.product(st.c->get(), st.c->get(), st.b->get());
    st.move_to_coset(st.b->get());
    st.divide_to_h();
    st.s.sync();
    return st.publish();
}

const DeviceArray& quotient_engine::run_recorded(const DeviceR1cs& shape, const uint64_t* inputs, uint64_t num_inputs,
                                                 const uint64_t* aux, uint64_t num_aux,
                                                 const std::function<void()>& host_read) {
    state& st = *s_;
    const uint64_t m = shape.rows();
    if (m == 0 || m > st.n)
        throw_invalid("quotient: " + std::to_string(m) + " constraints for a domain of " + std::to_string(st.n));
    cuda::use_device(st.device);
    st.witness_len = 0;
    st.release();
    fr_t* h = st.lean ? nullptr : st.take_slot();
    st.upload_witness(inputs, num_inputs, aux, num_aux);
    if (host_read) host_read();
    st.wait_for_uploads();
    if (st.lean) {
        st.a = scalar_buffer(st.n);
        st.b = scalar_buffer(st.n);
    }
    // Rows past the shape's come out zero: the padding to the domain. c is
    // a·b where every row holds, and the call fails where one does not.
    spmv::evaluate_async(shape, st.witness, st.a->get(), st.b->get(), nullptr, st.n, st.s);
    if (st.lean) {
        // Checked before the witness goes: its memory is c's.
        spmv::check_rows(st.witness, st.s);
        st.witness.release();
        if (st.log_n > 0) return st.lean_h();
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(st.a->get(), 0, sizeof(fr_t), st.s));
        st.s.sync();
        return st.publish();
    }
    if (st.log_n == 0) {
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(h, 0, sizeof(fr_t), st.s));
    } else {
        st.overlapped_h();
    }
    spmv::check_rows(st.witness, st.s);
    st.witness_len = num_inputs + num_aux;
    return st.publish();
}

std::unique_ptr<DeviceArray> quotient_engine::recorded_witness() const {
    const state& st = *s_;
    if (st.witness_len == 0) return nullptr;
    return std::make_unique<DeviceArray>(st.device, ArrayKind::Scalar, st.witness_len, st.witness.witness(), nullptr);
}

}  // namespace cuzk::g16
