//! Structured mutations of a valid encoding, for the parsers' mutation tests:
//! cut at any offset, flip bits, write extreme values over count and length
//! fields, copy one run of bytes over another, append junk. The recording
//! test here and the parameter, key, proof and inputs tests of cuzk-groth16
//! and cuzk include this one file by path.
//!
//! Offsets are drawn as [`Index`]es, which scale to whatever length the
//! encoding has when the mutation applies, so one strategy serves every
//! format. Each test names the offsets of its format's count and length
//! fields, and half the overwrites land on one of them.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::sample::Index;

/// How long one case may run (proptest runs the cases in a child process and
/// fails the one that overruns): a parser of a few KiB that takes seconds is
/// sizing something by a count it has not checked.
pub const CASE_TIMEOUT_MS: u32 = 5_000;

/// Values written over counts and lengths: the edges of 8-, 16-, 32- and
/// 64-bit fields, and the powers of two around them.
pub const EXTREMES: [u64; 12] =
    [0, 1, 2, 0xff, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 1 << 32, 1 << 62, 1 << 63, u64::MAX];

/// One change to an encoding.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Keep the bytes before the index.
    Truncate(Index),
    /// XOR one byte with a nonzero mask.
    Flip(Index, u8),
    /// Write `value`'s low `width` bytes, big- or little-endian, at a count or
    /// length field (`field: true`, the index picks which) or anywhere.
    Overwrite { field: bool, at: Index, value: u64, width: usize, big_endian: bool },
    /// Copy `len` bytes from one place over another (a section where another
    /// should be, a count copied into a point).
    Splice { from: Index, to: Index, len: usize },
    /// Bytes after the end.
    Append(Vec<u8>),
}

fn value() -> impl Strategy<Value = u64> {
    prop_oneof![3 => prop::sample::select(EXTREMES.to_vec()), 1 => any::<u64>()]
}

/// One mutation of any kind.
pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), 1..=255u8).prop_map(|(at, mask)| Mutation::Flip(at, mask)),
        (any::<bool>(), any::<Index>(), value(), prop::sample::select(vec![1usize, 2, 4, 8]), any::<bool>())
            .prop_map(|(field, at, value, width, big_endian)| Mutation::Overwrite { field, at, value, width, big_endian }),
        (any::<Index>(), any::<Index>(), 1..512usize).prop_map(|(from, to, len)| Mutation::Splice { from, to, len }),
        prop::collection::vec(any::<u8>(), 1..256).prop_map(Mutation::Append),
    ]
}

/// One to three mutations, applied in order.
pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 1..4)
}

/// `bytes` with `mutations` applied; `fields` are the offsets of the
/// format's count and length fields in the unmutated encoding.
pub fn apply(bytes: &[u8], fields: &[usize], mutations: &[Mutation]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for m in mutations {
        match m {
            Mutation::Truncate(at) => out.truncate(at.index(out.len() + 1)),
            Mutation::Flip(at, mask) if !out.is_empty() => {
                let i = at.index(out.len());
                out[i] ^= mask;
            }
            Mutation::Overwrite { field, at, value, width, big_endian } => {
                let start = match (*field, fields.is_empty()) {
                    (true, false) => fields[at.index(fields.len())],
                    _ if out.is_empty() => continue,
                    _ => at.index(out.len()),
                };
                let encoded = if *big_endian {
                    value.to_be_bytes()[8 - width..].to_vec()
                } else {
                    value.to_le_bytes()[..*width].to_vec()
                };
                for (k, b) in encoded.into_iter().enumerate() {
                    if let Some(slot) = out.get_mut(start + k) {
                        *slot = b;
                    }
                }
            }
            Mutation::Splice { from, to, len } if !out.is_empty() => {
                let from = from.index(out.len());
                let to = to.index(out.len());
                let len = (*len).min(out.len() - from).min(out.len() - to);
                out.copy_within(from..from + len, to);
            }
            Mutation::Append(junk) => out.extend_from_slice(junk),
            Mutation::Flip(..) | Mutation::Splice { .. } => {}
        }
    }
    out
}

#[test]
fn mutations_change_what_they_say() {
    use proptest::strategy::ValueTree;
    let index = || any::<Index>().new_tree(&mut proptest::test_runner::TestRunner::deterministic()).unwrap().current();
    let bytes: Vec<u8> = (0..16).collect();
    assert_eq!(apply(&bytes, &[], &[Mutation::Append(vec![9, 9])]), [&bytes[..], &[9, 9]].concat());
    assert!(apply(&bytes, &[], &[Mutation::Truncate(index())]).len() <= 16);
    let flipped = apply(&bytes, &[], &[Mutation::Flip(index(), 0x80)]);
    assert_eq!(flipped.iter().zip(&bytes).filter(|(a, b)| a != b).count(), 1);
    // With one field, every index picks it.
    let over = |big_endian| Mutation::Overwrite { field: true, at: index(), value: 0x0102_0304, width: 4, big_endian };
    assert_eq!(&apply(&bytes, &[3], &[over(true)])[3..7], &[1, 2, 3, 4]);
    assert_eq!(&apply(&bytes, &[3], &[over(false)])[3..7], &[4, 3, 2, 1]);
    // An overwrite that runs past the end writes what fits and grows nothing.
    assert_eq!(apply(&bytes, &[14], &[over(true)]).len(), 16);
}
