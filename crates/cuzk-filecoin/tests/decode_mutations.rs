//! What a daemon decodes from the network, under mutation (see cuzk-synth's
//! `tests/mutation/`): a C1 output as raw JSON and in Curio's wrapper, PoSt
//! and SnapDeals vanilla proofs as bincode, and commitment CIDs, each made
//! valid first (cuzk-filecoin's synthetic inputs at 2 KiB), then cut,
//! flipped, overwritten at length fields, spliced and extended. Each is
//! refused with a typed error whose message stays short, or accepted and
//! then checked by filecoin-proofs' own vanilla verification without a
//! panic; never seconds of work (proptest's time box per case). The same
//! decoders are fuzzed by fuzz/fuzz_targets/filecoin_*.rs.

#[path = "../../cuzk-synth/tests/mutation/mod.rs"]
mod mutation;

use std::sync::OnceLock;

use cuzk_filecoin::commitment::{parse, to_cid_bytes, CommitmentKind};
use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::synthetic::{porep_c1, post_vanilla, snap_update};
use cuzk_filecoin::testdata::{curio_c1_wrapper, window_proof, SnapInputs};
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::{FilecoinError, SectorSize};
use mutation::{apply, mutations, CASE_TIMEOUT_MS};
use proptest::prelude::*;

const MINER: u64 = 1000;
const SECTOR: u64 = 42;
const RANDOMNESS: [u8; 32] = [5; 32];

/// The longest message a refusal may carry: a hostile input's long string
/// must not be echoed whole into a log or a gRPC status.
const MESSAGE_BYTES: usize = 2048;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 96, timeout: CASE_TIMEOUT_MS, failure_persistence: None, ..ProptestConfig::default() }
}

/// A 2 KiB C1 output as filecoin-ffi's JSON.
fn c1_json() -> &'static [u8] {
    static C1: OnceLock<Vec<u8>> = OnceLock::new();
    C1.get_or_init(|| {
        let c1 = porep_c1(SectorSize::Kib2, MINER, SECTOR, [7; 32], [9; 32]).unwrap();
        serde_json::to_vec(&c1).unwrap()
    })
}

/// Two sectors' WindowPoSt vanilla proofs (bincode).
fn window_vanilla() -> &'static [Vec<u8>] {
    static V: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    V.get_or_init(|| post_vanilla(window_proof(SectorSize::Kib2), MINER, RANDOMNESS, &[100, 101]).unwrap())
}

/// A 2 KiB SnapDeals update (bincode partition proofs, three commitments).
fn snap() -> &'static SnapInputs {
    static S: OnceLock<SnapInputs> = OnceLock::new();
    S.get_or_init(|| snap_update(SectorSize::Kib2).unwrap())
}

/// A refusal is short; `what` names the input in a failure.
fn short(what: &str, e: &FilecoinError) -> Result<(), TestCaseError> {
    let message = e.to_string();
    let head: String = message.chars().take(200).collect();
    prop_assert!(message.len() <= MESSAGE_BYTES, "{}: a {}-byte message: {}…", what, message.len(), head);
    Ok(())
}

/// The offsets of the JSON's digits: where counts, lengths and numbers are.
fn digits(bytes: &[u8]) -> Vec<usize> {
    bytes.iter().enumerate().filter(|(_, b)| b.is_ascii_digit()).map(|(i, _)| i).step_by(7).collect()
}

#[test]
fn the_valid_inputs_are_accepted() {
    let req = PoRepRequest::from_c1_json(c1_json(), SECTOR, MINER).unwrap();
    req.check_vanilla().unwrap();
    let wrapped = curio_c1_wrapper(c1_json(), SECTOR, SectorSize::Kib2);
    PoRepRequest::from_curio_wrapper(&wrapped, MINER).unwrap();
    let window = WindowPoStRequest {
        proof: window_proof(SectorSize::Kib2),
        randomness: RANDOMNESS,
        miner_id: MINER,
        partition_index: 0,
        vanilla: window_vanilla().to_vec(),
    };
    window.check_vanilla().unwrap();
    let s = snap();
    SnapRequest::new(s.proof, s.vanilla.clone(), &s.comm_r_old, &s.comm_r_new, &s.comm_d_new).unwrap();
    let cid = to_cid_bytes(CommitmentKind::Sealed, &s.comm_r_new);
    assert_eq!(parse("comm_r_new", CommitmentKind::Sealed, &cid).unwrap(), s.comm_r_new);
}

proptest! {
    #![proptest_config(config())]

    /// A mutated C1 JSON: refused, or a request whose vanilla check runs.
    #[test]
    fn mutated_c1_json_is_refused_or_checked(m in mutations()) {
        let bytes = apply(c1_json(), &digits(c1_json()), &m);
        match PoRepRequest::from_c1_json(&bytes, SECTOR, MINER) {
            Ok(req) => {
                if let Err(e) = req.check_vanilla() {
                    short("the vanilla check", &e)?;
                }
            }
            Err(e) => short("the C1 JSON", &e)?,
        }
    }

    /// A mutated Curio wrapper (its JSON, or the base64 C1 inside it).
    #[test]
    fn mutated_curio_wrappers_are_refused_or_checked(m in mutations()) {
        let wrapped = curio_c1_wrapper(c1_json(), SECTOR, SectorSize::Kib2);
        let bytes = apply(&wrapped, &digits(&wrapped), &m);
        match PoRepRequest::from_curio_wrapper(&bytes, MINER) {
            Ok(req) => {
                if let Err(e) = req.check_vanilla() {
                    short("the vanilla check", &e)?;
                }
            }
            Err(e) => short("the wrapper", &e)?,
        }
    }

    /// A mutated WindowPoSt sector proof (bincode, its length prefixes at
    /// the offsets bincode writes vector lengths: every 8 bytes is a
    /// candidate, so half the overwrites land on 64-bit words).
    #[test]
    fn mutated_post_vanilla_proofs_are_refused_or_verified(m in mutations(), which in 0usize..2) {
        let mut vanilla = window_vanilla().to_vec();
        let words: Vec<usize> = (0..vanilla[which].len()).step_by(8).collect();
        vanilla[which] = apply(&vanilla[which], &words, &m);
        let window = WindowPoStRequest {
            proof: window_proof(SectorSize::Kib2),
            randomness: RANDOMNESS,
            miner_id: MINER,
            partition_index: 0,
            vanilla,
        };
        if let Err(e) = window.check_vanilla() {
            short("the PoSt vanilla proofs", &e)?;
        }
    }

    /// A mutated SnapDeals partition proof.
    #[test]
    fn mutated_snap_partition_proofs_are_refused_or_verified(m in mutations()) {
        let s = snap();
        let mut vanilla = s.vanilla.clone();
        let words: Vec<usize> = (0..vanilla[0].len()).step_by(8).collect();
        vanilla[0] = apply(&vanilla[0], &words, &m);
        match SnapRequest::new(s.proof, vanilla, &s.comm_r_old, &s.comm_r_new, &s.comm_d_new) {
            Ok(req) => {
                if let Err(e) = req.check_vanilla() {
                    short("the SnapDeals vanilla proofs", &e)?;
                }
            }
            Err(e) => short("the SnapDeals request", &e)?,
        }
    }

    /// A mutated commitment CID (its varints at the front): the digest it
    /// names, of the right kind, or a refusal naming the field.
    #[test]
    fn mutated_cids_are_refused_or_name_a_digest_of_their_kind(m in mutations(), sealed in any::<bool>()) {
        let s = snap();
        let (kind, digest) = if sealed { (CommitmentKind::Sealed, s.comm_r_new) } else { (CommitmentKind::Unsealed, s.comm_d_new) };
        let cid = to_cid_bytes(kind, &digest);
        let bytes = apply(&cid, &[0, 1, 2, 3, 4, 5, 6], &m);
        match parse("comm_x", kind, &bytes) {
            Ok(parsed) => prop_assert_eq!(parse("comm_x", kind, &to_cid_bytes(kind, &parsed)).unwrap(), parsed),
            Err(e) => {
                short("the CID", &e)?;
                prop_assert!(e.to_string().contains("comm_x"), "the refusal does not name the field: {}", e);
            }
        }
    }
}
