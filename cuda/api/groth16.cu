// Device helpers of the Groth16 host function (declared in groth16.hpp):
// SRS memory, gathers, and the quotient H with every NTT stage on the device.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// ntt/kernels.cuh defines its kernels with external linkage, and ntt.cu
// includes it too: under relocatable device code two definitions collide at
// the device link. Renaming them for this translation unit keeps the kernels
// shared as source without touching that header; giving them internal
// linkage there would make this unnecessary.
#define split_powers_kernel g16_split_powers_kernel
#define fill_powers_kernel g16_fill_powers_kernel
#define bit_reverse_kernel g16_bit_reverse_kernel
#define shared_stages_kernel g16_shared_stages_kernel
#define radix2_stage_kernel g16_radix2_stage_kernel
#define radix4_stage_kernel g16_radix4_stage_kernel
#define scale_kernel g16_scale_kernel
#include "../ntt/kernels.cuh"
#include "../ntt/roots.hpp"
#include "cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "groth16.hpp"
#include "spmv.cuh"
#include "timer.cuh"

namespace cuzk::g16 {
namespace {

using ff::fr_t;
using ntt::split_powers;

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
    cuda::buffer<uint32_t> pos(count);
    CUZK_CUDA(cudaMemcpyAsync(pos.get(), positions, count * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    gather_kernel<T><<<cuda::blocks_for(count, THREADS), THREADS, 0, s>>>(
        static_cast<const T*>(src.data()), pos.get(), count, static_cast<T*>(out.data()));
    CUZK_LAUNCHED();
    s.sync();
}

/// Powers of one base as two small tables (see ntt::split_powers).
struct power_tables {
    cuda::buffer<fr_t> lo, hi;
    uint32_t lo_log;

    power_tables(fr_t base, uint32_t log_count, cudaStream_t s)
        : lo(size_t(1) << std::min(log_count, 10u)),
          hi(size_t(1) << (log_count - std::min(log_count, 10u))),
          lo_log(std::min(log_count, 10u)) {
        const uint32_t total = uint32_t(lo.size() + hi.size());
        ntt::split_powers_kernel<<<cuda::blocks_for(total, THREADS), THREADS, 0, s>>>(lo.get(), hi.get(), base, lo_log,
                                                                                      uint32_t(hi.size()));
        CUZK_LAUNCHED();
    }
    split_powers view() const { return {lo.get(), hi.get(), lo_log}; }
};

/// (a·b − c)·z_inv into a: the quotient's values on the coset, where Z is
/// the constant g^n − 1.
__global__ void divide_kernel(fr_t* a, const fr_t* b, const fr_t* c, fr_t z_inv, uint64_t n) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (a[i] * b[i] - c[i]) * z_inv;
}

fr_t pow2_power(fr_t x, uint32_t log) {
    for (uint32_t i = 0; i < log; i++) x = x.sqr();
    return x;
}

}  // namespace

pinned_memory::pinned_memory(uint64_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    cudaError_t e = cudaHostAlloc(&data_, bytes, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        data_ = nullptr;
        cuda::fail(e, ("cudaHostAlloc of " + std::to_string(bytes) + " pinned bytes").c_str(), __FILE__, __LINE__);
    }
}

pinned_memory::~pinned_memory() {
    if (data_) cudaFreeHost(data_);
}

void device_memory(int32_t id, uint64_t* free, uint64_t* total) {
    cuda::use_device(id);
    size_t f = 0, t = 0;
    CUZK_CUDA(cudaMemGetInfo(&f, &t));
    *free = f;
    *total = t;
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

/// Bytes per pinned staging buffer of the uploads of a, b and c.
constexpr uint64_t STAGE_BYTES = uint64_t(32) << 20;

/// Copies `bytes` from `src` to `dst` on up to `threads` threads: one
/// thread cannot read pageable memory as fast as the DMA engine drains
/// pinned memory.
void parallel_memcpy(void* dst, const void* src, uint64_t bytes, unsigned threads) {
    const uint64_t per = (bytes + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t * per < bytes; t++) {
        pool.emplace_back([=] {
            std::memcpy(static_cast<uint8_t*>(dst) + t * per, static_cast<const uint8_t*>(src) + t * per,
                        std::min(per, bytes - t * per));
        });
    }
    std::memcpy(dst, src, std::min(per, bytes));
    for (auto& th : pool) th.join();
}

struct quotient_engine::state {
    int32_t device;
    uint32_t log_n;
    uint64_t n;
    /// Transforms run on `s`, uploads on `copy`, so the upload of b and c
    /// overlaps the transforms of a and b.
    cuda::stream s, copy;
    cuda::buffer<fr_t> a, b, c, t, tw_fwd, tw_inv;
    power_tables g_pow, g_inv_pow;
    fr_t n_inv, z_inv;
    std::unique_ptr<DeviceArray> result;
    /// Two pinned staging buffers, each free again once its event fires.
    pinned_memory stage[2]{pinned_memory(STAGE_BYTES), pinned_memory(STAGE_BYTES)};
    cuda::event staged[2], uploaded;
    unsigned copy_threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    /// The witness of run_recorded, kept between calls like the buffers.
    spmv::scratch witness;

    state(int32_t id, uint32_t log)
        : device(id),
          log_n(log),
          n(uint64_t(1) << log),
          a(n),
          b(n),
          c(n),
          t(n),
          tw_fwd(n / 2),
          tw_inv(n / 2),
          g_pow(fr_t::from_u32(ff::fr_params::GENERATOR), log, s),
          g_inv_pow(fr_t::from_u32(ff::fr_params::GENERATOR).inverse(), log, s) {
        const fr_t g = fr_t::from_u32(ff::fr_params::GENERATOR);
        n_inv = fr_t::one();
        for (uint32_t i = 0; i < log_n; i++) n_inv = n_inv.dbl();
        n_inv = n_inv.inverse();
        z_inv = (pow2_power(g, log_n) - fr_t::one()).inverse();
        if (log_n > 0) {
            const fr_t w = ntt::root_of_unity(log_n);
            fill_twiddles(tw_fwd.get(), w);
            fill_twiddles(tw_inv.get(), w.inverse());
        }
        result = std::make_unique<DeviceArray>(device, ArrayKind::Scalar, n, t.get(), nullptr);
    }

    void fill_twiddles(fr_t* out, fr_t w) {
        power_tables parts(w, log_n - 1, s);
        ntt::fill_powers_kernel<<<cuda::blocks_for(n / 2, THREADS), THREADS, 0, s>>>(out, parts.view(), n / 2);
        CUZK_LAUNCHED();
        s.sync();  // the tables' memory is freed when `parts` goes out of scope
    }

    /// out = transform of in (natural order both; in and out distinct), as
    /// the CPU domain defines it: inverse transforms scale by 1/n, coset
    /// forward multiplies by g^i first, coset inverse by g^-i last.
    void transform(const fr_t* in, fr_t* out, bool inverse, bool coset) {
        const fr_t* tw = inverse ? tw_inv.get() : tw_fwd.get();
        ntt::bit_reverse_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(in, out, log_n, coset && !inverse,
                                                                                 g_pow.view());
        CUZK_LAUNCHED();
        const uint32_t first = std::min(log_n, ntt::SHARED_LOG);
        ntt::shared_stages_kernel<<<unsigned(n >> first), 1u << (first - 1), 0, s>>>(out, tw, log_n, first);
        CUZK_LAUNCHED();
        uint32_t st = first;
        for (; st + 2 <= log_n; st += 2) {
            ntt::radix4_stage_kernel<<<cuda::blocks_for(n / 4, THREADS), THREADS, 0, s>>>(out, tw, log_n, st);
            CUZK_LAUNCHED();
        }
        if (st < log_n) {
            ntt::radix2_stage_kernel<<<cuda::blocks_for(n / 2, THREADS), THREADS, 0, s>>>(out, tw, log_n, st);
            CUZK_LAUNCHED();
        }
        if (inverse) {
            ntt::scale_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(out, n_inv, log_n, coset,
                                                                               g_inv_pow.view());
            CUZK_LAUNCHED();
        }
    }

    /// Uploads m evaluations through the pinned staging buffers on the copy
    /// stream (the host fills one buffer while the other drains), zero-pads
    /// to n, and queues their move to the coset behind the upload.
    void to_coset(fr_t* buf, const uint64_t* host, uint64_t m) {
        if (m < n) CUZK_CUDA(cudaMemsetAsync(buf + m, 0, (n - m) * sizeof(fr_t), copy));
        const uint64_t bytes = m * sizeof(fr_t);
        const auto* src = reinterpret_cast<const uint8_t*>(host);
        auto* dst = reinterpret_cast<uint8_t*>(buf);
        for (uint64_t off = 0, k = 0; off < bytes; off += STAGE_BYTES, k ^= 1) {
            const uint64_t len = std::min(STAGE_BYTES, bytes - off);
            CUZK_CUDA(cudaEventSynchronize(staged[k]));
            parallel_memcpy(stage[k].data(), src + off, len, copy_threads);
            CUZK_CUDA(cudaMemcpyAsync(dst + off, stage[k].data(), len, cudaMemcpyHostToDevice, copy));
            CUZK_CUDA(cudaEventRecord(staged[k], copy));
        }
        CUZK_CUDA(cudaEventRecord(uploaded, copy));
        CUZK_CUDA(cudaStreamWaitEvent(s, uploaded, 0));
        transform(buf, t.get(), true, false);
        transform(t.get(), buf, false, true);
    }

    /// Queues the copy of `bytes` from host memory to `dst` on the copy
    /// stream through the pinned staging buffers, as to_coset does.
    void upload_staged(void* dst, const void* host, uint64_t bytes) {
        const auto* src = static_cast<const uint8_t*>(host);
        auto* out = static_cast<uint8_t*>(dst);
        for (uint64_t off = 0, k = 0; off < bytes; off += STAGE_BYTES, k ^= 1) {
            const uint64_t len = std::min(STAGE_BYTES, bytes - off);
            CUZK_CUDA(cudaEventSynchronize(staged[k]));
            parallel_memcpy(stage[k].data(), src + off, len, copy_threads);
            CUZK_CUDA(cudaMemcpyAsync(out + off, stage[k].data(), len, cudaMemcpyHostToDevice, copy));
            CUZK_CUDA(cudaEventRecord(staged[k], copy));
        }
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

const DeviceArray& quotient_engine::run(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t m) {
    state& st = *s_;
    if (m == 0 || m > st.n)
        throw_invalid("quotient: " + std::to_string(m) + " evaluations for a domain of " + std::to_string(st.n));
    cuda::use_device(st.device);
    if (st.log_n == 0) {
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(st.t.get(), 0, sizeof(fr_t), st.s));
        st.s.sync();
        return *st.result;
    }
    st.to_coset(st.a.get(), a, m);
    st.to_coset(st.b.get(), b, m);
    st.to_coset(st.c.get(), c, m);
    divide_kernel<<<cuda::blocks_for(st.n, THREADS), THREADS, 0, st.s>>>(st.a.get(), st.b.get(), st.c.get(), st.z_inv,
                                                                         st.n);
    CUZK_LAUNCHED();
    st.transform(st.a.get(), st.t.get(), true, true);
    st.s.sync();
    return *st.result;
}

const DeviceArray& quotient_engine::run_recorded(const DeviceR1cs& shape, const uint64_t* inputs, uint64_t num_inputs,
                                                 const uint64_t* aux, uint64_t num_aux) {
    state& st = *s_;
    const uint64_t m = shape.rows();
    if (shape.device() != st.device)
        throw_invalid("quotient: the shape is on device " + std::to_string(shape.device()) + ", not device " +
                      std::to_string(st.device));
    if (m == 0 || m > st.n)
        throw_invalid("quotient: " + std::to_string(m) + " constraints for a domain of " + std::to_string(st.n));
    if (num_inputs != shape.num_inputs() || num_aux != shape.num_aux())
        throw_invalid("quotient: the shape has " + std::to_string(shape.num_inputs()) + " inputs and " +
                      std::to_string(shape.num_aux()) + " aux variables, the witness " + std::to_string(num_inputs) +
                      " and " + std::to_string(num_aux));
    cuda::use_device(st.device);
    st.witness.reserve(num_inputs + num_aux);
    st.upload_staged(st.witness.witness(), inputs, num_inputs * sizeof(fr_t));
    st.upload_staged(st.witness.witness() + num_inputs, aux, num_aux * sizeof(fr_t));
    CUZK_CUDA(cudaEventRecord(st.uploaded, st.copy));
    CUZK_CUDA(cudaStreamWaitEvent(st.s, st.uploaded, 0));
    // Rows past the shape's come out zero: the padding to the domain.
    spmv::evaluate_async(shape, st.witness, st.a.get(), st.b.get(), st.c.get(), st.n, st.s);
    if (st.log_n == 0) {
        // n = 1: h has degree n - 2 < 0, so its only coefficient is zero.
        CUZK_CUDA(cudaMemsetAsync(st.t.get(), 0, sizeof(fr_t), st.s));
    } else {
        for (fr_t* buf : {st.a.get(), st.b.get(), st.c.get()}) {
            st.transform(buf, st.t.get(), true, false);
            st.transform(st.t.get(), buf, false, true);
        }
        divide_kernel<<<cuda::blocks_for(st.n, THREADS), THREADS, 0, st.s>>>(st.a.get(), st.b.get(), st.c.get(),
                                                                             st.z_inv, st.n);
        CUZK_LAUNCHED();
        st.transform(st.a.get(), st.t.get(), true, true);
    }
    spmv::check_rows(st.witness, st.s);
    return *st.result;
}

}  // namespace cuzk::g16
