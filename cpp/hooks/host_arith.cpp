//! Host builds of the cuda/ field and curve code, exposed to Rust so that CI
//! (which has no GPU) checks the very code the kernels run against blstrs.
#include <cstring>

#include <type_traits>

#include "../../cuda/ec/point.hpp"
#include "../../cuda/ff/loose.hpp"
#include "../../cuda/ntt/roots.hpp"
#include "cuzk-ffi/src/hooks.rs.h"
#include "limbs_io.hpp"

namespace cuzk {
namespace {

using ff::fp2_t;
using ff::fp_t;
using ff::fr_t;

template <class F>
uint32_t constants_of(rust::Slice<uint64_t> modulus, rust::Slice<uint64_t> one, rust::Slice<uint64_t> r2) {
    store_one(modulus, F::modulus(), "modulus");
    store_one(one, F::r(), "one");
    store_one(r2, F::r2(), "r2");
    return F::m0();
}

// The device's carry-chain schedules, run instruction for instruction
// against the host emulation of the carry flag (cuda/ff/carry.hpp). The
// emulation throws std::logic_error on a schedule that reads a flag nobody
// set; cxx turns it into an error like any other.
template <class P>
ff::mont<P> device_schedule(FieldOp op, const ff::mont<P>& a, const ff::mont<P>& b) {
    using F = ff::mont<P>;
    switch (op) {
        case FieldOp::AddChain: return F::template add_chain<ff::emulated>(a, b);
        case FieldOp::SubChain: return F::template sub_chain<ff::emulated>(a, b);
        case FieldOp::MulChain: return F::template mul_chain<ff::emulated>(a, b);
        case FieldOp::SqrChain: return F::template sqr_chain<ff::emulated>(a);
        case FieldOp::WideMulChain: {
            uint32_t t[2 * F::N];
            F::template mul_wide_chain<ff::emulated>(a, b, t);
            return F::template redc_wide_chain<ff::emulated>(t);
        }
        default: break;
    }
    if constexpr (std::is_same_v<P, ff::fp_params>) {
        using L = ff::loose<F>;
        switch (op) {
            case FieldOp::LooseMul: return (L{a} * L{b}).v;
            case FieldOp::LooseSqr: return L{a}.sqr().v;
            case FieldOp::LooseAdd: return (L{a} + L{b}).v;
            case FieldOp::LooseSub: return (L{a} - L{b}).v;
            default: break;
        }
        throw_invalid("not a device schedule");
    } else {
        throw_invalid("the lazily reduced form is G1's Fp only");
    }
}

template <class F>
ff::quad<F> device_schedule(FieldOp op, const ff::quad<F>& a, const ff::quad<F>& b) {
    if (op == FieldOp::MulChain) return ff::quad<F>::template mul_lazy<ff::emulated>(a, b);
    throw_invalid("Fp2's one device schedule is its product");
}

template <class F>
F apply(FieldOp op, const F& a, const F& b) {
    switch (op) {
        case FieldOp::Add: return a + b;
        case FieldOp::Sub: return a - b;
        case FieldOp::Mul: return a * b;
        case FieldOp::Sqr: return a.sqr();
        case FieldOp::Neg: return -a;
        case FieldOp::Inv: return a.inverse();
        case FieldOp::AddChain:
        case FieldOp::SubChain:
        case FieldOp::MulChain:
        case FieldOp::SqrChain:
        case FieldOp::WideMulChain:
        case FieldOp::LooseMul:
        case FieldOp::LooseSqr:
        case FieldOp::LooseAdd:
        case FieldOp::LooseSub: return device_schedule(op, a, b);
    }
    throw_invalid("unknown field op");
}

template <class F>
void field_op_of(FieldOp op, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
                 rust::Slice<uint64_t> out) {
    store_one(out, apply(op, load_one<F>(a, "a"), load_one<F>(b, "b")), "out");
}

// p is a Jacobian point (blst's projective form); q is Jacobian for Add and
// affine for AddAffine; the result is affine, blst's identity being (0, 0).
template <class F>
void curve_op_of(CurveOp op, rust::Slice<const uint64_t> p, rust::Slice<const uint64_t> q,
                 rust::Slice<uint64_t> out) {
    using xyzz = ec::xyzz<F>;
    xyzz a = xyzz::from_jacobian(load_one<ec::jacobian<F>>(p, "p"));
    xyzz r;
    switch (op) {
        case CurveOp::Add: r = a.add(xyzz::from_jacobian(load_one<ec::jacobian<F>>(q, "q"))); break;
        case CurveOp::Dbl: r = a.dbl(); break;
        case CurveOp::AddAffine: r = a.add_affine(load_one<ec::affine<F>>(q, "q")); break;
        case CurveOp::ToAffine: r = a; break;
        default: throw_invalid("unknown curve op");
    }
    store_one(out, r.to_affine(), "out");
}

}  // namespace

uint32_t field_constants(Field field, rust::Slice<uint64_t> modulus, rust::Slice<uint64_t> one,
                         rust::Slice<uint64_t> r2) {
    switch (field) {
        case Field::Fr: return constants_of<fr_t>(modulus, one, r2);
        case Field::Fp: return constants_of<fp_t>(modulus, one, r2);
        default: throw_invalid("field_constants: only prime fields have Montgomery constants");
    }
}

void field_op(Field field, FieldOp op, rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b,
              rust::Slice<uint64_t> out) {
    switch (field) {
        case Field::Fr: return field_op_of<fr_t>(op, a, b, out);
        case Field::Fp: return field_op_of<fp_t>(op, a, b, out);
        case Field::Fp2: return field_op_of<fp2_t>(op, a, b, out);
    }
    throw_invalid("unknown field");
}

void curve_op(Curve curve, CurveOp op, rust::Slice<const uint64_t> p, rust::Slice<const uint64_t> q,
              rust::Slice<uint64_t> out) {
    switch (curve) {
        case Curve::G1: return curve_op_of<fp_t>(op, p, q, out);
        case Curve::G2: return curve_op_of<fp2_t>(op, p, q, out);
    }
    throw_invalid("unknown curve");
}

void ntt_root_of_unity(uint32_t log_n, rust::Slice<uint64_t> out) {
    if (log_n > ntt::TWO_ADICITY) throw_invalid("ntt_root_of_unity: log_n exceeds Fr's two-adicity");
    store_one(out, ntt::root_of_unity(log_n), "out");
}

}  // namespace cuzk
