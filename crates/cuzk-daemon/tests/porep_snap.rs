//! PoRep C2 and SnapDeals through the daemon on the CPU backend: a 2 KiB
//! sector's C1 output in Curio's `c1.json` wrapper and a 2 KiB update's
//! partition proofs, sent over the unix socket with `Prove` as Curio's
//! client fills the request, the bytes accepted by filecoin-proofs' own
//! verifiers; while each proof runs, every malformed or inconsistent field
//! is refused `INVALID_ARGUMENT` naming it, and the proof still completes.

mod support;

use std::time::Instant;

use cuzk_daemon::proto::{self, await_proof_response::Status as AwaitStatus};
use cuzk_filecoin::commitment::{to_cid_bytes, CommitmentKind};
use cuzk_filecoin::testdata::curio_c1_wrapper;
use cuzk_filecoin::SectorSize;
use support::filecoin::{c1, porep_request, porep_verifies, snap, snap_request, snap_verifies, POREP_SECTOR};
use support::{eventually, start, status, timed, wait, Client};
use tonic::Code;

type Request = proto::SubmitProofRequest;

/// `base` changed by `edit`.
fn with(base: &proto::SubmitProofRequest, edit: impl FnOnce(&mut proto::SubmitProofRequest)) -> Request {
    let mut r = base.clone();
    edit(&mut r);
    r
}

/// Each request is refused `INVALID_ARGUMENT` with a message that starts
/// with its field (and holds `detail`, when given).
async fn refused(c: &mut Client, cases: Vec<(&str, &str, Request)>) {
    for (field, detail, req) in cases {
        let err = c.submit_proof(req).await.expect_err(field);
        assert_eq!(err.code(), Code::InvalidArgument, "{field}: {err}");
        assert!(err.message().starts_with(&format!("{field}: ")), "{field}: {err}");
        assert!(err.message().contains(detail), "{field} ({detail}): {err}");
    }
}

/// A `c1.json` wrapper of sector 7 at 2 KiB whose `Phase1Out` is `text`.
fn wrapper_of(text: &str) -> Vec<u8> {
    serde_json::json!({ "SectorNum": POREP_SECTOR, "Phase1Out": text, "SectorSize": 2048 }).to_string().into_bytes()
}

/// Whether the job `id` exists yet (accepted, maybe still being prepared).
async fn accepted(c: &Client, id: &str) -> bool {
    let request = proto::AwaitProofRequest { job_id: id.into(), timeout_ms: 1 };
    c.clone().await_proof(request).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn porep_c2_proves_over_unix_while_bad_requests_are_refused() {
    let t = Instant::now();
    let good = porep_request("porep-1000-7");
    let c1 = c1();
    let daemon = start(|_| {}).await;
    let mut prover = daemon.unix().await;
    let request = good.clone();
    let proving = tokio::spawn(async move { prover.prove(proto::ProveRequest { submit: Some(request) }).await });
    let mut c = daemon.unix().await;
    eventually("the PoRep job is accepted", || accepted(&c, "porep-1000-7")).await;

    // Vanilla proofs that decode but were drawn for another seed: refused
    // by filecoin-proofs' own check of the C1 before any circuit is built.
    let mut other_seed: serde_json::Value = serde_json::from_slice(&c1.json).unwrap();
    other_seed["seed"][0] = serde_json::json!((other_seed["seed"][0].as_u64().unwrap() + 1) % 256);
    let other_seed = curio_c1_wrapper(&serde_json::to_vec(&other_seed).unwrap(), POREP_SECTOR, SectorSize::Kib2);
    let of_sector_8 = curio_c1_wrapper(&c1.json, POREP_SECTOR + 1, SectorSize::Kib2);
    let of_8_mib = curio_c1_wrapper(&c1.json, POREP_SECTOR, SectorSize::Mib8);
    let base = porep_request("");
    let cases = vec![
        ("registered_proof", "not a seal proof number", with(&base, |r| r.registered_proof = 20)),
        ("registered_proof", "Synthetic", with(&base, |r| r.registered_proof = 10)),
        ("registered_proof", "StackedDrg2KiBV1_1 proof", with(&base, |r| r.registered_proof = 0)),
        ("sector_size", "8388608 bytes", with(&base, |r| r.sector_size = 8 << 20)),
        ("sector_number", "SectorNum is 7", with(&base, |r| r.sector_number = POREP_SECTOR + 1)),
        ("sector_number", "SectorNum is 8", with(&base, |r| r.vanilla_proof = of_sector_8)),
        ("miner_id", "replica_id", with(&base, |r| r.miner_id += 1)),
        ("miner_id or sector_number", "replica_id", with(&base, |r| {
            r.vanilla_proof = c1.json.clone();
            r.sector_number += 1;
        })),
        ("vanilla_proof", "missing", with(&base, |r| r.vanilla_proof.clear())),
        ("vanilla_proof", "not a JSON object", with(&base, |r| r.vanilla_proof = b"C1".to_vec())),
        ("vanilla_proof", "neither", with(&base, |r| r.vanilla_proof = b"{\"SectorSize\":2048}".to_vec())),
        ("vanilla_proof", "Phase1Out: not standard base64", with(&base, |r| r.vanilla_proof = wrapper_of("!"))),
        // "e30=" is "{}".
        ("vanilla_proof", "Phase1Out: not a C1", with(&base, |r| r.vanilla_proof = wrapper_of("e30="))),
        ("vanilla_proof", "SectorSize: 8388608 bytes", with(&base, |r| r.vanilla_proof = of_8_mib)),
        ("vanilla_proof", "do not verify", with(&base, |r| r.vanilla_proof = other_seed)),
        ("vanilla_proofs", "must be empty", with(&base, |r| r.vanilla_proofs = vec![c1.json.clone()])),
    ];
    refused(&mut c, cases).await;

    // The raw C1 JSON (what filecoin-ffi returns) is taken as well, the
    // sector number then from the request; queued behind the first proof,
    // it is cancelled unless it already ran.
    let raw = with(&base, |r| {
        r.request_id = "raw".into();
        r.vanilla_proof = c1.json.clone();
    });
    assert_eq!(c.submit_proof(raw).await.expect("the raw C1 JSON is accepted").into_inner().job_id, "raw");
    c.cancel_proof(proto::CancelProofRequest { job_id: "raw".into() }).await.unwrap();
    let raw = wait(&mut c, "raw").await;
    match status(&raw) {
        AwaitStatus::Cancelled => {}
        AwaitStatus::Completed => assert!(porep_verifies(&raw.proof), "the raw C1's proof does not verify"),
        other => panic!("the raw C1's job ended {other:?}: {}", raw.error_message),
    }

    let r = proving.await.unwrap().expect("Prove answers").into_inner().result.unwrap();
    assert_eq!(status(&r), AwaitStatus::Completed, "{}", r.error_message);
    assert_eq!((r.job_id.as_str(), r.proof.len()), ("porep-1000-7", 192));
    assert!(porep_verifies(&r.proof), "filecoin-proofs' verify_seal refuses the daemon's PoRep");
    let mut flipped = r.proof.clone();
    flipped[100] ^= 1;
    assert!(!porep_verifies(&flipped), "a changed proof must not verify");
    assert!(r.synthesis_ms > 0 && r.gpu_compute_ms > 0 && r.total_ms >= r.gpu_compute_ms, "{r:?}");
    let summary = daemon.stop().await;
    assert_eq!(summary.failed, 0);
    timed("porep_c2_proves_over_unix_while_bad_requests_are_refused", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snap_deals_proves_over_unix_while_bad_requests_are_refused() {
    let t = Instant::now();
    let good = snap_request("snap-1000-300");
    let s = snap();
    let daemon = start(|_| {}).await;
    let mut prover = daemon.unix().await;
    let request = good.clone();
    let proving = tokio::spawn(async move { prover.prove(proto::ProveRequest { submit: Some(request) }).await });
    let mut c = daemon.unix().await;

    // CIDs of the wrong kind around the right digests.
    let d_cid_of_r_old = to_cid_bytes(CommitmentKind::Unsealed, &s.comm_r_old);
    let r_cid_of_d_new = to_cid_bytes(CommitmentKind::Sealed, &s.comm_d_new);
    let base = snap_request("");
    let cases = vec![
        ("registered_proof", "RegisteredUpdateProof(5)", with(&base, |r| r.registered_proof = 5)),
        ("sector_size", "8388608 bytes", with(&base, |r| r.sector_size = 8 << 20)),
        ("vanilla_proofs", "snap-8m has 4 partitions", with(&base, |r| {
            r.registered_proof = 1;
            r.sector_size = 0;
        })),
        ("vanilla_proofs", "missing", with(&base, |r| r.vanilla_proofs.clear())),
        ("vanilla_proof", "must be empty", with(&base, |r| r.vanilla_proof = b"C1".to_vec())),
        ("comm_r_old", "codec fil-commitment-unsealed", with(&base, |r| r.comm_r_old = d_cid_of_r_old)),
        ("comm_d_new", "codec fil-commitment-sealed", with(&base, |r| r.comm_d_new = r_cid_of_d_new)),
        ("comm_r_new", "truncated", with(&base, |r| r.comm_r_new.truncate(31))),
        ("comm_r_new", "not a BLS12-381 scalar", with(&base, |r| r.comm_r_new = vec![0xff; 32])),
        ("vanilla_proofs[0]", "bincode", with(&base, |r| r.vanilla_proofs[0].truncate(100))),
        // Partition proofs of this update against swapped replica commitments.
        ("vanilla_proofs", "do not verify", with(&base, |r| std::mem::swap(&mut r.comm_r_old, &mut r.comm_r_new))),
    ];
    refused(&mut c, cases).await;

    let r = proving.await.unwrap().expect("Prove answers").into_inner().result.unwrap();
    assert_eq!(status(&r), AwaitStatus::Completed, "{}", r.error_message);
    assert_eq!((r.job_id.as_str(), r.proof.len()), ("snap-1000-300", 192));
    assert!(snap_verifies(&r.proof), "filecoin-proofs refuses the daemon's SnapDeals proof");
    let mut flipped = r.proof.clone();
    flipped[100] ^= 1;
    assert!(!snap_verifies(&flipped), "a changed proof must not verify");
    let summary = daemon.stop().await;
    assert_eq!((summary.completed, summary.failed), (1, 0));
    timed("snap_deals_proves_over_unix_while_bad_requests_are_refused", t);
}
