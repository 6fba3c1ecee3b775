//! The fixed-base multiplication's point and conversion code
//! (cuda/msm/fixed_base.hpp) run on the CPU, so that CI (which has no GPU)
//! compares the very code the kernels run with blstrs.
#include <cstring>
#include <vector>

#include "../../cuda/msm/fixed_base.hpp"
#include "cuzk-ffi/src/hooks.rs.h"

namespace cuzk {
namespace {

using ec::affine;
using ec::xyzz;
namespace fb = msm::fixed_base;

template <class F>
void run(rust::Slice<const uint64_t> table, uint32_t c, rust::Slice<const uint64_t> scalars, uint64_t stride,
         rust::Slice<uint64_t> out) {
    fb::check_args(sizeof(affine<F>) / 8, table.size(), c, scalars.size(), out.size());
    const uint64_t n = scalars.size() / 4;
    if (stride == 0 && n > 0) throw_invalid("fixed_base_host: stride 0");
    std::vector<affine<F>> points_table(fb::table_len(c));
    std::memcpy(points_table.data(), table.data(), table.size() * 8);
    std::vector<xyzz<F>> points(n);
    for (uint64_t i = 0; i < n; i++) {
        ff::fr_t s;
        std::memcpy(&s, scalars.data() + 4 * i, sizeof(s));
        points[i] = fb::multiply(points_table.data(), c, s);
    }
    std::vector<F> before(n);
    std::vector<affine<F>> result(n);
    for (uint64_t t = 0; t < stride; t++) fb::to_affine_strided(points.data(), before.data(), n, t, stride, result.data());
    std::memcpy(out.data(), result.data(), n * sizeof(affine<F>));
}

}  // namespace

void fixed_base_host(Curve curve, rust::Slice<const uint64_t> table, uint32_t window_bits,
                     rust::Slice<const uint64_t> scalars, uint64_t stride, rust::Slice<uint64_t> out) {
    switch (curve) {
        case Curve::G1: return run<ff::fp_t>(table, window_bits, scalars, stride, out);
        case Curve::G2: return run<ff::fp2_t>(table, window_bits, scalars, stride, out);
    }
    throw_invalid("unknown curve");
}

}  // namespace cuzk
