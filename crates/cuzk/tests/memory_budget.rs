//! `--memory-gib` bounds the process: peak RSS stays within the budget plus
//! a stated fixed overhead (the process itself: binary, libraries, thread
//! stacks, the allocator's state, ~21 MiB before any work), at several
//! budgets, each in a fresh process. With mimalloc's defaults (eager arena
//! commit, delayed purge) the same runs peaked 37–51 MiB over a 30 MiB
//! budget; cuzk-ffi's `mimalloc-defaults` is what holds them
//! (docs/RELIABILITY.md).

mod common;

use std::process::Command;

use common::text;

/// The overhead the budget does not cover, as `cuzk --help` states it.
const OVERHEAD_MIB: f64 = 24.0;

#[test]
fn peak_rss_stays_within_the_budget_plus_the_stated_overhead() {
    let dir = common::dir().join("memory-budget");
    std::fs::create_dir_all(&dir).unwrap();
    // Small budgets against 8 partitions of ~7 MiB each (plus an 11 MB
    // parameter file and its recording), so the budget, not the work, is
    // what limits how much is held at once.
    for gib in [0.03, 0.06, 0.12] {
        let o = Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .current_dir(&dir)
            .args(["bench", "--circuit", "mul-chain", "--size", "16384", "--jobs", "2", "--partitions", "8"])
            .args(["--memory-gib", &gib.to_string(), "--backend", "cpu", "--json"])
            .env_remove("MIMALLOC_ARENA_EAGER_COMMIT")
            .env_remove("MIMALLOC_PURGE_DELAY")
            .output()
            .expect("running cuzk");
        assert!(o.status.success(), "bench at {gib} GiB failed: {}", text(&o));
        let stdout = String::from_utf8(o.stdout).unwrap();
        let summary: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        assert_eq!(summary["proofs"], 16, "{summary}");
        assert_eq!(summary["verified"], true, "{summary}");
        let peak = summary["peak_rss_mib"].as_f64().expect("peak_rss_mib");
        let budget = gib * 1024.0;
        assert!(
            peak <= budget + OVERHEAD_MIB,
            "peak RSS {peak:.1} MiB over a {budget:.1} MiB budget + {OVERHEAD_MIB} MiB overhead"
        );
    }
}
