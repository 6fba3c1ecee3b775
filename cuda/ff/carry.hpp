//! One-instruction PTX carry-chain primitives for the device paths of
//! mont.hpp. The carry flag (CC) passes from one call to the next; every
//! statement is `asm volatile` so the compiler keeps them in program order,
//! and ptxas, which sees the flag, schedules the chains.
//!
//! The multi-limb schedules in mont.hpp are templates over a class with these
//! static members: the device instantiates them with `ptx`, and host tests
//! with `emulated`, which runs the same instructions on the CPU.
#pragma once

#include "common.hpp"

#if !defined(__CUDA_ARCH__)
#include <stdexcept>
#endif

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
#else
/// The `ptx` primitives on the host, so that tests run a device schedule
/// instruction for instruction against blstrs (cpp/hooks/host_arith.cpp) and a
/// schedule can be tried before it is ever compiled for the device.
///
/// The flag is per thread, because tests run in parallel. The emulation is
/// stricter than the hardware: an instruction that reads the flag without
/// writing it (addc, subc, madc_hi) leaves it undefined here, and reading
/// an undefined flag throws. A chain that takes a carry-in nobody produced,
/// or a carry an earlier chain already consumed, is almost surely a bug in
/// the schedule; on the device it would silently add a stale bit, here it
/// fails the test. A schedule the emulation accepts computes on the device
/// exactly what it computes here.
struct emulated {
    static uint32_t add_cc(uint32_t a, uint32_t b) { return put(uint64_t(a) + b); }
    static uint32_t addc_cc(uint32_t a, uint32_t b) { return put(uint64_t(a) + b + take()); }
    static uint32_t addc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) + b + take()); }
    // For subtraction the flag is the borrow: subc computes a - (b + CF).
    static uint32_t sub_cc(uint32_t a, uint32_t b) { return put_borrow(uint64_t(a) - b); }
    static uint32_t subc_cc(uint32_t a, uint32_t b) { return put_borrow(uint64_t(a) - b - take()); }
    static uint32_t subc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) - b - take()); }
    static uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
    static uint32_t mul_hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
    static uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put(uint64_t(a * b) + c); }
    static uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put(uint64_t(a * b) + c + take()); }
    static uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(uint64_t(mul_hi(a, b)) + c + take()); }
    static uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(uint64_t(mul_hi(a, b)) + c + take()); }

private:
    /// 0 or 1 once an instruction wrote it; UNDEFINED before and after a read.
    static constexpr int UNDEFINED = -1;
    static inline thread_local int flag = UNDEFINED;

    /// Keeps the low word of a sum and its carry (a sum of two words and a
    /// bit is below 2^33).
    static uint32_t put(uint64_t sum) {
        flag = int(sum >> 32);
        return uint32_t(sum);
    }
    /// Keeps the low word of a difference and its borrow (a difference that
    /// went below zero wrapped around 2^64, setting bit 32).
    static uint32_t put_borrow(uint64_t difference) {
        flag = int((difference >> 32) & 1);
        return uint32_t(difference);
    }
    static uint64_t take() {
        if (flag == UNDEFINED) throw std::logic_error("carry chain reads a carry flag that no instruction set");
        const uint64_t f = uint64_t(flag);
        flag = UNDEFINED;
        return f;
    }
};
#endif

}  // namespace cuzk::ff
