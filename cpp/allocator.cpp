//! mimalloc's defaults for a cuzk process, whose memory budget must bound
//! its resident set. Linked whole (it is referenced by nothing) when
//! cuzk-ffi's `mimalloc-defaults` feature is on, which the `cuzk` binary
//! turns on: the options must be set before mimalloc reserves its first
//! arena, which happens on the first Rust allocation, before `main`.
//! Named through mimalloc's own header, since the option numbers differ
//! between its major versions; set as defaults, so an operator's
//! MIMALLOC_* environment still wins.

#include <mimalloc.h>

namespace {

__attribute__((constructor)) void cuzk_mimalloc_defaults() {
    // Commit an arena's pages as they are used, not all at once when it is
    // reserved: mimalloc never purges an eagerly committed arena, so pages
    // the engine has freed and returned to its budget would stay resident.
    mi_option_set_default(mi_option_arena_eager_commit, 0);
    // Give freed pages back 10 ms after they are freed, not at once: with
    // no delay, the gadgets' short-lived linear combinations emptied and
    // refilled the same pages, and every refill faulted them in again
    // (1.37 M page faults against 0.21 M for three PoRep challenge
    // witnesses, each 3.3-4.4 s instead of 2.1-2.5 s, at the same peak RSS;
    // docs/RELIABILITY.md). Memory the budget has released stays resident
    // about that long: expired purges run on the allocator's next page
    // operations. mimalloc 3's own delay, 1 s, would keep far more.
    mi_option_set_default(mi_option_purge_delay, 10);
}

}  // namespace
