//! The Fr NTT entry point: natural order in, natural order out, in place on a
//! host buffer of blstrs Scalars, with the same conventions as the CPU domain:
//!   Forward       A_k = sum_i a_i w^(ik)
//!   Inverse       a_i = n^-1 sum_k A_k w^(-ik)
//!   CosetForward  Forward of (a_i g^i)
//!   CosetInverse  Inverse, then a_i *= g^-i
//! where w is the 2^log_n-th root of unity of roots.hpp and g Fr's generator.
//! fr_ntt_timed (bench.hpp) runs the same transforms on a resident input; the
//! Groth16 quotient runs them through ntt::domain (ntt/domain.hpp).
#include <algorithm>

#include "../ntt/domain.hpp"
#include "../ntt/kernels.cuh"
#include "../ntt/roots.hpp"
#include "bench.hpp"
#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "../util/timer.cuh"

namespace cuzk {
namespace ntt {
namespace {

constexpr unsigned THREADS = 256;

/// Device tables for powers of one base: the two small split tables.
struct power_tables {
    cuda::buffer<fr_t> lo, hi;
    uint32_t lo_log;

    power_tables(fr_t base, uint32_t log_count, cudaStream_t s)
        : lo(size_t(1) << std::min(log_count, 10u)),
          hi(size_t(1) << (log_count - std::min(log_count, 10u))),
          lo_log(std::min(log_count, 10u)) {
        const uint32_t total = uint32_t(lo.size() + hi.size());
        split_powers_kernel<<<cuda::blocks_for(total, THREADS), THREADS, 0, s>>>(lo.get(), hi.get(), base, lo_log,
                                                                                 uint32_t(hi.size()));
        CUZK_LAUNCHED();
    }
    split_powers view() const { return {lo.get(), hi.get(), lo_log}; }
};

fr_t generator() { return fr_t::from_u32(ff::fr_params::GENERATOR); }

/// w^k for k <= n/2 into out (n/2 + 1 entries: the inverse reads w^(n/2)).
void fill_twiddles(fr_t* out, fr_t w, uint32_t log_n, cudaStream_t s) {
    const size_t count = (size_t(1) << (log_n - 1)) + 1;
    power_tables parts(w, log_n, s);
    fill_powers_kernel<<<cuda::blocks_for(count, THREADS), THREADS, 0, s>>>(out, parts.view(), count);
    CUZK_LAUNCHED();
    CUZK_CUDA(cudaStreamSynchronize(s));  // `parts` is freed on return
}

}  // namespace

struct domain::tables {
    /// w^k for k <= n/2, read by both directions (ntt/kernels.cuh).
    cuda::buffer<fr_t> tw;
    power_tables g_pow, g_inv_pow;
    fr_t n_inv;

    tables(uint32_t log_n, cudaStream_t s)
        : tw(log_n ? (size_t(1) << (log_n - 1)) + 1 : 0),
          g_pow(generator(), log_n, s),
          g_inv_pow(generator().inverse(), log_n, s),
          n_inv(fr_t::one()) {
        for (uint32_t i = 0; i < log_n; i++) n_inv = n_inv.dbl();
        n_inv = n_inv.inverse();
        if (log_n == 0) return;
        fill_twiddles(tw.get(), root_of_unity(log_n), log_n, s);
    }
};

domain::domain(uint32_t log_n, cudaStream_t s) : log_n_(log_n), t_(std::make_unique<tables>(log_n, s)) {}

domain::~domain() = default;

void domain::run(const fr_t* in, fr_t* out, bool inverse, bool coset, cudaStream_t s) const {
    if (log_n_ == 0) {
        // One element: every variant is the identity (g^0 = 1, 1/1 = 1).
        CUZK_CUDA(cudaMemcpyAsync(out, in, sizeof(fr_t), cudaMemcpyDeviceToDevice, s));
        return;
    }
    passes(in, out, coset && !inverse, inverse, coset, s);
}

void domain::run_in_place(fr_t* a, bool inverse, bool coset, cudaStream_t s) const {
    if (log_n_ == 0) return;
    const size_t n = size_t(1) << log_n_;
    bit_reverse_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(a, log_n_, coset && !inverse,
                                                                       t_->g_pow.view());
    CUZK_LAUNCHED();
    passes(nullptr, a, false, inverse, coset, s);
}

void domain::passes(const fr_t* gather_from, fr_t* out, bool shift_in, bool inverse, bool coset,
                    cudaStream_t s) const {
    const size_t n = size_t(1) << log_n_;
    pass_args args{};
    args.inverse = inverse;
    args.gather_from = gather_from;
    args.shift_in = shift_in;
    args.scale = t_->n_inv;
    args.shift_out = coset;
    args.g = t_->g_pow.view();
    args.g_inv = t_->g_inv_pow.view();
    // The first pass: contiguous blocks; then passes of at most
    // STRIDED_STAGES stages, as even as the remaining stages allow.
    uint32_t s0 = 0, k = std::min(log_n_, BLOCK_LOG);
    for (;;) {
        const bool last = s0 + k == log_n_;
        args.scale_out = last && inverse;
        const uint32_t log_t = std::min(log_n_, BLOCK_LOG) - k;
        const uint32_t block = std::max(1u, (1u << (k + log_t)) / 4);
        const unsigned grid = unsigned(n >> (k + log_t));
        pass_kernel<<<grid, block, 0, s>>>(out, t_->tw.get(), log_n_, s0, k, log_t, args);
        CUZK_LAUNCHED();
        if (last) return;
        args.gather_from = nullptr;
        args.shift_in = false;
        s0 += k;
        const uint32_t left = log_n_ - s0;
        const uint32_t rest = (left + STRIDED_STAGES - 1) / STRIDED_STAGES;
        k = (left + rest - 1) / rest;
    }
}

}  // namespace ntt

namespace {

using ff::fr_t;

bool is_inverse(NttKind kind) { return kind == NttKind::Inverse || kind == NttKind::CosetInverse; }
bool is_coset(NttKind kind) { return kind == NttKind::CosetForward || kind == NttKind::CosetInverse; }

void run_ntt(void* host, uint32_t log_n, NttKind kind) {
    const size_t n = size_t(1) << log_n;
    cuda::stream s;
    // In place: this entry point is what tests the in-place transforms
    // against the CPU domain; the quotient's out-of-place ones are tested
    // through its proofs.
    cuda::buffer<fr_t> a(n);
    CUZK_CUDA(cudaMemcpyAsync(a.get(), host, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    const ntt::domain d(log_n, s);
    d.run_in_place(a.get(), is_inverse(kind), is_coset(kind), s);
    CUZK_CUDA(cudaMemcpyAsync(host, a.get(), n * sizeof(fr_t), cudaMemcpyDeviceToHost, s));
    s.sync();
}

/// log2 of a supported transform length, or an invalid_input error.
uint32_t checked_log(size_t n) {
    if (n == 0 || (n & (n - 1)) != 0) throw_invalid("ntt: size " + std::to_string(n) + " is not a power of two");
    uint32_t log_n = 0;
    while ((size_t(1) << log_n) < n) log_n++;
    if (log_n > ntt::TWO_ADICITY) throw_invalid("ntt: size exceeds Fr's two-adicity");
    return log_n;
}

}  // namespace

void fr_ntt(int32_t id, NttKind kind, rust::Slice<uint64_t> data) {
    constexpr size_t limbs = sizeof(fr_t) / 8;
    if (data.size() % limbs != 0) throw_invalid("ntt: buffer length is not a whole number of Fr elements");
    const uint32_t log_n = checked_log(data.size() / limbs);
    cuda::use_device(id);
    // A transform of one element is the identity in every variant (g^0 = 1, 1/1 = 1).
    if (log_n == 0) return;
    run_ntt(data.data(), log_n, kind);
}

rust::Vec<float> fr_ntt_timed(const DeviceArray& input, NttKind kind, uint32_t runs, rust::Slice<uint64_t> out) {
    if (input.kind() != ArrayKind::Scalar) throw_invalid("fr_ntt_timed: the input must be an array of scalars");
    const uint32_t log_n = checked_log(input.len());
    if (log_n == 0) throw_invalid("fr_ntt_timed: a transform of one element does no work to time");
    const size_t n = size_t(1) << log_n;
    if (!out.empty() && out.size() != n * sizeof(fr_t) / 8)
        throw_invalid("fr_ntt_timed: out must be empty or hold " + std::to_string(n) + " scalars");
    cuda::use_device(input.device());
    cuda::stream s;
    cuda::buffer<fr_t> result(n);
    const ntt::domain d(log_n, s);
    s.sync();
    rust::Vec<float> times;
    for (uint32_t r = 0; r < runs; r++) {
        cuda::stream_timer timer(s);
        d.run(static_cast<const fr_t*>(input.data()), result.get(), is_inverse(kind), is_coset(kind), s);
        times.push_back(timer.stop_ms());
    }
    if (!out.empty()) {
        CUZK_CUDA(cudaMemcpyAsync(out.data(), result.get(), n * sizeof(fr_t), cudaMemcpyDeviceToHost, s));
        s.sync();
    }
    return times;
}

}  // namespace cuzk
