//! Memory freed on one thread while its owner thread sits idle leaves the
//! resident set when the engine's dropper asks (`give_back_freed`), not
//! whenever mimalloc next runs its purges. With cuzk's 10 ms purge delay a
//! 1 GiB vector freed that way stayed resident for the 0.5 s watched
//! (docs/RELIABILITY.md); the engine's budget counts it free once freed.

use std::sync::mpsc::channel;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MIB: u64 = 1 << 20;

fn rss_mib() -> u64 {
    cuzk::rss::current_rss_bytes().expect("VmRSS in /proc/self/status") / MIB
}

#[test]
fn a_buffer_freed_by_another_thread_leaves_the_resident_set_when_given_back() {
    let size = 256 * MIB as usize;
    let (tx, rx) = channel::<Vec<u8>>();
    let (go_tx, go_rx) = channel::<()>();
    // The owner allocates and touches the buffer, hands it over, then waits
    // without allocating, as a synthesis worker between partitions does.
    let owner = std::thread::spawn(move || {
        tx.send(vec![1u8; size]).unwrap();
        go_rx.recv().unwrap();
    });
    let buffer = rx.recv().unwrap();
    let held = rss_mib();
    assert!(held >= 256, "the buffer is resident: {held} MiB");
    std::thread::spawn(move || drop(buffer)).join().unwrap();
    cuzk_ffi::allocator::give_back_freed();
    let after = rss_mib();
    go_tx.send(()).unwrap();
    owner.join().unwrap();
    assert!(after + 200 <= held, "{held} MiB before the free, {after} MiB after it was given back");
}
