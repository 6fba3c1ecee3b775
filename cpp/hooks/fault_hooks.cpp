//! The allocation fault hook (cuda/util/alloc_fault.hpp): tests arm the
//! process-wide counter, run a call, and read back how many device, pool
//! and pinned allocations it made and the bytes it kept, or make the k-th
//! allocation fail.
#include "../../cuda/util/alloc_fault.hpp"
#include "cuzk-ffi/src/hooks.rs.h"
#include "hooks.hpp"

namespace cuzk {

void alloc_faults_arm(uint64_t fail_at) { cuda::faults::arm(fail_at); }

AllocCount alloc_faults_disarm() {
    AllocCount c;
    c.allocations = cuda::faults::disarm(&c.net_bytes);
    return c;
}

}  // namespace cuzk
