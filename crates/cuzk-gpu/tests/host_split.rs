//! The Groth16 host function's split (cpp/groth16/split.cpp) into zeros,
//! ones and the tail, run on the host through its test hook, against a
//! straightforward Rust model: batches of one to three circuits, witnesses
//! from all-bits to all-dense, random densities, and enough variables that
//! one circuit is cut into several pieces (65,536 aux variables each) with
//! piece boundaries in the middle of bitmap words.

use blstrs::Scalar;
use cuzk_ffi::cast::as_limbs;
use cuzk_ffi::ffi;
use cuzk_gpu::hooks::groth16::{release_pages, split, Groth16Split};
use cuzk_gpu::GpuError;
use ff::Field;
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// One circuit's witness; the densities are shared by the batch, as they
/// are for circuits of one shape.
struct Witness {
    input: Vec<Scalar>,
    aux: Vec<Scalar>,
}

struct Densities {
    a_aux: Vec<u64>,
    b_input: Vec<u64>,
    b_aux: Vec<u64>,
}

fn bit(words: &[u64], i: usize) -> bool {
    (words[i / 64] >> (i % 64)) & 1 == 1
}

/// `bits` random bits, each set with probability `p`.
fn bitmap(rng: &mut ChaCha20Rng, bits: usize, p: f64) -> Vec<u64> {
    let mut words = vec![0u64; bits.div_ceil(64)];
    for i in 0..bits {
        if (rng.next_u64() as f64 / u64::MAX as f64) < p {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    words
}

/// A witness with the given shares of zeros and ones, the rest random.
fn witness(rng: &mut ChaCha20Rng, inputs: usize, aux: usize, zeros: f64, ones: f64) -> Witness {
    let value = |rng: &mut ChaCha20Rng| {
        let u = rng.next_u64() as f64 / u64::MAX as f64;
        if u < zeros {
            Scalar::ZERO
        } else if u < zeros + ones {
            Scalar::ONE
        } else {
            Scalar::random(&mut *rng)
        }
    };
    Witness { input: (0..inputs).map(|_| value(rng)).collect(), aux: (0..aux).map(|_| value(rng)).collect() }
}

/// The query's (value, is_input) per base position, in order.
fn positions(query: u8, w: &Witness, d: &Densities) -> Vec<(Scalar, bool)> {
    let mut out = Vec::new();
    if query != 0 {
        for (i, v) in w.input.iter().enumerate() {
            if query == 1 || bit(&d.b_input, i) {
                out.push((*v, true));
            }
        }
    }
    for (j, v) in w.aux.iter().enumerate() {
        let used = match query {
            0 => true,
            1 => bit(&d.a_aux, j),
            _ => bit(&d.b_aux, j),
        };
        if used {
            out.push((*v, false));
        }
    }
    out
}

/// The split as DESIGN §4.2 defines it, one position at a time.
fn model(query: u8, batch: &[Witness], d: &Densities) -> Groth16Split {
    let per: Vec<Vec<(Scalar, bool)>> = batch.iter().map(|w| positions(query, w, d)).collect();
    let len = per[0].len();
    let words = len.div_ceil(64);
    let is_tail = |(v, input): &(Scalar, bool)| *input || !(bool::from(v.is_zero()) || *v == Scalar::ONE);
    let tail: Vec<u32> = (0..len).filter(|&p| per.iter().any(|c| is_tail(&c[p]))).map(|p| p as u32).collect();
    let dense = 2 * tail.len() > len;
    let mut out = Groth16Split { len: len as u64, dense, ..Default::default() };
    if dense {
        if query != 0 {
            for c in &per {
                let values: Vec<Scalar> = c.iter().map(|(v, _)| *v).collect();
                out.scalars.extend_from_slice(as_limbs(&values));
            }
        }
        return out;
    }
    for c in &per {
        let mut ones = vec![0u64; words];
        for (p, (v, input)) in c.iter().enumerate() {
            if !input && *v == Scalar::ONE {
                ones[p / 64] |= 1 << (p % 64);
            }
        }
        out.ones.extend(ones);
        let values: Vec<Scalar> = tail
            .iter()
            .map(|&p| {
                let (v, input) = c[p as usize];
                if input || v != Scalar::ONE {
                    v
                } else {
                    Scalar::ZERO
                }
            })
            .collect();
        out.scalars.extend_from_slice(as_limbs(&values));
    }
    out.tail = tail;
    out
}

/// The host function's view of one circuit (no a and b: the split does not read them).
fn view<'a>(w: &'a Witness, d: &'a Densities) -> ffi::Groth16Circuit<'a> {
    ffi::Groth16Circuit {
        a: &[],
        b: &[],
        input: as_limbs(&w.input),
        aux: as_limbs(&w.aux),
        a_aux_density: &d.a_aux,
        b_input_density: &d.b_input,
        b_aux_density: &d.b_aux,
        r: [0; 4],
        s: [0; 4],
    }
}

fn host_split(query: u8, batch: &[Witness], d: &Densities, threads: u32, compact: bool) -> Groth16Split {
    let circuits: Vec<ffi::Groth16Circuit<'_>> = batch.iter().map(|w| view(w, d)).collect();
    split(&circuits, query, threads, compact).expect("the split hook accepts a well-formed batch")
}

/// Clears the bits past `bits` (the host function rejects them).
fn trim(mut words: Vec<u64>, bits: usize) -> Vec<u64> {
    if bits % 64 != 0 {
        if let Some(last) = words.last_mut() {
            *last &= (1u64 << (bits % 64)) - 1;
        }
    }
    words
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn split_matches_the_model(
        seed in any::<u64>(),
        circuits in 1usize..=3,
        inputs in 1usize..6,
        aux in prop_oneof![0usize..200, 65_000usize..140_000],
        mix in prop_oneof![Just((0.45, 0.5)), Just((0.0, 0.0)), Just((1.0, 0.0)), Just((0.0, 1.0)), Just((0.3, 0.3))],
        density in prop_oneof![Just(1.0), Just(0.0), Just(0.7)],
        threads in 1u32..6,
    ) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let d = Densities {
            a_aux: trim(bitmap(&mut rng, aux, density), aux),
            b_input: trim(bitmap(&mut rng, inputs, 0.5), inputs),
            b_aux: trim(bitmap(&mut rng, aux, density * 0.9), aux),
        };
        let batch: Vec<Witness> = (0..circuits).map(|_| witness(&mut rng, inputs, aux, mix.0, mix.1)).collect();
        // A device that compacts a dense query's aux scalars gets the same ones.
        for query in 0..3u8 {
            for compact in [false, true] {
                let got = host_split(query, &batch, &d, threads, compact);
                prop_assert_eq!(got, model(query, &batch, &d), "query {} compact {}", query, compact);
            }
        }
    }
}

#[test]
fn split_hook_rejects_a_bad_query_and_stray_density_bits() {
    let w = Witness { input: vec![Scalar::ONE], aux: vec![Scalar::ONE; 3] };
    let d = Densities { a_aux: vec![0b111], b_input: vec![1], b_aux: vec![0b101] };
    let err = split(&[view(&w, &d)], 3, 1, false).unwrap_err();
    assert!(matches!(&err, GpuError::InvalidInput(m) if m.contains("query 3")), "{err}");
    let stray = Densities { a_aux: vec![0b1111], b_input: vec![1], b_aux: vec![0b101] };
    let err = split(&[view(&w, &stray)], 1, 1, false).unwrap_err();
    assert!(matches!(&err, GpuError::InvalidInput(m) if m.contains("a_aux_density")), "{err}");
}

/// The split's large arrays give their pages back in 64 MiB steps before
/// they are freed (parallel.hpp's release_pages): every whole page inside
/// the range reads zero afterwards, and no byte outside the range, nor in the
/// partial pages at its ends, changes.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn released_pages_read_zero_and_nothing_else_changes() {
    const PAGE: usize = 4096;
    let pattern = |i: usize| (i % 251 + 1) as u8;
    let mut buf: Vec<u8> = (0..(150 << 20) + 1234).map(pattern).collect();
    let (first, len) = (777, buf.len() - 777 - 999);
    release_pages(&mut buf, first, len).unwrap();
    let addr = buf.as_ptr() as usize;
    let zero_from = (addr + first).div_ceil(PAGE) * PAGE - addr;
    let zero_to = (addr + first + len) / PAGE * PAGE - addr;
    for (i, &b) in buf.iter().enumerate() {
        let want = if (zero_from..zero_to).contains(&i) { 0 } else { pattern(i) };
        assert_eq!(b, want, "byte {i} (pages zeroed from {zero_from} to {zero_to})");
    }
    let past = buf.len() - 9;
    assert!(release_pages(&mut buf, 10, past).is_err());
}
