//! The Groth16 host function at Filecoin scale: one PoRep partition is
//! ~130 M constraints in a 2^27 domain. Making and uploading a real 47 GB
//! parameter file for that is not needed to time it, because no stage's cost
//! depends on the values of the bases: the SRS is tiled on the device from
//! a few random points ([`GpuSrs::tiled_for_timing`]) and the proofs are not
//! verified (the same host function proves and verifies in 2^23 and 2^24
//! domains in the gpu_scale tests). The assignment is tiled on the host from random
//! patterns with a PoRep-like witness: 45 % zeros, 50 % ones, 5 % other
//! values, every variable used in A and B. As in a PoRep call, whose
//! partitions are one circuit, the circuits of a batch share which
//! variables are bits and which are field elements; only the values differ.
//! (Drawing each circuit's pattern on its own made the batch's tail, the
//! union of the circuits' field elements, 1 − 0.95^k of the variables for k
//! circuits: 40 % at ten, where PoRep's stays at its 5 %.)
//!
//! Prints one JSON line per proof call with the host function's stages and
//! the caller's wall time around the call, then the medians. Environment:
//! CUZK_SCALE_LOG_N (default 27, lowered with a note when the device is too
//! small), CUZK_SCALE_BATCH (circuits per call, default 1), CUZK_SCALE_REPS
//! (default 3). Without a GPU it exits non-zero, unless CUZK_ALLOW_NO_GPU=1.

mod common;

use std::time::Instant;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_gpu::groth16::{prove, stages, HostTimings};
use cuzk_gpu::{GpuSrs, SrsSizes};
use cuzk_groth16::VerifyingKey;
use cuzk_synth::{DensityTracker, ProvingAssignment};
use ff::Field;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Public inputs with the constant one.
const INPUTS: usize = 17;
/// Length of the random patterns the assignment repeats.
const PERIOD: usize = (1 << 20) - 3;

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("{name}={v} is not a number");
            std::process::exit(2)
        }),
        Err(_) => default,
    }
}

/// Constraints that fill a domain of 2^log_n as a PoRep partition fills
/// 2^27 (~130 M of 134 M), input constraints included.
fn constraints_for(log_n: u32) -> usize {
    (1usize << log_n) - (1usize << log_n.saturating_sub(5))
}

/// Device bytes a call needs: the tiled bases, the quotient's buffers, and
/// the MSM's digit and sort arrays (about as many bytes as the bases again).
fn device_bytes(log_n: u32, batch: usize) -> u64 {
    let n = 1u64 << log_n;
    let vars = constraints_for(log_n) as u64;
    let bases = (n + 3 * vars) * 96 + vars * 192;
    bases + 5 * 32 * n + 2 * n * 64 * batch as u64
}

fn full(bits: usize) -> DensityTracker {
    let mut d = DensityTracker::with_capacity(bits);
    for i in 0..bits {
        d.add_element();
        d.inc(i);
    }
    d
}

fn tile<T: Copy>(pattern: &[T], len: usize) -> Vec<T> {
    pattern.iter().copied().cycle().take(len).collect()
}

/// Which variables of the repeated witness pattern are field elements (the
/// rest are bits): the circuit's structure, the same for every circuit.
fn field_elements(rng: &mut ChaCha20Rng) -> Vec<bool> {
    (0..PERIOD).map(|_| rng.next_u32() % 100 >= 95).collect()
}

fn assignment(rng: &mut ChaCha20Rng, log_n: u32, fields: &[bool]) -> ProvingAssignment<Scalar> {
    let m = constraints_for(log_n);
    let aux = m - INPUTS;
    let random: Vec<Scalar> = (0..PERIOD).map(|_| Scalar::random(&mut *rng)).collect();
    let witness: Vec<Scalar> = fields
        .iter()
        .map(|&field| match (field, rng.next_u32() % 95) {
            (true, _) => Scalar::random(&mut *rng),
            (false, 0..45) => Scalar::ZERO,
            (false, _) => Scalar::ONE,
        })
        .collect();
    let mut pa = ProvingAssignment::new();
    pa.a = tile(&random, m);
    pa.b = tile(&random[7..], m);
    pa.c = tile(&random[13..], m);
    pa.input_assignment = tile(&random, INPUTS);
    pa.input_assignment[0] = Scalar::ONE;
    pa.aux_assignment = tile(&witness, aux);
    pa.a_aux_density = full(aux);
    pa.b_aux_density = full(aux);
    pa.b_input_density = full(INPUTS);
    pa
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let device = common::open_device_or_exit("the Filecoin-scale benchmark");
    let batch = env_usize("CUZK_SCALE_BATCH", 1).max(1);
    let reps = env_usize("CUZK_SCALE_REPS", 3).max(1);
    let asked = env_usize("CUZK_SCALE_LOG_N", 27).clamp(10, 27) as u32;
    let total = device.info().total_mem;
    let mut log_n = asked;
    while log_n > 10 && device_bytes(log_n, batch) > total {
        log_n -= 1;
    }
    if log_n != asked {
        eprintln!(
            "2^{asked} needs about {:.0} GiB of device memory, {} has {:.0} GiB: running 2^{log_n}",
            device_bytes(asked, batch) as f64 / (1u64 << 30) as f64,
            device.info().name,
            total as f64 / (1u64 << 30) as f64
        );
    }

    let mut rng = ChaCha20Rng::seed_from_u64(0x5ca1e);
    let g1: Vec<G1Affine> = (0..1 << 12).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
    let g2: Vec<G2Affine> = (0..1 << 10).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
    let vk = VerifyingKey {
        alpha_g1: g1[0],
        beta_g1: g1[1],
        beta_g2: g2[0],
        gamma_g2: g2[1],
        delta_g1: g1[2],
        delta_g2: g2[2],
        ic: g1[..INPUTS].to_vec(),
    };
    let aux = constraints_for(log_n) - INPUTS;
    let sizes = SrsSizes { ic: INPUTS, h: (1 << log_n) - 1, l: aux, a: INPUTS + aux, b: INPUTS + aux };

    let start = Instant::now();
    let srs = GpuSrs::tiled_for_timing(&device, &vk, &g1, &g2, sizes).unwrap_or_else(|e| {
        eprintln!("tiling the SRS on {} failed: {e}", device.info().name);
        std::process::exit(1)
    });
    let srs_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let fields = field_elements(&mut rng);
    let assignments: Vec<ProvingAssignment<Scalar>> =
        (0..batch).map(|_| assignment(&mut rng, log_n, &fields)).collect();
    let randomness: Vec<(Scalar, Scalar)> =
        (0..batch).map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng))).collect();
    println!(
        "{{\"log_n\":{log_n},\"constraints\":{},\"aux\":{aux},\"batch\":{batch},\"srs_tile_ms\":{srs_ms:.1},\"assignment_ms\":{:.1}}}",
        constraints_for(log_n),
        start.elapsed().as_secs_f64() * 1e3
    );

    let mut calls: Vec<(HostTimings, f64)> = Vec::new();
    // One warm-up call (CUDA module load, CUB temporaries), then the reps.
    for rep in 0..=reps {
        let start = Instant::now();
        let (_, t) = prove(&device, &srs, &assignments, &randomness, false).unwrap_or_else(|e| {
            eprintln!("the proof call failed: {e}");
            std::process::exit(1)
        });
        let call_ms = start.elapsed().as_secs_f64() * 1e3;
        let fields: Vec<String> = stages(&t).iter().map(|(n, v)| format!("\"{n}\":{v:.2}")).collect();
        println!("{{\"rep\":{rep},\"warmup\":{},{},\"call_ms\":{call_ms:.2}}}", rep == 0, fields.join(","));
        if rep > 0 {
            calls.push((t, call_ms));
        }
    }
    println!("\nGroth16 host function, 2^{log_n} domain, {} constraints, batch {batch}, median of {reps}:", constraints_for(log_n));
    for (i, (name, _)) in stages(&calls[0].0).iter().enumerate() {
        println!("  {name:>18} {:>10.1} ms", median(calls.iter().map(|(t, _)| stages(t)[i].1).collect()));
    }
    println!("  {:>18} {:>10.1} ms", "call_ms", median(calls.iter().map(|(_, c)| *c).collect()));
}
