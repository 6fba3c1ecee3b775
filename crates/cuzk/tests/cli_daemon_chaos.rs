//! The daemon under the failures an unattended host sees, as processes on
//! the CPU: a SIGKILL mid-job and a restart on the same configuration (the
//! socket file, the recordings directory and the request ids recover: a
//! retry with the killed job's id proves afresh); clients that disconnect
//! mid-job (the job is cancelled, a retry with its id proves); fifty
//! concurrent clients, a few of them hostile, while `status` keeps being
//! answered; SIGTERM with jobs queued (each finishes and its result is
//! still fetched). Nothing is lost, every proof written is whole, the
//! daemon exits 0 after each drain.
#![cfg(feature = "daemon")]

mod common;
mod daemon_support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::text;
use daemon_support::{config, json, path, timed, wait_for, Daemon, LARGE, SMALL, TINY};

/// The small daemon of cli_daemon.rs, its recordings kept in `recordings`
/// (so a restart finds them, and a save cut by SIGKILL leaves its
/// temporary there).
fn persistent_config(recordings: &Path) -> String {
    config(common::dir()).replace("[engine]\n", &format!("[engine]\nrecordings_dir = \"{}\"\n", recordings.display()))
}

/// A `cuzk client` child process for this daemon (run, not waited for).
fn client_process(d: &Daemon, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["client", "--addr", &d.addr])
        .args(args)
        .env("XDG_CACHE_HOME", common::cache())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning cuzk client")
}

/// `prove` of a SMALL mul-chain as `id`, into `out`: must complete.
fn prove_as(d: &Daemon, id: &str, out: &Path) {
    let line = d.ok(&["prove", "--request-id", id, "--workload", "mul-chain", "--size", SMALL, "--out", path(out)]);
    assert!(line.starts_with("COMPLETED"), "{id}: {line}");
    assert_eq!(std::fs::metadata(out).unwrap().len(), 192, "{id}: a whole proof");
}

#[test]
fn a_killed_daemon_restarts_on_its_config_and_a_retried_id_proves_afresh() {
    timed("a_killed_daemon_restarts_on_its_config_and_a_retried_id_proves_afresh", || {
        common::params("mul-chain", SMALL);
        common::params("mul-chain", LARGE);
        let recordings = tempfile::tempdir().unwrap();
        let d = Daemon::start(&persistent_config(recordings.path()), &[]);
        // Curio's ids are fixed per sector: the retry after the kill reuses it.
        let id = "porep-1000-7";
        let submitted =
            d.ok(&["submit", "--request-id", id, "--workload", "mul-chain", "--size", LARGE, "--partitions", "64"]);
        assert_eq!(submitted.trim(), id);
        wait_for(|| json(&d.ok(&["status", "--json"]))["loaded_srs"].as_array().is_some_and(|a| !a.is_empty()), "the job's parameters loading");
        let dir = d.kill();
        assert!(dir.path().join("cuzk.sock").exists(), "SIGKILL leaves the socket file behind");

        let d = Daemon::restart(dir, &[]);
        // The killed job is gone with its process; its id starts a new one.
        let o = d.client(&["await", id, "--timeout-ms", "1"]);
        assert!(!o.status.success(), "the killed job is not known after the restart: {}", text(&o));
        prove_as(&d, id, &d.dir.path().join("retried.bin"));
        let leftovers: Vec<_> = std::fs::read_dir(recordings.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .map(|e| e.path())
            .collect();
        assert!(leftovers.is_empty(), "temporaries left in the recordings directory: {leftovers:?}");
        let (status, log) = d.terminate();
        assert_eq!(status.code(), Some(0), "{log}");
    });
}

#[test]
fn clients_that_disconnect_mid_job_cancel_it_and_a_retry_with_its_id_proves() {
    timed("clients_that_disconnect_mid_job_cancel_it_and_a_retry_with_its_id_proves", || {
        common::params("mul-chain", SMALL);
        common::params("mul-chain", LARGE);
        let d = Daemon::start(&config(common::dir()), &[]);
        let id = "wpost-1000-0-3";
        let mut gone = client_process(&d, &["prove", "--request-id", id, "--workload", "mul-chain", "--size", LARGE, "--partitions", "64"]);
        wait_for(|| d.log().contains(&format!("job={id}")) && d.log().contains("accepted"), "the job's arrival");
        std::thread::sleep(Duration::from_millis(300));
        gone.kill().unwrap();
        gone.wait().unwrap();
        wait_for(|| d.ok(&["metrics"]).contains("cuzk_proofs_cancelled_total{kind=\"mul-chain\"} 1"), "the cancel");
        // A cancelled job's id is free again at once (Curio retries with it).
        prove_as(&d, id, &d.dir.path().join("retried.bin"));
        assert!(d.ok(&["status"]).contains("QUEUE"));
        let (status, log) = d.terminate();
        assert_eq!(status.code(), Some(0), "{log}");
        assert!(log.contains("1 cancelled"), "{log}");
    });
}

#[test]
fn fifty_concurrent_clients_some_hostile_leave_the_daemon_answering() {
    timed("fifty_concurrent_clients_some_hostile_leave_the_daemon_answering", || {
        common::params("mul-chain", SMALL);
        common::params("mul-chain", TINY);
        let d = Daemon::start(&config(common::dir()), &[]);
        let long_id = "x".repeat(300);
        let mut honest = Vec::new();
        let mut hostile = Vec::new();
        for i in 0..50 {
            match i % 10 {
                // A forged log line and an id past the cap: refused, named.
                0 => hostile.push(("control", client_process(&d, &["prove", "--request-id", "job\nINFO forged", "--workload", "mul-chain", "--size", SMALL]))),
                5 => hostile.push(("long", client_process(&d, &["prove", "--request-id", &long_id, "--workload", "mul-chain", "--size", SMALL]))),
                // Parameters nobody has.
                9 => hostile.push(("unknown", client_process(&d, &["preload", "porep-1g"]))),
                _ => {
                    let size = if i % 2 == 0 { SMALL } else { TINY };
                    let out = d.dir.path().join(format!("proof-{i}.bin"));
                    let id = format!("honest-{i}");
                    let child = client_process(&d, &["prove", "--request-id", &id, "--workload", "mul-chain", "--size", size, "--out", path(&out)]);
                    honest.push((out, child));
                }
            }
        }
        // The daemon answers while all of them are in flight.
        for _ in 0..5 {
            assert!(d.ok(&["status"]).contains("QUEUE"));
            std::thread::sleep(Duration::from_millis(100));
        }
        for (what, child) in hostile {
            let o = child.wait_with_output().unwrap();
            assert!(!o.status.success(), "a hostile request ({what}) was accepted: {}", text(&o));
            let said = text(&o);
            assert!(said.contains("InvalidArgument") || said.contains("invalid"), "{what}: {said}");
        }
        let count = honest.len() as u64;
        for (out, child) in honest {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).starts_with("COMPLETED"), "{}", text(&o));
            assert_eq!(std::fs::metadata(&out).unwrap().len(), 192, "{}", out.display());
        }
        assert_eq!(count, 35);
        let (status, log) = d.terminate();
        assert_eq!(status.code(), Some(0), "{log}");
        assert!(log.contains(&format!("stopped: {count} completed, 0 failed, 0 cancelled")), "{log}");
    });
}

#[test]
fn sigterm_with_jobs_queued_finishes_them_and_their_results_are_fetched() {
    timed("sigterm_with_jobs_queued_finishes_them_and_their_results_are_fetched", || {
        common::params("mul-chain", SMALL);
        let d = Daemon::start(&config(common::dir()), &[]);
        let ids: Vec<String> = (0..4).map(|i| format!("queued-{i}")).collect();
        for id in &ids {
            let printed = d.ok(&["submit", "--request-id", id, "--workload", "mul-chain", "--size", SMALL, "--partitions", "4"]);
            assert_eq!(printed.trim(), id);
        }
        let pid = d.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        // New work is refused while the accepted jobs finish.
        wait_for(|| d.log().contains("shutting down: no new jobs"), "the drain");
        let o = d.client(&["submit", "--workload", "mul-chain", "--size", SMALL]);
        assert!(!o.status.success(), "a job accepted during the drain: {}", text(&o));
        for id in &ids {
            let out = d.dir.path().join(format!("{id}.bin"));
            let line = d.ok(&["await", id, "--out", path(&out)]);
            assert!(line.starts_with(&format!("COMPLETED job {id}")), "{line}");
            assert_eq!(std::fs::metadata(&out).unwrap().len(), 4 * 192);
        }
        let (status, log) = d.wait_exit();
        assert_eq!(status.code(), Some(0), "{log}");
        assert!(log.contains("stopped: 4 completed, 0 failed, 0 cancelled"), "{log}");
    });
}
