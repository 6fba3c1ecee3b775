// One-instruction PTX carry-chain primitives for the device paths of
// mont.hpp. The carry flag (CC) passes from one call to the next; every
// statement is `asm volatile` so the compiler keeps them in program order,
// and ptxas, which sees the flag, schedules the chains.
//
// The multi-limb schedules in mont.hpp are templates over a class with these
// static members, so the same schedule can be run against an emulation of
// the flag when it is being designed; the device instantiates it with `ptx`.
#pragma once

#include "common.hpp"

namespace cuzk::ff {

#if defined(__CUDA_ARCH__)
struct ptx {
#define CUZK_PTX3(name, op)                                                          \
    __device__ __forceinline__ static uint32_t name(uint32_t a, uint32_t b) {        \
        uint32_t r;                                                                  \
        asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                  \
        return r;                                                                    \
    }
#define CUZK_PTX4(name, op)                                                          \
    __device__ __forceinline__ static uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
        uint32_t r;                                                                  \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));      \
        return r;                                                                    \
    }
    CUZK_PTX3(add_cc, "add.cc.u32")
    CUZK_PTX3(addc_cc, "addc.cc.u32")
    CUZK_PTX3(addc, "addc.u32")
    CUZK_PTX3(sub_cc, "sub.cc.u32")
    CUZK_PTX3(subc_cc, "subc.cc.u32")
    CUZK_PTX3(subc, "subc.u32")
    CUZK_PTX3(mul_lo, "mul.lo.u32")
    CUZK_PTX3(mul_hi, "mul.hi.u32")
    CUZK_PTX4(mad_lo_cc, "mad.lo.cc.u32")
    CUZK_PTX4(madc_lo_cc, "madc.lo.cc.u32")
    CUZK_PTX4(madc_hi_cc, "madc.hi.cc.u32")
    CUZK_PTX4(madc_hi, "madc.hi.u32")
#undef CUZK_PTX3
#undef CUZK_PTX4
};
#endif

}  // namespace cuzk::ff
