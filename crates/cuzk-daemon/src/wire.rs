//! The protocol pinned byte for byte: messages with every field set encode
//! to the tags Curio's `cuzk.v1` numbering gives, and the enums keep Curio's
//! values, so an edit of `proving.proto` that would break Curio's client
//! fails here.

use prost::Message;

use crate::proto::{self, await_proof_response::Status, srs_status::Tier};

#[test]
fn submit_requests_carry_curios_field_numbers() {
    let req = proto::SubmitProofRequest {
        request_id: "r".into(),
        proof_kind: proto::ProofKind::WinningPost as i32,
        sector_size: 2048,
        registered_proof: 5,
        priority: proto::Priority::Critical as i32,
        vanilla_proof: vec![1],
        vanilla_proofs: vec![vec![2]],
        sector_number: 7,
        miner_id: 1000,
        randomness: vec![3],
        partition_index: 9,
        comm_r_old: vec![10],
        comm_r_new: vec![11],
        comm_d_new: vec![12],
        workload_size: 0,
        workload_partitions: 0,
    };
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x0a, 1, b'r',          // 1 request_id
        0x10, 4,                // 2 proof_kind = WINNING_POST
        0x18, 0x80, 0x10,       // 3 sector_size = 2048
        0x20, 5,                // 4 registered_proof
        0x28, 4,                // 5 priority = CRITICAL
        0x52, 1, 1,             // 10 vanilla_proof
        0x5a, 1, 2,             // 11 vanilla_proofs
        0xa0, 0x01, 7,          // 20 sector_number
        0xa8, 0x01, 0xe8, 0x07, // 21 miner_id = 1000
        0xb2, 0x01, 1, 3,       // 22 randomness
        0xb8, 0x01, 9,          // 23 partition_index
        0xf2, 0x01, 1, 10,      // 30 comm_r_old
        0xfa, 0x01, 1, 11,      // 31 comm_r_new
        0x82, 0x02, 1, 12,      // 32 comm_d_new
    ];
    assert_eq!(req.encode_to_vec(), expected);
    let prove = proto::ProveRequest { submit: Some(req) };
    assert_eq!(prove.encode_to_vec()[..2], [0x0a, expected.len() as u8], "ProveRequest.submit = 1");
}

#[test]
fn await_responses_carry_curios_field_numbers() {
    let r = proto::AwaitProofResponse {
        job_id: "j".into(),
        status: Status::Completed as i32,
        proof: vec![1],
        error_message: "e".into(),
        queue_wait_ms: 10,
        srs_load_ms: 11,
        synthesis_ms: 12,
        gpu_compute_ms: 13,
        total_ms: 14,
    };
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x0a, 1, b'j', 0x10, 1, 0x1a, 1, 1, 0x22, 1, b'e',
        0x50, 10, 0x58, 11, 0x60, 12, 0x68, 13, 0x70, 14,
    ];
    assert_eq!(r.encode_to_vec(), expected);
    let submit = proto::SubmitProofResponse { job_id: "j".into(), queue_position: 2, assigned_gpu: "g".into() };
    assert_eq!(submit.encode_to_vec(), [0x0a, 1, b'j', 0x10, 2, 0x1a, 1, b'g']);
    let wait = proto::AwaitProofRequest { job_id: "j".into(), timeout_ms: 3 };
    assert_eq!(wait.encode_to_vec(), [0x0a, 1, b'j', 0x10, 3]);
    assert_eq!(proto::CancelProofResponse { was_running: true }.encode_to_vec(), [0x08, 1]);
}

#[test]
fn status_and_parameter_messages_carry_curios_field_numbers() {
    let srs = proto::SrsStatus { tier: Tier::Cold as i32, size_bytes: 3, ref_count: 4, ..Default::default() };
    let s = proto::GetStatusResponse {
        gpus: vec![proto::GpuStatus { ordinal: 1, ..Default::default() }],
        loaded_srs: vec![srs],
        queues: vec![proto::QueueStatus { proof_kind: "k".into(), pending: 2, in_progress: 3 }],
        total_proofs_completed: 4,
        total_proofs_failed: 5,
        uptime_seconds: 6,
        pinned_memory_bytes: 7,
        pinned_memory_limit_bytes: 8,
    };
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x0a, 2, 0x08, 1,                   // 1 gpus { 1 ordinal }
        0x12, 6, 0x10, 2, 0x18, 3, 0x20, 4, // 2 loaded_srs { 2 tier = COLD, 3 size, 4 ref_count }
        0x1a, 7, 0x0a, 1, b'k', 0x10, 2, 0x18, 3, // 3 queues
        0x20, 4, 0x28, 5, 0x30, 6, 0x38, 7, 0x40, 8,
    ];
    assert_eq!(s.encode_to_vec(), expected);
    let preload = proto::PreloadSrsResponse { already_loaded: true, load_time_ms: 2 };
    assert_eq!(preload.encode_to_vec(), [0x08, 1, 0x10, 2]);
    let evict = proto::EvictSrsResponse { was_loaded: true, freed_bytes: 2 };
    assert_eq!(evict.encode_to_vec(), [0x08, 1, 0x10, 2]);
    let metrics = proto::GetMetricsResponse { prometheus_text: "m".into() };
    assert_eq!(metrics.encode_to_vec(), [0x0a, 1, b'm']);
}

#[test]
fn enums_keep_curios_values() {
    use proto::{Priority as P, ProofKind as K};
    let kinds = [K::Unspecified, K::PorepSealCommit, K::SnapDealsUpdate, K::WindowPostPartition, K::WinningPost];
    assert_eq!(kinds.map(|k| k as i32), [0, 1, 2, 3, 4]);
    assert_eq!([P::Unspecified, P::Low, P::Normal, P::High, P::Critical].map(|p| p as i32), [0, 1, 2, 3, 4]);
    let statuses = [Status::Unknown, Status::Completed, Status::Failed, Status::Cancelled, Status::Timeout];
    assert_eq!(statuses.map(|s| s as i32), [0, 1, 2, 3, 4]);
    assert_eq!([Tier::Hot, Tier::Warm, Tier::Cold].map(|t| t as i32), [0, 1, 2]);
}
