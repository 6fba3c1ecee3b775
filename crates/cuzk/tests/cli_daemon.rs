//! `cuzk daemon` and `cuzk client` as processes: a daemon on a unix socket
//! in a temporary directory (CPU backend, a small configuration) driven by
//! every client command, then stopped by SIGTERM; a bad configuration key
//! and a client with nobody to talk to fail, saying why. With the `filecoin`
//! feature too, a 2 KiB WindowPoSt made by filecoin-proofs goes through the
//! client and its proof passes filecoin-proofs' verifier.
#![cfg(feature = "daemon")]

mod common;
mod daemon_support;
#[cfg(feature = "filecoin")]
mod filecoin_support;

use std::process::Command;

use common::{cuzk, text};
use daemon_support::{config, json, path, timed, wait_for, Daemon, LARGE, SMALL, TINY};

#[test]
fn a_daemon_serves_every_client_command_and_drains_on_sigterm() {
    timed("a_daemon_serves_every_client_command_and_drains_on_sigterm", || {
        for size in [SMALL, TINY, LARGE] {
            common::params("mul-chain", size);
        }
        // The file's address is replaced by --listen's.
        let file_config = config(common::dir()).replace("{socket}", "/nonexistent/never.sock");
        let d = Daemon::start(&file_config, &["--listen", "unix://{socket}"]);
        let log = d.log();
        assert!(log.contains("backend = \"cpu\"") && log.contains("listen = [\"unix://"), "no echo: {log}");
        assert!(log.contains("--listen") && !d.socket.as_os_str().is_empty(), "{log}");

        let status = json(&d.ok(&["status", "--json"]));
        assert_eq!(status["gpus"][0]["name"], "cpu", "{status}");
        assert_eq!(status["pinned_memory_limit_bytes"], 2u64 << 30, "{status}");
        assert!(status["queues"].as_array().unwrap().iter().any(|q| q["proof_kind"] == "winning"), "{status}");
        assert!(d.ok(&["status"]).contains("QUEUE"));
        // SIGHUP (a closed terminal, a reload by habit) is logged and ignored.
        let pid = d.child.id().to_string();
        assert!(Command::new("kill").args(["-HUP", &pid]).status().unwrap().success());
        wait_for(|| d.log().contains("SIGHUP ignored"), "the SIGHUP log line");
        assert!(d.ok(&["status"]).contains("QUEUE"), "the daemon answers after SIGHUP");

        let id = format!("mul-chain-{SMALL}");
        assert!(d.ok(&["preload", &id]).contains("loaded in"));
        assert!(d.ok(&["preload", &id]).contains("already loaded"));
        let status = json(&d.ok(&["status", "--json"]));
        assert_eq!(status["loaded_srs"][0]["circuit_id"], id.as_str(), "{status}");
        assert_eq!(status["loaded_srs"][0]["tier"], "HOT", "{status}");
        assert!(d.ok(&["evict", &id]).contains("evicted"));
        assert!(d.ok(&["evict", &id]).contains("was not loaded"));
        let o = d.client(&["preload", "porep-1g"]);
        assert!(!o.status.success() && text(&o).contains("InvalidArgument"), "{}", text(&o));

        // One proof of two partitions, written whole, with the daemon's timings.
        let out = d.dir.path().join("proof.bin");
        let workload = ["--workload", "mul-chain", "--size", SMALL];
        let mut prove = vec!["prove", "--partitions", "2", "--out", path(&out)];
        prove.extend_from_slice(&workload);
        let line = d.ok(&prove);
        assert!(line.starts_with("COMPLETED") && line.contains("synthesis") && line.contains("proving"), "{line}");
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 2 * 192);
        prove.push("--json");
        let r = json(&d.ok(&prove));
        assert_eq!((r["status"].as_str(), r["proof_bytes"].as_u64()), (Some("COMPLETED"), Some(384)), "{r}");
        assert!(r["total_ms"].as_u64().unwrap() >= r["gpu_compute_ms"].as_u64().unwrap(), "{r}");

        // Submit, then await into a file.
        let mut submit = vec!["submit", "--request-id", "job-1", "--priority", "high"];
        submit.extend_from_slice(&workload);
        assert_eq!(d.ok(&submit).trim(), "job-1");
        let awaited = d.dir.path().join("awaited.bin");
        assert!(d.ok(&["await", "job-1", "--out", path(&awaited)]).starts_with("COMPLETED job job-1"));
        assert_eq!(std::fs::metadata(&awaited).unwrap().len(), 192);

        // A long job: an await times out (exit 3, the job goes on), then it is cancelled.
        let slow = d.ok(&["submit", "--workload", "mul-chain", "--size", LARGE, "--partitions", "64"]);
        let slow = slow.trim();
        let o = d.client(&["await", slow, "--timeout-ms", "1"]);
        assert_eq!(o.status.code(), Some(3), "{}", text(&o));
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("TIMEOUT"), "{}", text(&o));
        assert!(d.ok(&["cancel", slow]).contains("cancelled"));
        let o = d.client(&["await", slow, "--out", path(&d.dir.path().join("never.bin"))]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains("CANCELLED") && !d.dir.path().join("never.bin").exists(), "{}", text(&o));
        let o = d.client(&["cancel", "no-such-job"]);
        assert!(!o.status.success() && text(&o).contains("NotFound"), "{}", text(&o));

        let metrics = d.ok(&["metrics"]);
        assert!(metrics.contains("cuzk_proofs_completed_total{kind=\"mul-chain\"} 3"), "{metrics}");
        assert!(metrics.contains("cuzk_proofs_cancelled_total{kind=\"mul-chain\"} 1"), "{metrics}");

        // Two clients, eight requests of two kinds.
        let second = format!("--workload mul-chain --size '{TINY}'");
        let mut bench = vec!["bench", "-n", "8", "-c", "2", "--json", "--request", &second];
        bench.extend_from_slice(&workload);
        let report = json(&d.ok(&bench));
        assert_eq!(report["clients"], 2, "{report}");
        let rows = report["circuits"].as_array().unwrap();
        let names: Vec<_> = rows.iter().map(|r| r["circuit"].as_str().unwrap()).collect();
        assert_eq!(names, [id.clone(), format!("mul-chain-{TINY}"), "all".into()], "{report}");
        for (row, sent) in rows.iter().zip([4, 4, 8]) {
            assert_eq!((row["sent"].as_u64(), row["proved"].as_u64()), (Some(sent), Some(sent)), "{report}");
            let l = &row["latency_ms"];
            assert!(l["p50"].as_f64() <= l["p90"].as_f64() && l["p99"].as_f64() <= l["max"].as_f64(), "{report}");
            assert!(row["proofs_per_s"].as_f64().unwrap() > 0.0, "{report}");
        }
        let mut table = vec!["bench", "-n", "2", "-c", "2"];
        table.extend_from_slice(&workload);
        let table = d.ok(&table);
        assert!(table.contains("P99 MS") && table.contains(&id), "{table}");

        let socket = d.socket.clone();
        let (status, log) = d.terminate();
        assert_eq!(status.code(), Some(0), "{log}");
        assert!(log.contains("stopped: 13 completed, 0 failed, 1 cancelled"), "{log}");
        assert!(!socket.exists(), "the socket is removed");
    });
}

#[test]
fn a_daemon_whose_log_pipe_closes_goes_on_serving_and_drains() {
    timed("a_daemon_whose_log_pipe_closes_goes_on_serving_and_drains", || {
        common::params("mul-chain", SMALL);
        // Every request logs (accepted, completed) into the closed pipe.
        let config = config(common::dir()).replace("[server]\n", "[server]\nlog_filter = \"debug\"\n");
        let d = Daemon::start_logging(&config, &[], true);
        for i in 0..3 {
            let id = format!("after-the-pipe-{i}");
            let line = d.ok(&["prove", "--request-id", &id, "--workload", "mul-chain", "--size", SMALL]);
            assert!(line.starts_with("COMPLETED"), "{line}");
        }
        assert!(d.ok(&["status"]).contains("QUEUE"));
        let (status, _) = d.terminate();
        assert_eq!(status.code(), Some(0), "the daemon did not drain and exit cleanly");
    });
}

#[test]
fn bad_configurations_and_absent_daemons_are_errors_that_say_why() {
    timed("bad_configurations_and_absent_daemons_are_errors_that_say_why", || {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, "[server]\nlisten_on = [\"unix:///tmp/x.sock\"]\n").unwrap();
        let o = cuzk(&["daemon", "--config", path(&file)]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains("listen_on") && text(&o).contains(path(&file)), "{}", text(&o));
        std::fs::write(&file, "[engine]\nbackend = \"cpu\"\n").unwrap();
        let o = cuzk(&["daemon", "--config", path(&file), "--listen", "nowhere"]);
        assert!(!o.status.success() && text(&o).contains("server.listen: nowhere"), "{}", text(&o));

        let printed = cuzk(&["daemon", "--print-default-config"]);
        assert!(printed.status.success(), "{}", text(&printed));
        let printed = String::from_utf8(printed.stdout).unwrap();
        assert!(printed.contains("[server]\n") && printed.contains("\nmax_kept = 10000\n"), "{printed}");

        let absent = dir.path().join("absent.sock");
        let o = cuzk(&["client", "--addr", &format!("unix://{}", absent.display()), "status"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let said = text(&o);
        assert!(said.contains("cannot connect to") && said.contains(path(&absent)), "{said}");
        assert!(said.contains("No such file or directory"), "{said}");
        let o = cuzk(&["client", "--addr", "localhost", "status"]);
        assert!(!o.status.success() && text(&o).contains("expected unix:///path or host:port"), "{}", text(&o));
    });
}

/// A 2 KiB WindowPoSt partition: sectors sealed and vanilla proofs made by
/// filecoin-proofs, test parameters written by `cuzk filecoin params`, the
/// vanilla proofs in Curio's JSON, proved through `cuzk client prove`.
#[cfg(feature = "filecoin")]
#[test]
fn a_window_post_goes_through_the_client_and_verifies() {
    use base64::Engine as _;
    use filecoin_support::{randomness, sectors, vanilla, window_verifies, MINER, WINDOW};
    timed("a_window_post_goes_through_the_client_and_verifies", || {
        filecoin_support::init_filecoin_env();
        let params = filecoin_support::params_dir();
        let o = cuzk(&["filecoin", "params", "--params-dir", path(&params), "--write-test-params", "wpost-2k"]);
        assert!(o.status.success(), "{}", text(&o));
        let rand = randomness(5);
        let partition: Vec<_> = sectors().iter().take(2).collect();
        let proofs = vanilla(WINDOW, &rand, &partition);
        let b64: Vec<String> = proofs.iter().map(|p| base64::engine::general_purpose::STANDARD.encode(p)).collect();
        let d = Daemon::start(&config(&params), &[]);
        let file = d.dir.path().join("vanilla.json");
        std::fs::write(&file, serde_json::to_vec(&b64).unwrap()).unwrap();
        let out = d.dir.path().join("wpost.bin");
        let number = cuzk::filecoin::post::abi_number(WINDOW).to_string();
        let miner = MINER.to_string();
        let hex = hex::encode(rand);
        let line = d.ok(&[
            "prove",
            "--vanilla",
            path(&file),
            "--registered-proof",
            &number,
            "--randomness",
            &hex,
            "--miner-id",
            &miner,
            "--partition-index",
            "0",
            "--out",
            path(&out),
        ]);
        assert!(line.starts_with("COMPLETED"), "{line}");
        let proof = std::fs::read(&out).unwrap();
        assert_eq!(proof.len(), 192);
        assert!(window_verifies(&rand, &partition, &proof), "filecoin-proofs refuses the WindowPoSt");
        assert!(!window_verifies(&randomness(6), &partition, &proof));
        let (status, log) = d.terminate();
        assert_eq!(status.code(), Some(0), "{log}");
    });
}
