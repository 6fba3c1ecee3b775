//! Parameter files: `Parameters::read` whole and in small chunks, and
//! `inspect`, over the same bytes. The first input byte picks the point
//! checks and the chunk size; the rest is the file.
//!
//! Beyond "no panic": the chunked and the whole read agree, `inspect` accepts
//! every file `read` accepts and reports the same counts, and a file that
//! reads back writes byte for byte the same.
#![no_main]

use cuzk_groth16::{inspect, Parameters, PointChecks};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else { return };
    let checks = [PointChecks::None, PointChecks::OnCurve, PointChecks::Subgroup][usize::from(mode % 3)];
    // 1 to 1009 bytes: from one point per step to ten G1 points per step.
    let chunk = usize::from(mode / 4) * 16 + 1;
    let path = cuzk_fuzz::scratch_file("params", file);

    let whole = Parameters::read(&path, checks);
    let chunked = Parameters::read_in_chunks(&path, checks, chunk);
    let summary = inspect(&path);
    match (&whole, &chunked) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "chunked read ({chunk} B) differs from the whole read"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("whole read {:?} but chunked ({chunk} B) read {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    let Ok(params) = whole else { return };
    let summary = summary.expect("inspect refuses a file that reads");
    let counts = params.counts();
    let read_counts = [params.vk.ic.len(), counts.h, counts.l, counts.a, counts.b, params.b_g2.len()];
    let inspected = [summary.ic, summary.h, summary.l, summary.a, summary.b_g1, summary.b_g2];
    assert_eq!(read_counts.map(|n| n as u64), inspected, "inspect's counts differ from read's");
    let mut again = Vec::with_capacity(file.len());
    params.write(&mut again).expect("parameters that read also write");
    assert!(again == file, "a file that reads does not write back byte for byte");
});
