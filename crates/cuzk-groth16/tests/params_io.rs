//! Parameter files: round trips, header inspection, and typed errors (never a
//! panic) for damaged files.

mod common;

use std::cell::Cell;
use std::path::Path;

use blstrs::G1Affine;
use common::{CuzkDemo, Demo};
use cuzk_groth16::{
    generate_random_parameters, inspect, Error, Parameters, PointChecks, PointDefect, Section, VerifyingKey,
};
use group::prime::PrimeCurveAffine;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn params() -> (Parameters, Vec<u8>) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let p = generate_random_parameters(CuzkDemo(Demo::new(7, 40)), &mut rng, None).unwrap();
    let mut bytes = Vec::new();
    p.write(&mut bytes).unwrap();
    (p, bytes)
}

fn with_file<T>(bytes: &[u8], f: impl FnOnce(&Path) -> T) -> T {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    f(file.path())
}

/// Byte offsets of each section's count in the file.
struct Offsets {
    ic: usize,
    h: usize,
    l: usize,
    b_g2: usize,
}

fn offsets(p: &Parameters) -> Offsets {
    let ic = 864;
    let h = ic + 4 + 96 * p.vk.ic.len();
    let l = h + 4 + 96 * p.h.len();
    let a = l + 4 + 96 * p.l.len();
    let b_g1 = a + 4 + 96 * p.a.len();
    let b_g2 = b_g1 + 4 + 96 * p.b_g1.len();
    Offsets { ic, h, l, b_g2 }
}

#[test]
fn round_trip_inspect_and_progress() {
    let (p, bytes) = params();
    with_file(&bytes, |path| {
        let done = Cell::new(0u64);
        let read = Parameters::read_with_progress(path, PointChecks::Subgroup, &|d, t| {
            assert!(d <= t && d >= done.get());
            done.set(d);
        })
        .unwrap();
        assert_eq!(read, p);
        assert_eq!(done.get(), bytes.len() as u64);
        let summary = inspect(path).unwrap();
        let counts = [summary.ic, summary.h, summary.l, summary.a, summary.b_g1, summary.b_g2];
        let lens = [p.vk.ic.len(), p.h.len(), p.l.len(), p.a.len(), p.b_g1.len(), p.b_g2.len()];
        assert_eq!(counts, lens.map(|l| l as u64));
        assert_eq!(summary.file_len, bytes.len() as u64);
    });
    let mut vk_bytes = Vec::new();
    p.vk.write(&mut vk_bytes).unwrap();
    assert_eq!(vk_bytes.len() as u64, p.vk.serialized_len());
    assert_eq!(&vk_bytes[..], &bytes[..vk_bytes.len()]);
    assert_eq!(VerifyingKey::read(&vk_bytes[..]).unwrap(), p.vk);
}

/// Both the loader and the header walk must report `check` for these bytes.
fn both_fail(bytes: &[u8], check: impl Fn(&Error) -> bool) {
    with_file(bytes, |path| {
        let read = Parameters::read(path, PointChecks::OnCurve).unwrap_err();
        assert!(check(&read), "read: {read}");
        let walked = inspect(path).unwrap_err();
        assert!(check(&walked), "inspect: {walked}");
    });
}

#[test]
fn truncated_files_name_the_section() {
    let (p, bytes) = params();
    let o = offsets(&p);
    let cut = |n: usize| &bytes[..n];
    let len = |n: usize| n as u64;
    both_fail(cut(0), |e| matches!(e, Error::Truncated { section: Section::AlphaG1, needed: 96, file_len: 0 }));
    both_fail(cut(100), |e| matches!(e, Error::Truncated { section: Section::BetaG1, needed: 192, .. }));
    both_fail(cut(200), |e| matches!(e, Error::Truncated { section: Section::BetaG2, needed: 384, .. }));
    both_fail(cut(o.ic + 2), |e| matches!(e, Error::Truncated { section: Section::Ic, file_len, .. } if *file_len == len(o.ic + 2)));
    both_fail(cut(o.ic + 4 + 10), |e| matches!(e, Error::CountTooLarge { section: Section::Ic, left: 10, .. }));
    both_fail(cut(o.h + 4 + 96 * 3 + 1), |e| matches!(e, Error::CountTooLarge { section: Section::H, left: 289, .. }));
    both_fail(cut(o.l), |e| matches!(e, Error::Truncated { section: Section::L, .. }));
    both_fail(cut(bytes.len() - 1), |e| matches!(e, Error::CountTooLarge { section: Section::BG2, .. }));
    both_fail(cut(o.b_g2 + 2), |e| matches!(e, Error::Truncated { section: Section::BG2, .. }));
    let mut longer = bytes.clone();
    longer.push(0);
    both_fail(&longer, |e| matches!(e, Error::TrailingBytes { extra: 1 }));
}

#[test]
fn huge_count_is_rejected_before_allocation() {
    let (p, mut bytes) = params();
    let o = offsets(&p);
    bytes[o.h..o.h + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    both_fail(&bytes, |e| {
        matches!(e, Error::CountTooLarge { section: Section::H, count, needed, .. }
            if *count == u64::from(u32::MAX) && *needed == u64::from(u32::MAX) * 96)
    });
}

#[test]
fn corrupted_points_are_named() {
    let (p, bytes) = params();
    let o = offsets(&p);
    let l5 = o.l + 4 + 96 * 5;

    let mut off_curve = bytes.clone();
    off_curve[l5 + 95] ^= 1;
    for checks in [PointChecks::None, PointChecks::OnCurve, PointChecks::Subgroup] {
        let err = with_file(&off_curve, |path| Parameters::read(path, checks).unwrap_err());
        assert!(
            matches!(err, Error::InvalidPoint { section: Section::L, index: 5, defect: PointDefect::NotOnCurve }),
            "{checks:?}: {err}"
        );
    }
    // The header walk does not decode points.
    assert!(with_file(&off_curve, inspect).is_ok());

    let mut identity = bytes.clone();
    let h2 = o.h + 4 + 96 * 2;
    identity[h2..h2 + 96].copy_from_slice(&G1Affine::identity().to_uncompressed());
    let err = with_file(&identity, |path| Parameters::read(path, PointChecks::None).unwrap_err());
    assert!(matches!(err, Error::InvalidPoint { section: Section::H, index: 2, defect: PointDefect::Identity }), "{err}");

    let mut bad_vk = bytes;
    bad_vk[96 + 50] ^= 0x10;
    let err = with_file(&bad_vk, |path| Parameters::read(path, PointChecks::None).unwrap_err());
    assert!(matches!(err, Error::InvalidPoint { section: Section::BetaG1, index: 0, .. }), "{err}");
}

#[test]
fn missing_file_names_the_path() {
    let err = Parameters::read(Path::new("/nonexistent/cuzk.params"), PointChecks::None).unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path == Path::new("/nonexistent/cuzk.params")));
    assert!(err.to_string().contains("/nonexistent/cuzk.params"));
}

/// Runs `f` on a thread and fails the test if it takes longer than 20 s (a
/// FIFO opened for reading blocks until a writer comes, which is the bug).
fn within_20_s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the read did not return: it blocked")
}

#[test]
fn only_regular_files_are_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("params.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for path in [dir.path().to_path_buf(), fifo, Path::new("/dev/zero").to_path_buf()] {
        let refused = |e: &Error| matches!(e, Error::Io { path: p, source } if *p == path && source.kind() == std::io::ErrorKind::InvalidInput);
        let p = path.clone();
        let (read, walked, key) = within_20_s(move || {
            (Parameters::read(&p, PointChecks::None).map(drop), inspect(&p).map(drop), VerifyingKey::read_file(&p).map(drop))
        });
        for (what, result) in [("read", read), ("inspect", walked), ("key", key)] {
            let err = result.unwrap_err();
            assert!(refused(&err), "{what} {}: {err}", path.display());
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
    }
}

#[test]
fn key_files_are_read_with_the_layout_checks() {
    let (p, bytes) = params();
    assert_eq!(with_file(&bytes, VerifyingKey::read_file).unwrap(), p.vk);
    let o = offsets(&p);
    let cases: [(usize, Section); 3] = [(0, Section::AlphaG1), (100, Section::BetaG1), (o.ic + 2, Section::Ic)];
    for (len, section) in cases {
        let err = with_file(&bytes[..len], VerifyingKey::read_file).unwrap_err();
        assert!(matches!(err, Error::Truncated { section: s, .. } if s == section), "{len} bytes: {err}");
    }
    let err = with_file(&bytes[..o.ic + 4 + 10], VerifyingKey::read_file).unwrap_err();
    assert!(matches!(err, Error::CountTooLarge { section: Section::Ic, left: 10, .. }), "{err}");
}

#[test]
fn reads_across_chunk_boundaries_match_a_single_chunk() {
    let (p, bytes) = params();
    assert!(p.h.len() > 8 && p.b_g2.len() > 4, "the sections must span several chunks");
    let o = offsets(&p);
    let mut corrupt = bytes.clone();
    let l5 = o.l + 4 + 96 * 5;
    corrupt[l5 + 95] ^= 1;
    // Steps hold whole points: one per step (a smaller step rounds up to
    // one), three G1 points (one G2), four G1 points (two G2, 5 bytes over).
    for chunk in [1, 97, 96 * 3, 192 * 2 + 5] {
        let read = with_file(&bytes, |path| Parameters::read_in_chunks(path, PointChecks::Subgroup, chunk)).unwrap();
        assert_eq!(read, p, "chunk {chunk}");
        let err = with_file(&corrupt, |path| Parameters::read_in_chunks(path, PointChecks::None, chunk)).unwrap_err();
        assert!(
            matches!(err, Error::InvalidPoint { section: Section::L, index: 5, defect: PointDefect::NotOnCurve }),
            "chunk {chunk}: {err}"
        );
    }
}
