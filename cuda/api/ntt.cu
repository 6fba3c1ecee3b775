// The Fr NTT entry point: natural order in, natural order out, in place on a
// host buffer of blstrs Scalars, with the same conventions as the CPU domain:
//   Forward       A_k = sum_i a_i w^(ik)
//   Inverse       a_i = n^-1 sum_k A_k w^(-ik)
//   CosetForward  Forward of (a_i g^i)
//   CosetInverse  Inverse, then a_i *= g^-i
// where w is the 2^log_n-th root of unity of roots.hpp and g Fr's generator.
// fr_ntt_timed (bench.hpp) runs the same plan on a resident input.
#include <algorithm>

#include "../ntt/kernels.cuh"
#include "../ntt/roots.hpp"
#include "bench.hpp"
#include "cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "timer.cuh"

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

/// One transform of a fixed size and kind with its tables built once, as the
/// Groth16 host builds them once per domain: the twiddles w^k (k < n/2) and,
/// for cosets, the split powers of g or g^-1.
class plan {
public:
    plan(uint32_t log_n, NttKind kind, cudaStream_t s)
        : log_n_(log_n),
          n_(size_t(1) << log_n),
          inverse_(kind == NttKind::Inverse || kind == NttKind::CosetInverse),
          coset_(kind == NttKind::CosetForward || kind == NttKind::CosetInverse),
          tw_(n_ / 2),
          shift_(coset_ ? (inverse_ ? generator().inverse() : generator()) : fr_t::one(), coset_ ? log_n : 0, s) {
        fr_t w = ntt::root_of_unity(log_n);
        if (inverse_) w = w.inverse();
        power_tables parts(w, log_n - 1, s);
        ntt::fill_powers_kernel<<<cuda::blocks_for(n_ / 2, THREADS), THREADS, 0, s>>>(tw_.get(), parts.view(), n_ / 2);
        CUZK_LAUNCHED();
        // `parts` is freed while work is queued: cudaFree waits for the device.
        n_inv_ = fr_t::one();
        for (uint32_t i = 0; i < log_n; i++) n_inv_ = n_inv_.dbl();
        n_inv_ = n_inv_.inverse();
    }

    /// out = the transform of in, natural order both; in and out distinct.
    void run(const fr_t* in, fr_t* out, cudaStream_t s) const {
        ntt::bit_reverse_kernel<<<cuda::blocks_for(n_, THREADS), THREADS, 0, s>>>(in, out, log_n_, coset_ && !inverse_,
                                                                                 shift_.view());
        CUZK_LAUNCHED();
        const uint32_t first = std::min(log_n_, ntt::SHARED_LOG);
        ntt::shared_stages_kernel<<<unsigned(n_ >> first), 1u << (first - 1), 0, s>>>(out, tw_.get(), log_n_, first);
        CUZK_LAUNCHED();
        uint32_t st = first;
        for (; st + 2 <= log_n_; st += 2) {
            ntt::radix4_stage_kernel<<<cuda::blocks_for(n_ / 4, THREADS), THREADS, 0, s>>>(out, tw_.get(), log_n_, st);
            CUZK_LAUNCHED();
        }
        if (st < log_n_) {
            ntt::radix2_stage_kernel<<<cuda::blocks_for(n_ / 2, THREADS), THREADS, 0, s>>>(out, tw_.get(), log_n_, st);
            CUZK_LAUNCHED();
        }
        if (inverse_) {
            ntt::scale_kernel<<<cuda::blocks_for(n_, THREADS), THREADS, 0, s>>>(out, n_inv_, log_n_, coset_,
                                                                               shift_.view());
            CUZK_LAUNCHED();
        }
    }

private:
    static fr_t generator() { return fr_t::from_u32(ff::fr_params::GENERATOR); }

    uint32_t log_n_;
    size_t n_;
    bool inverse_, coset_;
    cuda::buffer<fr_t> tw_;
    power_tables shift_;
    fr_t n_inv_;
};

void run_ntt(void* host, uint32_t log_n, NttKind kind) {
    const size_t n = size_t(1) << log_n;
    cuda::stream s;
    cuda::buffer<fr_t> input(n), a(n);
    CUZK_CUDA(cudaMemcpyAsync(input.get(), host, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    plan(log_n, kind, s).run(input.get(), a.get(), s);
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
    const plan p(log_n, kind, s);
    s.sync();
    rust::Vec<float> times;
    for (uint32_t r = 0; r < runs; r++) {
        cuda::stream_timer timer(s);
        p.run(static_cast<const fr_t*>(input.data()), result.get(), s);
        times.push_back(timer.stop_ms());
    }
    if (!out.empty()) {
        CUZK_CUDA(cudaMemcpyAsync(out.data(), result.get(), n * sizeof(fr_t), cudaMemcpyDeviceToHost, s));
        s.sync();
    }
    return times;
}

}  // namespace cuzk
