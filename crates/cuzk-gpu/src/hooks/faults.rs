//! The allocation fault hook: counts the prover's device, pool and pinned
//! allocations (every one goes through `cuda::allocate` in
//! cuda/util/cuda_util.cuh) during a closure, or makes the k-th of them fail
//! as the driver's out-of-memory would, so a test can fail every allocation
//! site of a call in turn and check that it returns `GpuError::OutOfMemory`,
//! leaks nothing and leaves the device usable.
//!
//! The counter is process-wide: allocations made by other threads while the
//! closure runs (a background MSM table, another test) count too. Calls are
//! serialised here, and the counter is disarmed even when the closure panics.

use std::sync::Mutex;

use cuzk_ffi::hooks::ffi as hooks;

pub use hooks::AllocCount;

/// One armed counter at a time in this process.
static ARMED: Mutex<()> = Mutex::new(());

/// Disarms on drop, so a panicking closure does not leave faults armed.
struct Disarm;

impl Drop for Disarm {
    fn drop(&mut self) {
        hooks::alloc_faults_disarm();
    }
}

fn armed<T>(fail_at: u64, f: impl FnOnce() -> T) -> (T, AllocCount) {
    let _serial = ARMED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    hooks::alloc_faults_arm(fail_at);
    let guard = Disarm;
    let out = f();
    let counted = hooks::alloc_faults_disarm();
    std::mem::forget(guard);
    (out, counted)
}

/// Runs `f` and returns its result with the allocations made while it ran
/// (none fails) and the bytes it kept. Zeros in the build without CUDA.
pub fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, AllocCount) {
    armed(0, f)
}

/// Runs `f` with its `k`-th allocation (1-based) failing as out of memory,
/// before the driver is asked; returns `f`'s result and what was counted,
/// so `allocations >= k` says the fault was reached.
///
/// # Panics
/// If `k` is 0 (use [`count_allocations`]).
pub fn fail_allocation<T>(k: u64, f: impl FnOnce() -> T) -> (T, AllocCount) {
    assert!(k > 0, "allocations are counted from 1");
    armed(k, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_leaves_the_hook_usable() {
        let r = std::panic::catch_unwind(|| fail_allocation(1, || panic!("inside")));
        assert!(r.is_err());
        // The poisoned lock is taken again (no panic) and counting works.
        assert_eq!(count_allocations(|| ()).1, AllocCount::default());
    }
}
