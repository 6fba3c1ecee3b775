//! Device helpers of the Groth16 host function (declared in groth16.hpp):
//! SRS memory, gathers, and the quotient H with every NTT stage on the device.
#include <algorithm>
#include <cstring>
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

/// cudaMalloc'd memory owned by a DeviceArray, freed on its own device.
struct owned {
    int32_t device;
    cuda::buffer<uint8_t> mem;
};

std::unique_ptr<DeviceArray> own_array(int32_t id, ArrayKind kind, uint64_t len) {
    auto* o = new owned{id, cuda::buffer<uint8_t>(len * array_element_bytes(kind))};
    std::shared_ptr<void> owner(o, [](void* p) {
        auto* m = static_cast<owned*>(p);
        cudaSetDevice(m->device);
        delete m;
    });
    return std::make_unique<DeviceArray>(id, kind, len, o->mem.get(), owner);
}

/// One element of an array kind as plain limbs, for kernels that only move data.
template <int LIMBS>
struct element {
    uint64_t limb[LIMBS];
};

template <class T>
__global__ void gather_kernel(const T* src, const uint32_t* positions, uint64_t count, T* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) out[i] = src[positions[i]];
}

template <class T>
void gather_as(const DeviceArray& src, const uint32_t* positions, uint64_t count, const DeviceArray& out) {
    cuda::stream s;
    cuda::scratch<uint32_t> pos(count, s);
    CUZK_CUDA(cudaMemcpyAsync(pos.get(), positions, count * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    gather_kernel<T><<<cuda::blocks_for(count, THREADS), THREADS, 0, s>>>(
        static_cast<const T*>(src.data()), pos.get(), count, static_cast<T*>(out.data()));
    CUZK_LAUNCHED();
    s.sync();
}

/// out[before[w] + (set bits of word w below bit b)] = src[64 w + b] for
/// every set bit b of density word w: the selected scalars in order.
__global__ void compact_kernel(const fr_t* src, uint64_t n, const uint64_t* density, const uint64_t* before,
                               fr_t* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t word = density[i / 64], bit = i % 64;
    if (!((word >> bit) & 1)) return;
    out[before[i / 64] + uint64_t(__popcll(word & ((uint64_t(1) << bit) - 1)))] = src[i];
}

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

}  // namespace

pinned_memory::pinned_memory(uint64_t bytes)
    : data_(cuda::allocate(cuda::memory_kind::pinned, bytes)), bytes_(bytes) {}

pinned_memory::~pinned_memory() { cuda::release(cuda::memory_kind::pinned, data_, bytes_); }

void device_memory(int32_t id, uint64_t* free, uint64_t* total) {
    cuda::use_device(id);
    cuda::memory_info(free, total);
}

std::unique_ptr<DeviceArray> allocate(int32_t id, ArrayKind kind, uint64_t len) {
    cuda::use_device(id);
    return own_array(id, kind, len);
}

void copy_to_device(const DeviceArray& dst, const void* host) {
    const uint64_t bytes = dst.len() * array_element_bytes(dst.kind());
    if (bytes == 0) return;
    cuda::use_device(dst.device());
    CUZK_CUDA(cudaMemcpy(dst.data(), host, bytes, cudaMemcpyHostToDevice));
}

std::unique_ptr<DeviceArray> gather(const DeviceArray& src, const uint32_t* positions, uint64_t count) {
    for (uint64_t i = 0; i < count; i++) {
        if (positions[i] >= src.len())
            throw_invalid("gather: position " + std::to_string(positions[i]) + " past " + std::to_string(src.len()) +
                          " elements");
    }
    cuda::use_device(src.device());
    auto out = own_array(src.device(), src.kind(), count);
    if (count == 0) return out;
    switch (src.kind()) {
        case ArrayKind::G1Affine: gather_as<element<12>>(src, positions, count, *out); break;
        case ArrayKind::G2Affine: gather_as<element<24>>(src, positions, count, *out); break;
        case ArrayKind::Scalar: gather_as<element<4>>(src, positions, count, *out); break;
    }
    return out;
}

void compact(const DeviceArray& src, const uint64_t* density, const DeviceArray& out) {
    if (src.kind() != ArrayKind::Scalar || out.kind() != ArrayKind::Scalar)
        throw_invalid("compact: scalars only");
    if (src.device() != out.device()) throw_invalid("compact: the input and the output are on different devices");
    const uint64_t n = src.len(), words = (n + 63) / 64;
    // Ranks of the words on the host (a popcount per word, ~2 M words for
    // 2^27 scalars), so that the device needs no scan; bits past n ignored.
    std::vector<uint64_t> masked(density, density + words), before(words);
    if (n % 64 != 0) masked[words - 1] &= (uint64_t(1) << (n % 64)) - 1;
    uint64_t total = 0;
    for (uint64_t w = 0; w < words; w++) {
        before[w] = total;
        total += uint64_t(__builtin_popcountll(masked[w]));
    }
    if (total != out.len())
        throw_invalid("compact: the density selects " + std::to_string(total) + " of " + std::to_string(n) +
                      " scalars, the output holds " + std::to_string(out.len()));
    if (total == 0) return;
    cuda::use_device(src.device());
    cuda::stream s;
    cuda::scratch<uint64_t> d_density(words, s), d_before(words, s);
    CUZK_CUDA(cudaMemcpyAsync(d_density.get(), masked.data(), words * 8, cudaMemcpyHostToDevice, s));
    CUZK_CUDA(cudaMemcpyAsync(d_before.get(), before.data(), words * 8, cudaMemcpyHostToDevice, s));
    compact_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(static_cast<const fr_t*>(src.data()), n,
                                                                   d_density.get(), d_before.get(),
                                                                   static_cast<fr_t*>(out.data()));
    CUZK_LAUNCHED();
    s.sync();
}

/// Bytes per pinned staging buffer of the uploads of a and b (and the rest)
/// for a domain of n: a 16th of n scalars, 32 to 256 MiB. Each buffer is
/// filled by every copy thread at once, a fork and a join per buffer; while
/// synthesis kept the 16 cores busy, 128 joins of 16 threads (a 4 GB
/// witness in 32 MiB) each waited for the slowest thread to get a core,
/// and a 2^27 WindowPoSt witness took 0.9-1.0 s to leave host memory
/// instead of 0.1 s. Sixteen buffers' worth wait 8 times less.
static uint64_t stage_bytes(uint64_t n) {
    return std::clamp<uint64_t>(n * sizeof(fr_t) / 16, uint64_t(32) << 20, uint64_t(256) << 20);
}

struct quotient_engine::state {
    int32_t device;
    uint32_t log_n;
    uint64_t n;
    /// Transforms run on `s`, uploads on `copy`, so the upload of b
    /// overlaps a's transforms.
    cuda::stream s, copy;
    /// a, b, c, then h in one of two result buffers (each call's transform
    /// scratch too), taken in turn, so the caller's H MSM can read one
    /// circuit's h while the next call computes the next circuit's.
    cuda::buffer<fr_t> a, b, c, t[2];
    unsigned slot = 0;
    ntt::domain dom;
    fr_t z_inv;
    std::unique_ptr<DeviceArray> result[2];
    /// Two pinned staging buffers, each free again once its event fires.
    const uint64_t stage_len;
    pinned_memory stage[2];
    cuda::event staged[2], uploaded;
    /// Up to 16 copy threads: 16 read ~60 GB/s on the H200's host, above
    /// the DMA's 55 (8 read ~47); the split waits for the first circuit's
    /// copies, so they have the cores to themselves (PERF round 43).
    copy_pool copier{std::max(1u, std::min(16u, std::thread::hardware_concurrency()))};
    /// The witness of run_recorded, kept between calls like the buffers.
    spmv::scratch witness;
    /// Values the last call left in `witness`: 0 unless it was run_recorded
    /// and succeeded.
    uint64_t witness_len = 0;

    state(int32_t id, uint32_t log)
        : device(id), log_n(log), n(uint64_t(1) << log), a(n), b(n), c(n), t{cuda::buffer<fr_t>(n), cuda::buffer<fr_t>(n)},
          dom(log, s), stage_len(stage_bytes(n)), stage{pinned_memory(stage_len), pinned_memory(stage_len)} {
        const fr_t g = fr_t::from_u32(ff::fr_params::GENERATOR);
        z_inv = (pow2_power(g, log_n) - fr_t::one()).inverse();
        for (unsigned k = 0; k < 2; k++)
            result[k] = std::make_unique<DeviceArray>(device, ArrayKind::Scalar, n, t[k].get(), nullptr);
    }

    /// This call's result and scratch buffer: the one the call before did not use.
    fr_t* take_slot() {
        slot ^= 1;
        return t[slot].get();
    }

    /// out = transform of in (natural order both; in and out distinct), as
    /// the CPU domain defines it (ntt::domain::run).
    void transform(const fr_t* in, fr_t* out, bool inverse, bool coset) { dom.run(in, out, inverse, coset, s); }

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

    /// Uploads m evaluations (upload_staged), zero-padded to n, and makes
    /// the transform stream wait for them.
    void upload_evaluations(fr_t* buf, const uint64_t* host, uint64_t m) {
        if (m < n) CUZK_CUDA(cudaMemsetAsync(buf + m, 0, (n - m) * sizeof(fr_t), copy));
        upload_staged(buf, host, m * sizeof(fr_t));
        CUZK_CUDA(cudaEventRecord(uploaded, copy));
        CUZK_CUDA(cudaStreamWaitEvent(s, uploaded, 0));
    }

    /// out = in·b elementwise, on the transform stream.
    void product(fr_t* out, const fr_t* in, const fr_t* b) {
        product_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(out, in, b, n);
        CUZK_LAUNCHED();
    }

    /// buf's evaluations on the domain to its evaluations on the coset, in
    /// place (t[slot] is the scratch).
    void move_to_coset(fr_t* buf) {
        transform(buf, t[slot].get(), true, false);
        transform(t[slot].get(), buf, false, true);
    }

    /// h's coefficients into t[slot], from a and b on the coset and c's
    /// evaluations on the domain, in six transforms instead of seven: c enters
    /// linearly, so with r = a·b mod (X^n − g^n), the polynomial that the
    /// inverse coset transform of a·b's values gives, h = (a·b − c)/Z agrees
    /// with (r − c)/(g^n − 1) on the coset, and both have degree below n, so
    /// they are equal. c needs its coefficients only, not its coset values.
    void divide_to_h() {
        product(a.get(), a.get(), b.get());
        transform(c.get(), b.get(), true, false);
        transform(a.get(), t[slot].get(), true, true);
        subtract_scaled_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(t[slot].get(), b.get(), z_inv, n);
        CUZK_LAUNCHED();
    }

    /// [inputs | aux] into the witness through the staging buffers.
    void upload_witness(const uint64_t* inputs, uint64_t num_inputs, const uint64_t* aux, uint64_t num_aux) {
        witness.reserve(num_inputs + num_aux);
        upload_staged(witness.witness(), inputs, num_inputs * sizeof(fr_t));
        upload_staged(witness.witness() + num_inputs, aux, num_aux * sizeof(fr_t));
    }
};

namespace {

/// One quotient state kept per device between calls, so a call does not
/// allocate ~6n scalars of device memory, pin staging buffers and rebuild
/// twiddles every time; a call for another domain size replaces it.
struct idle_states {
    std::mutex lock;
    std::vector<std::unique_ptr<quotient_engine::state>> states;
};

idle_states& idle() {
    static idle_states pool;
    return pool;
}

}  // namespace

quotient_engine::quotient_engine(int32_t device, uint32_t log_n) {
    if (log_n > ntt::TWO_ADICITY) throw_invalid("quotient: domain 2^" + std::to_string(log_n) + " too large");
    cuda::use_device(device);
    {
        idle_states& pool = idle();
        std::lock_guard<std::mutex> guard(pool.lock);
        for (auto& st : pool.states) {
            if (st && st->device == device && st->log_n == log_n) {
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
    if (!s_) s_ = std::make_unique<state>(device, log_n);
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
    fr_t* h = st.take_slot();
    if (st.log_n == 0) {
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(h, 0, sizeof(fr_t), st.s));
        if (host_read) host_read();
        st.s.sync();
        return *st.result[st.slot];
    }
    // a's values go to c's buffer, where they wait for b's to make c = a·b
    // on the domain; a's transforms to the coset run while b uploads.
    st.upload_evaluations(st.c.get(), a, m);
    fr_t* scratch = st.t[st.slot].get();
    st.transform(st.c.get(), scratch, true, false);
    st.transform(scratch, st.a.get(), false, true);
    st.upload_evaluations(st.b.get(), b, m);
    if (host_read) host_read();
    st.product(st.c.get(), st.c.get(), st.b.get());
    st.move_to_coset(st.b.get());
    st.divide_to_h();
    st.s.sync();
    return *st.result[st.slot];
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
    fr_t* h = st.take_slot();
    st.upload_witness(inputs, num_inputs, aux, num_aux);
    if (host_read) host_read();
    CUZK_CUDA(cudaEventRecord(st.uploaded, st.copy));
    CUZK_CUDA(cudaStreamWaitEvent(st.s, st.uploaded, 0));
    // Rows past the shape's come out zero: the padding to the domain.
    spmv::evaluate_async(shape, st.witness, st.a.get(), st.b.get(), st.c.get(), st.n, st.s);
    if (st.log_n == 0) {
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(h, 0, sizeof(fr_t), st.s));
    } else {
        for (fr_t* buf : {st.a.get(), st.b.get()}) st.move_to_coset(buf);
        st.divide_to_h();
    }
    spmv::check_rows(st.witness, st.s);
    st.witness_len = num_inputs + num_aux;
    return *st.result[st.slot];
}

std::unique_ptr<DeviceArray> quotient_engine::recorded_witness() const {
    const state& st = *s_;
    if (st.witness_len == 0) return nullptr;
    return std::make_unique<DeviceArray>(st.device, ArrayKind::Scalar, st.witness_len, st.witness.witness(), nullptr);
}

}  // namespace cuzk::g16
