//! The fixed-base multiplication entry point (declared in setup.hpp):
//! argument checks, the table upload, and the chunks through two streams
//! around cuda/msm/fixed_base.cuh.
#include <algorithm>
#include <memory>

#include "../msm/fixed_base.cuh"
#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "setup.hpp"

namespace cuzk {
namespace {

using ec::affine;
using ec::xyzz;
using ff::fp2_t;
using ff::fp_t;
using ff::fr_t;
namespace fb = msm::fixed_base;

/// The device memory of one chunk in flight, from its stream's pool.
template <class F>
struct chunk_buffers {
    cuda::scratch<fr_t> scalars;
    cuda::scratch<xyzz<F>> points;
    cuda::scratch<F> before;
    cuda::scratch<affine<F>> out;

    chunk_buffers(uint64_t n, cudaStream_t s) : scalars(n, s), points(n, s), before(n, s), out(n, s) {}
};

template <class F>
void run(rust::Slice<const uint64_t> table, uint32_t c, rust::Slice<const uint64_t> scalars, uint64_t chunk,
         rust::Slice<uint64_t> out) {
    const uint64_t n = scalars.size() / 4;
    if (n == 0) return;
    chunk = std::min(chunk, n);
    const uint64_t chunks = (n + chunk - 1) / chunk;
    cuda::stream streams[2];
    cuda::buffer<affine<F>> d_table(fb::table_len(c));
    CUZK_CUDA(cudaMemcpy(d_table.get(), table.data(), table.size() * 8, cudaMemcpyHostToDevice));
    std::unique_ptr<chunk_buffers<F>> buffers[2];
    for (uint64_t k = 0; k < std::min<uint64_t>(chunks, 2); k++)
        buffers[k] = std::make_unique<chunk_buffers<F>>(chunk, streams[k]);

    const auto range = [&](uint64_t k) { return std::make_pair(k * chunk, std::min(chunk, n - k * chunk)); };
    const auto enqueue = [&](uint64_t k) {
        const auto [lo, len] = range(k);
        const cuda::stream& s = streams[k % 2];
        chunk_buffers<F>& b = *buffers[k % 2];
        CUZK_CUDA(cudaMemcpyAsync(b.scalars.get(), scalars.data() + lo * 4, len * sizeof(fr_t),
                                  cudaMemcpyHostToDevice, s));
        fb::multiply_kernel<F><<<cuda::blocks_for(len, msm::THREADS), msm::THREADS, 0, s>>>(
            d_table.get(), c, b.scalars.get(), uint32_t(len), b.points.get());
        CUZK_LAUNCHED();
        const uint64_t stride = fb::affine_stride(len);
        fb::to_affine_kernel<F><<<cuda::blocks_for(stride, msm::THREADS), msm::THREADS, 0, s>>>(
            b.points.get(), b.before.get(), uint32_t(len), uint32_t(stride), b.out.get());
        CUZK_LAUNCHED();
    };
    // A copy to pageable memory returns once it is done, so the host waits
    // here for chunk k while the other stream already runs chunk k + 1.
    const auto collect = [&](uint64_t k) {
        const auto [lo, len] = range(k);
        const cuda::stream& s = streams[k % 2];
        CUZK_CUDA(cudaMemcpyAsync(out.data() + lo * (sizeof(affine<F>) / 8), buffers[k % 2]->out.get(),
                                  len * sizeof(affine<F>), cudaMemcpyDeviceToHost, s));
        s.sync();
    };
    enqueue(0);
    for (uint64_t k = 1; k < chunks; k++) {
        enqueue(k);
        collect(k - 1);
    }
    collect(chunks - 1);
}

}  // namespace

void fixed_base_mul(int32_t device, ArrayKind kind, rust::Slice<const uint64_t> table, uint32_t window_bits,
                    rust::Slice<const uint64_t> scalars, uint64_t chunk, rust::Slice<uint64_t> out) {
    if (kind != ArrayKind::G1Affine && kind != ArrayKind::G2Affine)
        throw_invalid("fixed_base_mul: the table must hold affine points");
    const bool g1 = kind == ArrayKind::G1Affine;
    const uint64_t point_limbs = (g1 ? sizeof(affine<fp_t>) : sizeof(affine<fp2_t>)) / 8;
    fb::check_args(point_limbs, table.size(), window_bits, scalars.size(), out.size());
    if (chunk == 0 || chunk >= (uint64_t(1) << 31))
        throw_invalid("fixed_base_mul: chunk of " + std::to_string(chunk) + " scalars is outside [1, 2^31)");
    cuda::use_device(device);
    if (g1) return run<fp_t>(table, window_bits, scalars, chunk, out);
    run<fp2_t>(table, window_bits, scalars, chunk, out);
}

}  // namespace cuzk
