//! The arithmetic throughput kernels of bench.hpp: long dependent chains per
//! thread over many resident threads, so the figure is the multiplier's (the
//! integer one's, the FP64-limb one's, or the mixed addition's) issue rate,
//! not memory's. Operands come from a few
//! seeds in shared memory; every thread stores its result, so nothing can be
//! dropped by the compiler, and the caller checks a sample against blstrs.
#include <string>

#include "../ec/point.hpp"
#include "../ff/fp64.hpp"
#include "../msm/accumulation.hpp"
#include "bench.hpp"
#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "../util/timer.cuh"

namespace cuzk {
namespace {

using ec::affine;
using ec::xyzz;
using ff::fp_t;

/// The block size of the MSM accumulation (msm::THREADS), so the chains run at its occupancy.
constexpr unsigned THREADS = 128;
/// Most seeds or bases a chain kernel keeps in shared memory.
constexpr uint64_t MAX_OPERANDS = 256;

__global__ void fp_mul_chain_kernel(const fp_t* seeds, uint32_t k, uint64_t threads, uint32_t iters, fp_t* out) {
    __shared__ fp_t s[MAX_OPERANDS];
    for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) s[i] = seeds[i];
    __syncthreads();
    const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    fp_t x = s[t % k];
    const fp_t y = s[(t + 1) % k];
    for (uint32_t j = 0; j < iters; j++) x = x * y;
    out[t] = x;
}

/// fp_mul_chain_kernel's chain through the FP64-limb product (ff/fp64.hpp):
/// operands converted once, `iters` products in that form, one conversion back.
__global__ void fp64_mul_chain_kernel(const fp_t* seeds, uint32_t k, uint64_t threads, uint32_t iters, fp_t* out) {
    __shared__ fp_t s[MAX_OPERANDS];
    for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) s[i] = seeds[i];
    __syncthreads();
    const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    ff::fp64 x = ff::fp64_from_mont(s[t % k]);
    const ff::fp64 y = ff::fp64_from_mont(s[(t + 1) % k]);
    for (uint32_t j = 0; j < iters; j++) x = ff::fp64_mul(x, y);
    out[t] = ff::fp64_to_mont(x);
}

/// The bucket accumulation's mixed addition as the MSM runs it: in
/// msm::accumulation_field (G1's Fp kept below 2p), the sum leaving in
/// canonical form.
__global__ void g1_add_chain_kernel(const affine<fp_t>* bases, uint32_t k, uint64_t threads, uint32_t iters,
                                    xyzz<fp_t>* out) {
    __shared__ affine<fp_t> s[MAX_OPERANDS];
    for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) s[i] = bases[i];
    __syncthreads();
    const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    const uint32_t mask = k - 1;
    using A = msm::accumulation_field<fp_t>;
    xyzz<A> acc = xyzz<A>::from_affine(msm::loosened(s[t & mask]));
    for (uint32_t j = 1; j <= iters; j++) acc = acc.add_affine(msm::loosened(s[(t + j) & mask]));
    out[t] = msm::canonical(acc);
}

/// Uploads the k operands, runs `launch(operands, out)` on `threads`
/// threads, copies the first results into `sample`; returns device ms.
template <class In, class Out, class Launch>
float run_chain(int32_t id, rust::Slice<const uint64_t> operands, uint64_t threads, rust::Slice<uint64_t> sample,
                const char* what, Launch&& launch) {
    const uint64_t k = operands.size() * 8 / sizeof(In);
    if (k == 0 || k > MAX_OPERANDS || k * sizeof(In) != operands.size() * 8)
        throw_invalid(std::string(what) + ": between 1 and " + std::to_string(MAX_OPERANDS) + " whole operands");
    if (threads == 0 || threads >= (uint64_t(1) << 32))
        throw_invalid(std::string(what) + ": between 1 and 2^32 - 1 threads");
    const uint64_t shown = sample.size() * 8 / sizeof(Out);
    if (shown * sizeof(Out) != sample.size() * 8 || shown > threads)
        throw_invalid(std::string(what) + ": the sample must hold whole results of at most `threads` threads");
    cuda::use_device(id);
    cuda::stream s;
    cuda::buffer<In> in(k);
    cuda::buffer<Out> out(threads);
    CUZK_CUDA(cudaMemcpyAsync(in.get(), operands.data(), k * sizeof(In), cudaMemcpyHostToDevice, s));
    s.sync();
    cuda::stream_timer timer(s);
    launch(in.get(), uint32_t(k), cuda::blocks_for(threads, THREADS), out.get(), static_cast<cudaStream_t>(s));
    CUZK_LAUNCHED();
    const float ms = timer.stop_ms();
    CUZK_CUDA(cudaMemcpyAsync(sample.data(), out.get(), shown * sizeof(Out), cudaMemcpyDeviceToHost, s));
    s.sync();
    return ms;
}

}  // namespace

float fp_mul_chain(int32_t id, rust::Slice<const uint64_t> seeds, uint64_t threads, uint32_t iters,
                   rust::Slice<uint64_t> sample) {
    return run_chain<fp_t, fp_t>(id, seeds, threads, sample, "fp_mul_chain",
                                 [&](const fp_t* in, uint32_t k, unsigned blocks, fp_t* out, cudaStream_t s) {
                                     fp_mul_chain_kernel<<<blocks, THREADS, 0, s>>>(in, k, threads, iters, out);
                                 });
}

float fp64_mul_chain(int32_t id, rust::Slice<const uint64_t> seeds, uint64_t threads, uint32_t iters,
                     rust::Slice<uint64_t> sample) {
    return run_chain<fp_t, fp_t>(id, seeds, threads, sample, "fp64_mul_chain",
                                 [&](const fp_t* in, uint32_t k, unsigned blocks, fp_t* out, cudaStream_t s) {
                                     fp64_mul_chain_kernel<<<blocks, THREADS, 0, s>>>(in, k, threads, iters, out);
                                 });
}

float g1_add_chain(int32_t id, rust::Slice<const uint64_t> bases, uint64_t threads, uint32_t iters,
                   rust::Slice<uint64_t> sample) {
    const uint64_t k = bases.size() * 8 / sizeof(affine<fp_t>);
    if ((k & (k - 1)) != 0) throw_invalid("g1_add_chain: the number of bases must be a power of two");
    return run_chain<affine<fp_t>, xyzz<fp_t>>(
        id, bases, threads, sample, "g1_add_chain",
        [&](const affine<fp_t>* in, uint32_t k, unsigned blocks, xyzz<fp_t>* out, cudaStream_t s) {
            g1_add_chain_kernel<<<blocks, THREADS, 0, s>>>(in, k, threads, iters, out);
        });
}

}  // namespace cuzk
