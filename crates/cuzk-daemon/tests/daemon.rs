//! The daemon end to end on the CPU backend, over loopback TCP and a unix
//! socket: real 2 KiB WinningPoSt and WindowPoSt proofs checked by
//! filecoin-proofs' own verifiers, each RPC, idempotency, timeouts,
//! cancellation, priorities, bad requests beside a proof that completes,
//! status, metrics, retention and a draining shutdown.

mod support;

use std::time::Instant;

use cuzk_daemon::proto::{self, await_proof_response::Status as AwaitStatus};
use support::filecoin::{window_request, window_verifies, winning_request, winning_verifies};
use support::{eventually, mul_chain_params, start, status, submit, timed, wait, workload, LARGE, SMALL};
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn winning_and_window_post_prove_over_unix_and_tcp() {
    let t = Instant::now();
    let (winning, window) = (winning_request("", 1), window_request("w-1", 2));
    let daemon = start(|_| {}).await;
    let (mut unix, mut tcp) = (daemon.unix().await, daemon.tcp().await);
    let (a, b) = tokio::join!(
        unix.prove(proto::ProveRequest { submit: Some(winning) }),
        tcp.prove(proto::ProveRequest { submit: Some(window) }),
    );
    let (a, b) = (a.unwrap().into_inner().result.unwrap(), b.unwrap().into_inner().result.unwrap());
    assert_eq!(status(&a), AwaitStatus::Completed, "{}", a.error_message);
    assert_eq!(status(&b), AwaitStatus::Completed, "{}", b.error_message);
    assert_eq!((a.proof.len(), b.proof.len()), (192, 192));
    assert!(winning_verifies(1, &a.proof), "filecoin-proofs refuses the WinningPoSt");
    assert!(window_verifies(2, &b.proof), "filecoin-proofs refuses the WindowPoSt");
    assert!(a.total_ms >= a.gpu_compute_ms && a.gpu_compute_ms > 0 && a.synthesis_ms > 0, "{a:?}");
    assert_eq!(b.job_id, "w-1");
    // A proof for other randomness does not pass for this one.
    assert!(!winning_verifies(3, &a.proof));
    let summary = daemon.stop().await;
    assert_eq!((summary.completed, summary.failed), (2, 0));
    timed("winning_and_window_post_prove_over_unix_and_tcp", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_are_idempotent_and_awaits_time_out() {
    let t = Instant::now();
    mul_chain_params(SMALL);
    mul_chain_params(LARGE);
    let daemon = start(|_| {}).await;
    let mut c = daemon.tcp().await;
    let slow = workload("slow", LARGE, 2);
    let first = c.submit_proof(slow.clone()).await.unwrap().into_inner();
    assert_eq!(first.job_id, "slow");
    let again = c.submit_proof(slow.clone()).await.unwrap().into_inner();
    assert_eq!(again.job_id, "slow", "the same request joins its job");
    let other = c.submit_proof(workload("slow", LARGE, 3)).await.unwrap_err();
    assert_eq!(other.code(), Code::AlreadyExists, "{other}");
    assert!(other.message().contains("slow"), "{other}");
    let fresh = submit(&mut c, workload("", SMALL, 1)).await;
    let fresh2 = submit(&mut c, workload("", SMALL, 1)).await;
    assert!(!fresh.is_empty() && fresh != fresh2 && fresh != "slow");
    let queued = c.submit_proof(workload("queued", SMALL, 1)).await.unwrap().into_inner();
    assert!(queued.queue_position >= 1, "a job is ahead: {queued:?}");
    let timeout = c.await_proof(proto::AwaitProofRequest { job_id: "slow".into(), timeout_ms: 1 }).await.unwrap();
    assert_eq!(status(timeout.get_ref()), AwaitStatus::Timeout);
    let done = wait(&mut c, "slow").await;
    assert_eq!(status(&done), AwaitStatus::Completed, "the job went on after the timeout: {}", done.error_message);
    assert_eq!(done.proof.len(), 2 * 192);
    for id in [fresh.as_str(), fresh2.as_str(), "queued"] {
        assert_eq!(status(&wait(&mut c, id).await), AwaitStatus::Completed, "{id}");
    }
    // A finished job is still joined, not proved again.
    let joined = c.prove(proto::ProveRequest { submit: Some(slow) }).await.unwrap().into_inner().result.unwrap();
    assert_eq!(joined.proof, done.proof);
    assert_eq!(daemon.stop().await.completed, 4);
    timed("submissions_are_idempotent_and_awaits_time_out", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_and_running_jobs_cancel_and_their_memory_returns() {
    let t = Instant::now();
    mul_chain_params(LARGE);
    // Classic synthesis: no recording stays behind to hold budget bytes.
    let daemon = start(|c| c.engine.synthesis = "classic".into()).await;
    let mut c = daemon.unix().await;
    c.preload_srs(proto::PreloadSrsRequest { circuit_id: format!("mul-chain-{LARGE}") }).await.unwrap();
    let idle = c.get_status(proto::GetStatusRequest {}).await.unwrap().into_inner().pinned_memory_bytes;
    let running = submit(&mut c, workload("running", LARGE, 16)).await;
    let queued = submit(&mut c, workload("queued", LARGE, 16)).await;
    let mut probe = c.clone();
    eventually("the first job starts", || {
        let mut p = probe.clone();
        async move {
            let s = p.get_status(proto::GetStatusRequest {}).await.unwrap().into_inner();
            s.queues.iter().any(|q| q.proof_kind == "mul-chain" && q.in_progress == 1 && q.pending == 1)
        }
    })
    .await;
    let q = c.cancel_proof(proto::CancelProofRequest { job_id: queued.clone() }).await.unwrap().into_inner();
    assert!(!q.was_running, "the second job had not started");
    let r = c.cancel_proof(proto::CancelProofRequest { job_id: running.clone() }).await.unwrap().into_inner();
    assert!(r.was_running);
    for id in [&queued, &running] {
        assert_eq!(status(&wait(&mut c, id).await), AwaitStatus::Cancelled, "{id}");
    }
    eventually("the cancelled partitions give their memory back", || {
        let mut p = probe.clone();
        async move { p.get_status(proto::GetStatusRequest {}).await.unwrap().into_inner().pinned_memory_bytes == idle }
    })
    .await;
    let gone = probe.cancel_proof(proto::CancelProofRequest { job_id: "nobody".into() }).await.unwrap_err();
    assert_eq!(gone.code(), Code::NotFound);
    let summary = daemon.stop().await;
    assert_eq!((summary.cancelled, summary.completed), (2, 0));
    timed("queued_and_running_jobs_cancel_and_their_memory_returns", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_a_cancel_or_a_prove_timeout_starts_a_fresh_job() {
    // Curio's ids are fixed per sector, and it retries under the same id a
    // proof that its timeout cancelled: the retry must prove, not answer
    // CANCELLED until the retention time passes.
    let t = Instant::now();
    mul_chain_params(LARGE);
    let daemon = start(|c| c.engine.synthesis = "classic".into()).await;
    let mut c = daemon.unix().await;
    let id = "porep-1000-7";
    submit(&mut c, workload(id, LARGE, 16)).await;
    c.cancel_proof(proto::CancelProofRequest { job_id: id.into() }).await.unwrap();
    assert_eq!(status(&wait(&mut c, id).await), AwaitStatus::Cancelled);
    let retry = c.prove(proto::ProveRequest { submit: Some(workload(id, LARGE, 1)) }).await.unwrap();
    let retry = retry.into_inner().result.unwrap();
    assert_eq!(status(&retry), AwaitStatus::Completed, "{}", retry.error_message);
    assert_eq!(retry.proof.len(), 192);

    // A Prove whose client gives up (a deadline) cancels its job; the same
    // request again proves, even while the cancelled job is winding down.
    let slow = || proto::ProveRequest { submit: Some(workload("snap-1000-8", LARGE, 16)) };
    let gave_up = tokio::time::timeout(std::time::Duration::from_millis(300), c.clone().prove(slow())).await;
    assert!(gave_up.is_err(), "the slow proof finished within its client's deadline");
    let mut probe = c.clone();
    eventually("the abandoned job is cancelled", || {
        let mut p = probe.clone();
        async move {
            let r = p.await_proof(proto::AwaitProofRequest { job_id: "snap-1000-8".into(), timeout_ms: 1 }).await;
            r.is_ok_and(|r| status(r.get_ref()) != AwaitStatus::Timeout)
        }
    })
    .await;
    let again = probe.prove(slow()).await.unwrap().into_inner().result.unwrap();
    assert_eq!(status(&again), AwaitStatus::Completed, "{}", again.error_message);
    assert_eq!(again.proof.len(), 16 * 192);
    let summary = daemon.stop().await;
    assert_eq!((summary.completed, summary.cancelled, summary.failed), (2, 2, 0));
    timed("a_retry_after_a_cancel_or_a_prove_timeout_starts_a_fresh_job", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_winning_post_overtakes_queued_normal_work() {
    let t = Instant::now();
    mul_chain_params(LARGE);
    let winning = winning_request("winning", 5);
    let daemon = start(|c| c.params.preload = vec!["winning-2k".into(), format!("mul-chain-{LARGE}")]).await;
    let c = daemon.tcp().await;
    let mut normal = Vec::new();
    for i in 0..3 {
        normal.push(submit(&mut c.clone(), workload(&format!("n{i}"), LARGE, 2)).await);
    }
    // Submitted last, with the priority left to the daemon (CRITICAL).
    submit(&mut c.clone(), winning).await;
    let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut waits = Vec::new();
    for id in normal.iter().cloned().chain(["winning".to_string()]) {
        let (mut client, order) = (c.clone(), order.clone());
        waits.push(tokio::spawn(async move {
            let r = wait(&mut client, &id).await;
            assert_eq!(status(&r), AwaitStatus::Completed, "{id}: {}", r.error_message);
            order.lock().unwrap().push(id);
        }));
    }
    for w in waits {
        w.await.unwrap();
    }
    let order = order.lock().unwrap().clone();
    let at = order.iter().position(|id| id == "winning").unwrap();
    assert!(at < normal.len() - 1, "the WinningPoSt finished behind queued NORMAL jobs: {order:?}");
    daemon.stop().await;
    timed("a_winning_post_overtakes_queued_normal_work", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bounded_load_ends_with_every_job_answered() {
    let t = Instant::now();
    mul_chain_params(SMALL);
    const CLIENTS: usize = 16;
    const EACH: usize = 4;
    let daemon = start(|c| c.engine.synthesis_workers = Some(2)).await;
    let mut calls = Vec::new();
    for client in 0..CLIENTS {
        let mut c = if client % 2 == 0 { daemon.unix().await } else { daemon.tcp().await };
        calls.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in 0..EACH {
                let req = workload(&format!("load-{client}-{i}"), SMALL, 1 + (i % 2) as u32);
                let r = c.prove(proto::ProveRequest { submit: Some(req) }).await.unwrap().into_inner().result.unwrap();
                assert_eq!(status(&r), AwaitStatus::Completed, "{}: {}", r.job_id, r.error_message);
                assert_eq!(r.proof.len(), 192 * (1 + i % 2));
                ids.push(r.job_id);
            }
            ids
        }));
    }
    let mut ids = std::collections::BTreeSet::new();
    for call in calls {
        ids.extend(call.await.unwrap());
    }
    assert_eq!(ids.len(), CLIENTS * EACH, "every request answered under its own id");
    let text = daemon.tcp().await.get_metrics(proto::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    let samples = support::parse_metrics(&text);
    let completed = support::sample(&samples, "cuzk_proofs_completed_total", &[("kind", "mul-chain")]);
    assert_eq!(completed, Some((CLIENTS * EACH) as f64));
    let summary = daemon.stop().await;
    assert_eq!((summary.completed, summary.failed, summary.cancelled), ((CLIENTS * EACH) as u64, 0, 0), "none lost");
    timed("a_bounded_load_ends_with_every_job_answered", t);
}
