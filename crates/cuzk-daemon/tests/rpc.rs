//! The daemon's other RPCs and its edges: bad requests of every kind (and a
//! message over the size limit) refused while another client's proof
//! completes, status, metrics over gRPC and HTTP, parameter preload and
//! eviction, result retention, a client that disconnects, and shutdown.

mod support;

use std::time::Instant;

use cuzk_daemon::proto::{self, await_proof_response::Status as AwaitStatus};
use support::filecoin::winning_request;
use support::{eventually, mul_chain_params, parse_metrics, sample, start, status, submit, timed, wait, workload};
use support::{LARGE, SMALL};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_while_another_clients_proof_completes() {
    let t = Instant::now();
    mul_chain_params(LARGE);
    let good = winning_request("good", 7);
    let daemon = start(|_| {}).await;
    let mut other = daemon.tcp().await;
    let proving = tokio::spawn(async move {
        other.prove(proto::ProveRequest { submit: Some(good) }).await.unwrap().into_inner().result.unwrap()
    });
    let mut c = daemon.unix().await;
    let base = winning_request("", 7);
    let with = |f: &dyn Fn(&mut proto::SubmitProofRequest)| {
        let mut r = base.clone();
        f(&mut r);
        r
    };
    let cases: Vec<(&str, proto::SubmitProofRequest)> = vec![
        ("proof_kind", with(&|r| r.proof_kind = 0)),
        ("proof_kind", with(&|r| r.proof_kind = 77)),
        ("priority", with(&|r| r.priority = 9)),
        ("randomness", with(&|r| r.randomness.truncate(31))),
        ("vanilla_proofs", with(&|r| r.vanilla_proofs.clear())),
        ("sector_size", with(&|r| r.sector_size = 8 << 20)),
        ("registered_proof", with(&|r| r.registered_proof = 99)),
        ("registered_proof", with(&|r| r.registered_proof = 5)), // a WindowPoSt type
        ("vanilla_proofs", with(&|r| r.vanilla_proofs[0].truncate(40))),
        ("vanilla_proofs", with(&|r| r.vanilla_proofs.push(r.vanilla_proofs[0].clone()))),
        ("workload_size", workload("", 0, 1)),
        ("mul-chain-1025", workload("", SMALL + 1, 1)),
        ("workload_partitions", workload("", SMALL, 65)),
        ("request_id", with(&|r| r.request_id = "forged\n2026-12-07T00:00:00Z INFO accepted".into())),
        ("request_id", with(&|r| r.request_id = "\u{1b}[31mred".into())),
        ("request_id", with(&|r| r.request_id = "x".repeat(10 << 20))),
    ];
    for (field, req) in cases {
        let err = c.submit_proof(req).await.unwrap_err();
        assert!(matches!(err.code(), Code::InvalidArgument | Code::FailedPrecondition), "{field}: {err}");
        assert!(err.message().contains(field), "{field}: {err}");
    }
    // Vanilla proofs that decode but do not prove their challenges.
    let mut wrong = base.clone();
    wrong.randomness = support::filecoin::randomness(8).to_vec();
    let err = c.submit_proof(wrong).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    assert!(err.message().contains("vanilla"), "{err}");
    let err = c.prove(proto::ProveRequest { submit: None }).await.unwrap_err();
    assert!(err.code() == Code::InvalidArgument && err.message().contains("submit"), "{err}");
    for id in ["porep-1g", "", "mul-chain-"] {
        let err = c.preload_srs(proto::PreloadSrsRequest { circuit_id: id.into() }).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{id}: {err}");
    }
    let err = c.preload_srs(proto::PreloadSrsRequest { circuit_id: "mul-chain-3".into() }).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "{err}");
    let err = c.await_proof(proto::AwaitProofRequest { job_id: "nobody".into(), timeout_ms: 0 }).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    // Many empty vanilla proofs (two bytes each on the wire, a vector each
    // decoded) are refused before they are decoded.
    let mut many = winning_request("", 7);
    many.vanilla_proofs = vec![Vec::new(); (1 << 20) + 1];
    let err = c.submit_proof(many).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    assert!(err.message().contains("fields"), "{err}");
    // A request id that is not UTF-8 does not decode: the sender's fault.
    let mut raw = prost::Message::encode_to_vec(&workload("", SMALL, 1));
    raw.extend_from_slice(&[0x0a, 2, 0xff, 0xfe]); // field 1 (request_id) again, later wins
    let err = raw_submit(&daemon, raw).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    assert!(err.message().contains("does not decode"), "{err}");
    // 300 MiB is over the limit (272 MiB by default); 257 MiB is within.
    let mut huge = workload("huge", SMALL, 1);
    huge.vanilla_proof = vec![0u8; 300 << 20];
    let err = c.submit_proof(huge).await.expect_err("a 300 MiB message is refused");
    eprintln!("300 MiB message: {:?}: {}", err.code(), err.message());
    let mut big = workload("big", SMALL, 1);
    big.vanilla_proof = vec![0u8; 257 << 20];
    let mut fresh = daemon.tcp().await;
    let accepted = fresh.prove(proto::ProveRequest { submit: Some(big) }).await.unwrap().into_inner().result.unwrap();
    assert_eq!(status(&accepted), AwaitStatus::Completed, "{}", accepted.error_message);
    let r = proving.await.unwrap();
    assert_eq!(status(&r), AwaitStatus::Completed, "{}", r.error_message);
    assert!(support::filecoin::winning_verifies(7, &r.proof));
    let summary = daemon.stop().await;
    assert_eq!((summary.completed, summary.failed), (2, 0));

    // A parameter file without its .vk is refused before anything is
    // proved: the self-check would read the key from that file itself.
    let bare = tempfile::tempdir().unwrap();
    let id: cuzk_filecoin::CircuitId = "winning-2k".parse().unwrap();
    let files = cuzk_filecoin::ParamCache::new(support::param_dir()).files(id).unwrap();
    std::fs::copy(&files.params, bare.path().join(files.params.file_name().unwrap())).unwrap();
    let dir = bare.path().to_path_buf();
    let lone = start(move |c| c.params.dir = dir).await;
    let err = lone.unix().await.submit_proof(winning_request("lone", 7)).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err}");
    assert!(err.message().contains("no verifying key"), "{err}");
    lone.stop().await;
    timed("bad_requests_are_refused_while_another_clients_proof_completes", t);
}

/// Sends `raw` protobuf bytes as a SubmitProofRequest over TCP.
async fn raw_submit(daemon: &support::Daemon, raw: Vec<u8>) -> Result<proto::SubmitProofResponse, tonic::Status> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", daemon.tcp)).unwrap().connect().await.unwrap();
    support::raw::submit(channel, raw, None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_metrics_preload_and_eviction() {
    let t = Instant::now();
    let path = mul_chain_params(LARGE);
    let file_len = std::fs::metadata(&path).unwrap().len();
    let daemon = start(|_| {}).await;
    let mut c = daemon.tcp().await;
    let id = format!("mul-chain-{LARGE}");
    let first = c.preload_srs(proto::PreloadSrsRequest { circuit_id: id.clone() }).await.unwrap().into_inner();
    assert!(!first.already_loaded);
    let again = c.preload_srs(proto::PreloadSrsRequest { circuit_id: id.clone() }).await.unwrap().into_inner();
    assert!(again.already_loaded);
    let s = c.get_status(proto::GetStatusRequest {}).await.unwrap().into_inner();
    let srs = s.loaded_srs.iter().find(|l| l.circuit_id == id).expect("listed");
    assert_eq!((srs.size_bytes, srs.tier, srs.ref_count), (file_len, proto::srs_status::Tier::Hot as i32, 0));
    assert_eq!(s.gpus.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), ["cpu"]);
    for kind in ["porep", "snap", "wpost", "winning"] {
        assert!(s.queues.iter().any(|q| q.proof_kind == kind), "queue {kind} listed");
    }
    assert!(s.pinned_memory_bytes >= file_len && s.pinned_memory_limit_bytes == 4 << 30, "{s:?}");
    // Eviction is refused while a job uses the parameters.
    let busy = submit(&mut c, workload("busy", LARGE, 2)).await;
    let err = c.evict_srs(proto::EvictSrsRequest { circuit_id: id.clone() }).await.unwrap_err();
    assert!(err.code() == Code::FailedPrecondition && err.message().contains("in use"), "{err}");
    let s = c.get_status(proto::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(s.loaded_srs.iter().find(|l| l.circuit_id == id).unwrap().ref_count, 1);
    assert_eq!(status(&wait(&mut c, &busy).await), AwaitStatus::Completed);
    let evicted = c.evict_srs(proto::EvictSrsRequest { circuit_id: id.clone() }).await.unwrap().into_inner();
    assert_eq!((evicted.was_loaded, evicted.freed_bytes), (true, file_len));
    let twice = c.evict_srs(proto::EvictSrsRequest { circuit_id: id.clone() }).await.unwrap().into_inner();
    assert!(!twice.was_loaded);
    let s = c.get_status(proto::GetStatusRequest {}).await.unwrap().into_inner();
    assert!(s.loaded_srs.is_empty() && s.total_proofs_completed == 1, "{s:?}");
    // The device proved the job's partitions and is idle, in service.
    let cpu = &s.gpus[0];
    assert!(cpu.calls >= 1 && cpu.faults == 0 && cpu.out_of_service_reason.is_empty(), "{cpu:?}");
    assert!(cpu.current_job_id.is_empty() && cpu.vram_total_bytes == 0, "the CPU has no VRAM: {cpu:?}");
    // The same metrics over gRPC and HTTP, both strictly parsed.
    let text = c.get_metrics(proto::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    let samples = parse_metrics(&text);
    let kind = [("kind", "mul-chain")];
    assert_eq!(sample(&samples, "cuzk_proofs_completed_total", &kind), Some(1.0), "{text}");
    assert_eq!(sample(&samples, "cuzk_proof_total_seconds_count", &kind), Some(1.0));
    assert_eq!(sample(&samples, "cuzk_memory_budget_bytes", &[]), Some((4u64 << 30) as f64));
    assert_eq!(sample(&samples, "cuzk_queue_depth", &[("kind", "winning"), ("state", "pending")]), Some(0.0));
    assert_eq!(sample(&samples, "cuzk_device_in_service", &[("device", "cpu")]), Some(1.0), "{text}");
    assert_eq!(sample(&samples, "cuzk_device_calls", &[("device", "cpu")]), Some(cpu.calls as f64));
    let mut http = tokio::net::TcpStream::connect(daemon.metrics).await.unwrap();
    http.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut response = String::new();
    http.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let scraped = parse_metrics(body);
    assert_eq!(sample(&scraped, "cuzk_proofs_completed_total", &kind), Some(1.0));
    daemon.stop().await;
    timed("status_metrics_preload_and_eviction", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_results_are_forgotten_beyond_the_kept_count() {
    let t = Instant::now();
    mul_chain_params(SMALL);
    let daemon = start(|c| c.results.max_kept = 2).await;
    let mut c = daemon.tcp().await;
    for i in 0..3 {
        let id = submit(&mut c, workload(&format!("r{i}"), SMALL, 1)).await;
        assert_eq!(status(&wait(&mut c, &id).await), AwaitStatus::Completed);
    }
    eventually("the oldest result is forgotten", || {
        let mut c = c.clone();
        async move {
            let r = c.await_proof(proto::AwaitProofRequest { job_id: "r0".into(), timeout_ms: 1 }).await;
            matches!(r, Err(e) if e.code() == Code::NotFound)
        }
    })
    .await;
    for id in ["r1", "r2"] {
        assert_eq!(status(&wait(&mut c, id).await), AwaitStatus::Completed, "{id} is kept");
    }
    daemon.stop().await;
    timed("finished_results_are_forgotten_beyond_the_kept_count", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_from_prove_cancels_its_job() {
    let t = Instant::now();
    mul_chain_params(LARGE);
    let daemon = start(|_| {}).await;
    let mut c = daemon.tcp().await;
    let mut gone = daemon.unix().await;
    let left = proto::ProveRequest { submit: Some(workload("left", LARGE, 16)) };
    let call = tokio::spawn(async move { gone.prove(left).await });
    eventually("the job is accepted", || {
        let mut c = c.clone();
        async move { c.await_proof(proto::AwaitProofRequest { job_id: "left".into(), timeout_ms: 1 }).await.is_ok() }
    })
    .await;
    call.abort();
    let r = wait(&mut c, "left").await;
    assert_eq!(status(&r), AwaitStatus::Cancelled, "{r:?}");
    assert_eq!(daemon.stop().await.cancelled, 1);
    timed("a_client_that_disconnects_from_prove_cancels_its_job", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_every_accepted_job_then_stops() {
    let t = Instant::now();
    mul_chain_params(LARGE);
    let mut daemon = start(|_| {}).await;
    let mut c = daemon.tcp().await;
    for i in 0..2 {
        submit(&mut c, workload(&format!("s{i}"), LARGE, 1)).await;
    }
    let mut p = daemon.unix().await;
    let request = proto::ProveRequest { submit: Some(workload("p", LARGE, 1)) };
    let in_flight = tokio::spawn(async move { p.prove(request).await });
    eventually("the Prove call's job is accepted", || {
        let mut c = c.clone();
        async move { c.await_proof(proto::AwaitProofRequest { job_id: "p".into(), timeout_ms: 1 }).await.is_ok() }
    })
    .await;
    let socket = daemon.unix.clone();
    daemon.begin_stop();
    let r = in_flight.await.unwrap().expect("the Prove call in flight is answered").into_inner().result.unwrap();
    assert_eq!(status(&r), AwaitStatus::Completed, "{}", r.error_message);
    // While it stops, new jobs are refused and the SubmitProof jobs'
    // results can still be fetched: the daemon waits for them.
    let refused = c.submit_proof(workload("late", LARGE, 1)).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unavailable, "{refused}");
    for i in 0..2 {
        let id = format!("s{i}");
        let r = c.await_proof(proto::AwaitProofRequest { job_id: id.clone(), timeout_ms: 0 }).await.unwrap().into_inner();
        assert_eq!(status(&r), AwaitStatus::Completed, "{id}: {}", r.error_message);
    }
    let summary = (&mut daemon.done).await.unwrap().unwrap();
    assert_eq!((summary.completed, summary.failed, summary.cancelled), (3, 0, 0), "no accepted job is lost");
    assert!(!socket.exists(), "the unix socket is removed");
    assert!(tokio::net::TcpStream::connect(&daemon.tcp).await.is_err(), "nothing listens any more");
    timed("shutdown_finishes_every_accepted_job_then_stops", t);
}

/// One HTTP/2 frame.
fn h2_frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut out = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// GetStatus over the unix socket as grpcio and grpc-java ask for it, with
/// the socket path (%-encoded, or as it is) as the `:authority`, written
/// frame by frame: each stream is answered with grpc-status 0, where h2
/// alone resets it with PROTOCOL_ERROR.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_path_as_authority_is_answered_over_the_unix_socket() {
    let daemon = start(|_| {}).await;
    let mut s = tokio::net::UnixStream::connect(&daemon.unix).await.unwrap();
    let path = daemon.unix.display().to_string();
    let encoded = path.replace('/', "%2F");
    let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    bytes.extend(h2_frame(0x4, 0, 0, &[]));
    let mut encoder = fluke_hpack::Encoder::new();
    for (i, authority) in [encoded.as_str(), path.as_str()].into_iter().enumerate() {
        let headers: [(&[u8], &[u8]); 6] = [
            (b":method", b"POST"),
            (b":scheme", b"http"),
            (b":path", b"/cuzk.v1.ProvingEngine/GetStatus"),
            (b":authority", authority.as_bytes()),
            (b"te", b"trailers"),
            (b"content-type", b"application/grpc"),
        ];
        let stream = 2 * i as u32 + 1;
        bytes.extend(h2_frame(0x1, 0x4, stream, &encoder.encode(headers)));
        bytes.extend(h2_frame(0x0, 0x1, stream, &[0, 0, 0, 0, 0]));
    }
    s.write_all(&bytes).await.unwrap();
    let mut decoder = fluke_hpack::Decoder::new();
    let mut answered = Vec::new();
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    while answered.len() < 2 {
        assert!(Instant::now() < deadline, "answered so far: {answered:?}");
        let mut head = [0u8; 9];
        tokio::time::timeout(deadline - Instant::now(), s.read_exact(&mut head))
            .await
            .unwrap_or_else(|_| panic!("no frame within 30 s; answered so far: {answered:?}"))
            .expect("the daemon keeps the connection open");
        let len = (usize::from(head[0]) << 16) | (usize::from(head[1]) << 8) | usize::from(head[2]);
        let mut payload = vec![0u8; len];
        s.read_exact(&mut payload).await.unwrap();
        let (kind, flags) = (head[3], head[4]);
        let stream = u32::from_be_bytes(head[5..9].try_into().unwrap()) & 0x7fff_ffff;
        match kind {
            0x4 if flags & 1 == 0 => s.write_all(&h2_frame(0x4, 1, 0, &[])).await.unwrap(),
            0x3 => panic!("stream {stream} reset: error code {:?}", &payload[..4]),
            0x7 => panic!("connection closed by GOAWAY: {payload:?}"),
            0x1 => {
                assert_eq!(flags & 0x8, 0, "unpadded");
                let headers = decoder.decode(&payload[if flags & 0x20 != 0 { 5 } else { 0 }..]).unwrap();
                let grpc_status = headers.iter().find(|(n, _)| n == b"grpc-status").map(|(_, v)| v.clone());
                if flags & 0x1 != 0 {
                    answered.push((stream, grpc_status));
                }
            }
            _ => {}
        }
    }
    answered.sort();
    assert_eq!(answered, [(1, Some(b"0".to_vec())), (3, Some(b"0".to_vec()))]);
    drop(s);
    daemon.stop().await;
}
