//! Parameter files, verifying keys and proofs under structured mutation (see
//! cuzk-synth's `tests/mutation/`): whatever is done to a valid encoding,
//! the parsers give a typed error or a value that encodes back as the same
//! bytes, never a panic, and never seconds of work (a time box per case).
//! The readers that should agree are held to it: a parameter file read whole
//! and in small chunks, `inspect` and `read`, a key read from a stream and
//! from a file, proofs one by one and in a batch.

#[path = "../../cuzk-synth/tests/mutation/mod.rs"]
mod mutation;

use std::sync::OnceLock;

use blstrs::Scalar;
use cuzk_groth16::{create_random_proofs, generate_random_parameters, inspect, Parameters, PointChecks, Proof};
use cuzk_groth16::VerifyingKey;
use cuzk_synth::workloads::MulChain;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Valid encodings of a four-step chain: its parameter file, its verifying
/// key and three proofs, made once per process.
struct Fixture {
    params: Vec<u8>,
    vk: Vec<u8>,
    proofs: Vec<u8>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(19);
        let params = generate_random_parameters(MulChain::<Scalar>::new(4, 0), &mut rng, None).unwrap();
        let circuits = (1..4).map(|seed| MulChain::new(4, seed)).collect();
        let proofs = create_random_proofs(circuits, &params, &mut rng).unwrap();
        let (mut file, mut vk) = (Vec::new(), Vec::new());
        params.write(&mut file).unwrap();
        params.vk.write(&mut vk).unwrap();
        Fixture { params: file, vk, proofs: proofs.iter().flat_map(Proof::to_bytes).collect() }
    })
}

/// Offset of the IC count: after α₁, β₁, β₂, γ₂, δ₁, δ₂.
const IC_COUNT: usize = 3 * 96 + 3 * 192;

/// The offsets of the six counts of a valid parameter file (IC, H, L, A,
/// B in G1, B in G2), walked from its layout.
fn params_fields(file: &[u8]) -> Vec<usize> {
    let count = |at: usize| u32::from_be_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    let mut fields = vec![IC_COUNT];
    let mut at = IC_COUNT + 4 + 96 * count(IC_COUNT);
    for size in [96, 96, 96, 96, 192] {
        fields.push(at);
        at += 4 + size * count(at);
    }
    assert_eq!(at, file.len(), "the walk must end at the end of the file");
    fields
}

const CHECKS: [PointChecks; 3] = [PointChecks::None, PointChecks::OnCurve, PointChecks::Subgroup];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, timeout: mutation::CASE_TIMEOUT_MS, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(96))]

    /// Read whole, read in chunks of 1 to 600 bytes (a step boundary inside
    /// every section) and inspected: the reads agree, `inspect` accepts what
    /// `read` accepts with the same counts, and what reads writes back.
    #[test]
    fn mutated_parameter_files_are_refused_or_read_back(
        ms in mutation::mutations(),
        checks in prop::sample::select(CHECKS.to_vec()),
        chunk in 1..600usize,
    ) {
        let original = &fixture().params;
        let file = mutation::apply(original, &params_fields(original), &ms);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mutated.params");
        std::fs::write(&path, &file).unwrap();
        let whole = Parameters::read(&path, checks);
        let chunked = Parameters::read_in_chunks(&path, checks, chunk);
        let summary = inspect(&path);
        match (&whole, &chunked) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "whole read {:?}, chunked read {:?}", a.as_ref().err(), b.as_ref().err()),
        }
        if let Ok(params) = whole {
            let summary = summary.expect("inspect accepts a file that reads");
            let c = params.counts();
            prop_assert_eq!(
                [summary.ic, summary.h, summary.l, summary.a, summary.b_g1, summary.b_g2],
                [params.vk.ic.len(), c.h, c.l, c.a, c.b, params.b_g2.len()].map(|n| n as u64)
            );
            let mut again = Vec::new();
            params.write(&mut again).unwrap();
            prop_assert!(again == file, "a parameter file that reads does not write back as the same bytes");
        }
    }

    /// From a stream and from a file: the same answer, and a key that reads
    /// passes `validate` and writes back as the bytes it was read from.
    #[test]
    fn mutated_verifying_keys_are_refused_or_read_back(ms in mutation::mutations()) {
        let bytes = mutation::apply(&fixture().vk, &[IC_COUNT], &ms);
        let streamed = VerifyingKey::read(&bytes[..]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mutated.vk");
        std::fs::write(&path, &bytes).unwrap();
        let from_file = VerifyingKey::read_file(&path);
        match (&streamed, &from_file) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "read {:?}, read_file {:?}", a.as_ref().err(), b.as_ref().err()),
        }
        if let Ok(key) = streamed {
            prop_assert!(key.validate().is_ok());
            let mut again = Vec::new();
            key.write(&mut again).unwrap();
            prop_assert!(bytes.starts_with(&again), "a key that reads does not write back as the bytes read");
        }
    }
}

proptest! {
    #![proptest_config(config(192))]

    /// Three proofs: a batch reads only when every proof in it does, and
    /// what reads encodes back.
    #[test]
    fn mutated_proofs_are_refused_or_read_back(ms in mutation::mutations()) {
        let bytes = mutation::apply(&fixture().proofs, &[], &ms);
        let one = Proof::from_bytes(&bytes);
        prop_assert!(one.is_err() || bytes.len() == Proof::SIZE);
        if let Ok(many) = Proof::read_many(&bytes) {
            prop_assert_eq!(many.len() * Proof::SIZE, bytes.len());
            for (p, chunk) in many.iter().zip(bytes.chunks_exact(Proof::SIZE)) {
                prop_assert_eq!(Proof::from_bytes(chunk).ok(), Some(*p));
                prop_assert_eq!(&p.to_bytes()[..], chunk);
            }
        } else {
            let all_one_by_one = bytes.len() % Proof::SIZE == 0
                && bytes.chunks_exact(Proof::SIZE).all(|chunk| Proof::from_bytes(chunk).is_ok());
            prop_assert!(!all_one_by_one, "read_many refused proofs that read one by one");
        }
    }
}

#[test]
fn the_fixtures_read_and_the_field_walk_fits() {
    let f = fixture();
    assert_eq!(params_fields(&f.params).len(), 6);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("valid.params");
    std::fs::write(&path, &f.params).unwrap();
    let params = Parameters::read_in_chunks(&path, PointChecks::Subgroup, 100).unwrap();
    assert_eq!(VerifyingKey::read(&f.vk[..]).unwrap(), params.vk);
    assert_eq!(Proof::read_many(&f.proofs).unwrap().len(), 3);
}
