//! The allocator's side of the memory budget. With `mimalloc-defaults`
//! (cpp/allocator.cpp sets the options), mimalloc gives freed pages back to
//! the OS only once its purge delay has passed and some thread next runs
//! its page operations; a buffer freed while every other thread is idle
//! stays resident until then (a 1 GiB vector freed by another thread than
//! its owner stayed resident for the 0.5 s watched, docs/RELIABILITY.md).
//! The engine's budget counts freed bytes as free, so it asks for them to
//! be given back first.

/// Gives the memory freed so far back to the OS now: mimalloc's forced
/// collect, which runs every pending purge of every arena (whichever thread
/// freed the pages) and collects the calling thread's own heap. A few
/// system calls when little is pending; call it after large frees, not on
/// a hot path (crates/cuzk/tests/give_back.rs shows its effect). Without `mimalloc-defaults` it does nothing: the program's
/// allocator is not mimalloc, or its options are mimalloc's own.
pub fn give_back_freed() {
    #[cfg(feature = "mimalloc-defaults")]
    // SAFETY: `mi_collect` takes no pointers and may be called from any
    // thread at any time; it only returns free memory to the OS.
    unsafe {
        libmimalloc_sys::mi_collect(true)
    }
}
