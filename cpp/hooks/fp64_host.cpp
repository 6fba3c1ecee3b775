//! The FP64-limb Fp product (cuda/ff/fp64.hpp) run on the CPU, for the
//! differential tests against blstrs. g++ compiles the very code the device
//! runs: std::fma is IEEE-754 binary64's fused multiply-add, correctly
//! rounded to nearest like the GPU's DFMA (__fma_rn), and x86-64 evaluates
//! every double in SSE2 (no x87, which fp64.hpp refuses at compile time;
//! nothing sets flush-to-zero, and no value is subnormal anyway); build.rs
//! passes -ffp-contract=off, so g++ fuses nothing the source did not write.
//! This run is therefore a faithful reference of the device's arithmetic.
#include "../../cuda/ff/fp64.hpp"
#include "cuzk-ffi/src/hooks.rs.h"
#include "limbs_io.hpp"

namespace cuzk {
namespace {

using ff::fp_t;

/// x, checked to be below 2p (fp64_mul's precondition).
fp_t below_2p(rust::Slice<const uint64_t> s, const char* what) {
    const fp_t x = load_one<fp_t>(s, what);
    ff::limbs<fp_t::N> l;
    for (int i = 0; i < fp_t::N; i++) l.v[i] = x.v[i];
    if (ff::limbs_geq(l, fp_t::twice_modulus())) throw_invalid(std::string(what) + ": not below 2p");
    return x;
}

}  // namespace

void fp64_mul_host(rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b, rust::Slice<uint64_t> out) {
    const ff::fp64 x = ff::fp64_from_mont(below_2p(a, "a")), y = ff::fp64_from_mont(below_2p(b, "b"));
    store_one(out, ff::fp64_to_mont(ff::fp64_mul(x, y)), "out");
}

}  // namespace cuzk
