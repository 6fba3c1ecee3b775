// The Fr NTT entry point: natural order in, natural order out, in place on a
// host buffer of blstrs Scalars, with the same conventions as the CPU domain:
//   Forward       A_k = sum_i a_i w^(ik)
//   Inverse       a_i = n^-1 sum_k A_k w^(-ik)
//   CosetForward  Forward of (a_i g^i)
//   CosetInverse  Inverse, then a_i *= g^-i
// where w is the 2^log_n-th root of unity of roots.hpp and g Fr's generator.
#include <algorithm>

#include "../ntt/kernels.cuh"
#include "../ntt/roots.hpp"
#include "cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"

namespace cuzk {
namespace {

using ff::fr_t;
using ntt::split_powers;

constexpr unsigned THREADS = 256;

/// Device tables for powers of one base: the two small split tables.
struct power_tables {
    cuda::buffer<fr_t> lo, hi;
    uint32_t lo_log;

    power_tables(fr_t base, uint32_t log_count, cudaStream_t s)
        : lo(size_t(1) << std::min(log_count, 10u)),
          hi(size_t(1) << (log_count - std::min(log_count, 10u))),
          lo_log(std::min(log_count, 10u)) {
        uint32_t total = uint32_t(lo.size() + hi.size());
        ntt::split_powers_kernel<<<cuda::blocks_for(total, THREADS), THREADS, 0, s>>>(
            lo.get(), hi.get(), base, lo_log, uint32_t(hi.size()));
        CUZK_LAUNCHED();
    }
    split_powers view() const { return {lo.get(), hi.get(), lo_log}; }
};

void run_ntt(void* host, uint32_t log_n, NttKind kind) {
    const size_t n = size_t(1) << log_n;
    const bool inverse = kind == NttKind::Inverse || kind == NttKind::CosetInverse;
    const bool coset = kind == NttKind::CosetForward || kind == NttKind::CosetInverse;
    fr_t w = ntt::root_of_unity(log_n);
    if (inverse) w = w.inverse();
    const fr_t g = fr_t::from_u32(ff::fr_params::GENERATOR);

    cuda::stream s;
    cuda::buffer<fr_t> input(n), a(n), tw(n / 2);
    CUZK_CUDA(cudaMemcpyAsync(input.get(), host, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));

    {
        power_tables tw_parts(w, log_n - 1, s);
        ntt::fill_powers_kernel<<<cuda::blocks_for(n / 2, THREADS), THREADS, 0, s>>>(tw.get(), tw_parts.view(),
                                                                                     n / 2);
        CUZK_LAUNCHED();
        // The tables' destructors free while work is queued: cudaFree waits for the device.
    }

    power_tables shift(coset ? (inverse ? g.inverse() : g) : fr_t::one(), coset ? log_n : 0, s);
    ntt::bit_reverse_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(input.get(), a.get(), log_n,
                                                                             coset && !inverse, shift.view());
    CUZK_LAUNCHED();

    const uint32_t first = std::min(log_n, ntt::SHARED_LOG);
    ntt::shared_stages_kernel<<<unsigned(n >> first), 1u << (first - 1), 0, s>>>(a.get(), tw.get(), log_n, first);
    CUZK_LAUNCHED();
    uint32_t st = first;
    for (; st + 2 <= log_n; st += 2) {
        ntt::radix4_stage_kernel<<<cuda::blocks_for(n / 4, THREADS), THREADS, 0, s>>>(a.get(), tw.get(), log_n, st);
        CUZK_LAUNCHED();
    }
    if (st < log_n) {
        ntt::radix2_stage_kernel<<<cuda::blocks_for(n / 2, THREADS), THREADS, 0, s>>>(a.get(), tw.get(), log_n, st);
        CUZK_LAUNCHED();
    }

    if (inverse) {
        fr_t n_inv = fr_t::one();
        for (uint32_t i = 0; i < log_n; i++) n_inv = n_inv.dbl();
        n_inv = n_inv.inverse();
        ntt::scale_kernel<<<cuda::blocks_for(n, THREADS), THREADS, 0, s>>>(a.get(), n_inv, log_n, coset,
                                                                           shift.view());
        CUZK_LAUNCHED();
    }
    CUZK_CUDA(cudaMemcpyAsync(host, a.get(), n * sizeof(fr_t), cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace

void fr_ntt(int32_t id, NttKind kind, rust::Slice<uint64_t> data) {
    constexpr size_t limbs = sizeof(fr_t) / 8;
    if (data.size() % limbs != 0) throw_invalid("ntt: buffer length is not a whole number of Fr elements");
    const size_t n = data.size() / limbs;
    if (n == 0 || (n & (n - 1)) != 0)
        throw_invalid("ntt: size " + std::to_string(n) + " is not a power of two");
    uint32_t log_n = 0;
    while ((size_t(1) << log_n) < n) log_n++;
    if (log_n > ntt::TWO_ADICITY) throw_invalid("ntt: size exceeds Fr's two-adicity");
    cuda::use_device(id);
    // A transform of one element is the identity in every variant (g^0 = 1, 1/1 = 1).
    if (log_n == 0) return;
    run_ntt(data.data(), log_n, kind);
}

}  // namespace cuzk
