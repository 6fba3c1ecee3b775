//! Kernel benchmarks on device 0, one JSON line per measurement and a table
//! at the end: Fp multiplications (the integer product and the FP64-limb
//! one, cuda/ff/fp64.hpp) and G1 mixed additions per second (long
//! dependent chains, results checked against blstrs), Fr NTT 2^16..2^27 in
//! each kind (forward, inverse, coset forward, coset inverse), G1 MSM
//! 2^16..2^27 and G2 MSM 2^16..2^24 with random and with bit-heavy scalars,
//! and 0/1 batch addition at 50 % ones; msm_g1_table, msm_g2_table: MSM
//! 2^16..2^24 over precomputed copies of the bases (one per window, built
//! once and not timed, as for a fixed SRS; the build time is printed).
//! Inputs are resident on the GPU; each figure is the median of 5 runs
//! after one warm-up, timed with CUDA events (device_ms; the MSM's own
//! allocations and frees of its temporaries fall between the events and
//! count, as they do in a proof), next to the call's wall time.
//! CUZK_BENCH=arith,ntt,msm_g1,msm_g1_table,batch_add,msm_g2,msm_g2_table
//! (any subset) runs only those groups; CUZK_BENCH_SIZES=24,27 (log2 sizes)
//! only those sizes of the NTT, MSM and batch-addition groups.
//!
//! Bases are tiled on the device from 2^16 (G1) or 2^14 (G2) random points,
//! and scalars from 2^20 - 3 random ones, so base i repeats every 2^16 but
//! no (base, scalar) pair repeats below 2^36 points. So few distinct bases
//! stay in the L2 cache, which a real SRS does not: CUZK_BENCH_DISTINCT=22
//! tiles from 2^22 random points of each group instead (slower to generate,
//! and the figure to compare with a proof's MSMs). Without a GPU it exits
//! non-zero, unless CUZK_ALLOW_NO_GPU=1.

mod common;

use blstrs::{G1Projective, G2Projective, Scalar};
use blstrs::{Fp, G1Affine};
use cuzk_gpu::batch_add::batch_add_resident;
use cuzk_gpu::curve::{G1, G2};
use cuzk_gpu::hooks::bench::{
    fp64_mul_chain, fp_mul_chain, fp_mul_chain_reference, g1_add_chain, g1_add_chain_reference, ntt_timed, ChainRun,
};
use cuzk_gpu::msm::{msm_resident, msm_table, DeviceRun, MsmCurve, MsmTable};
use cuzk_gpu::{Device, DeviceBases, DeviceScalars, GpuError, NttKind};
use ff::Field;
use group::Curve;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::time::Instant;

const RUNS: usize = 5;
const SCALAR_PERIOD: usize = (1 << 20) - 3;

fn main() {
    let device = common::open_device_or_exit("the kernel benchmarks");
    let info = device.info();
    println!("{{\"device\":\"{}\",\"sms\":{},\"total_mem\":{}}}", info.name, info.sm_count, info.total_mem);
    let only = std::env::var("CUZK_BENCH").ok();
    let wanted = |group: &str| only.as_deref().map_or(true, |list| list.split(',').any(|g| g.trim() == group));
    let sizes = env_list("CUZK_BENCH_SIZES");
    let sized = |log: u32| sizes.as_ref().map_or(true, |list| list.contains(&log));
    let distinct = env_list("CUZK_BENCH_DISTINCT").and_then(|list| list.first().copied());
    println!("{{\"bases_distinct_log\":{}}}", distinct.map_or("\"16 (G1), 14 (G2)\"".into(), |d| d.to_string()));
    let mut rng = ChaCha20Rng::seed_from_u64(0x6d736d);
    let mut table = Table::default();
    // One wave of 2048 resident threads per SM, four times over.
    let threads = u64::try_from(info.sm_count).unwrap() * 2048 * 4;

    if wanted("arith") {
        bench_fp_mul(&device, &mut rng, threads, &mut table);
        bench_g1_add(&device, &mut rng, threads, &mut table);
    }
    let random: Vec<Scalar> = (0..SCALAR_PERIOD).map(|_| Scalar::random(&mut rng)).collect();
    if wanted("ntt") {
        for log in (16..=27).filter(|&l| sized(l)) {
            for kind in [NttKind::Forward, NttKind::Inverse, NttKind::CosetForward, NttKind::CosetInverse] {
                bench_ntt(&device, &random, log, kind, &mut table);
            }
        }
    }
    let bits: Vec<Scalar> = (0..SCALAR_PERIOD)
        .map(|_| match rng.next_u32() % 100 {
            0..=44 => Scalar::ZERO,
            45..=94 => Scalar::ONE,
            _ => Scalar::random(&mut rng),
        })
        .collect();

    if wanted("msm_g1") || wanted("batch_add") {
        let pattern = points::<G1Projective>(&mut rng, 1 << distinct.unwrap_or(16));
        let g1 = DeviceBases::<G1>::tiled(&device, &pattern, 1 << 27).unwrap();
        drop(pattern);
        if wanted("msm_g1") {
            for log in (16..=27).filter(|&l| sized(l)) {
                for (name, pattern) in [("random", &random), ("bit_heavy", &bits)] {
                    bench_msm(&device, "msm_g1", name, &g1, pattern, log, &mut table);
                }
            }
        }
        if wanted("batch_add") {
            for log in [26, 27].into_iter().filter(|&l| sized(l)) {
                bench_batch_add(&mut rng, "batch_add_g1", &g1, log, &mut table);
            }
        }
    }

    if wanted("msm_g1_table") {
        let pattern = points::<G1Projective>(&mut rng, 1 << distinct.unwrap_or(16));
        for log in (16..=24).filter(|&l| sized(l)) {
            let sets = [("random", &random), ("bit_heavy", &bits)];
            bench_msm_table::<G1>(&device, "msm_g1_table", &pattern, log, sets, &mut table);
        }
    }
    if wanted("msm_g2_table") {
        let pattern = points::<G2Projective>(&mut rng, 1 << distinct.unwrap_or(14));
        for log in (16..=24).filter(|&l| sized(l)) {
            let sets = [("random", &random), ("bit_heavy", &bits)];
            bench_msm_table::<G2>(&device, "msm_g2_table", &pattern, log, sets, &mut table);
        }
    }

    if wanted("msm_g2") || wanted("batch_add") {
        let pattern = points::<G2Projective>(&mut rng, 1 << distinct.unwrap_or(14));
        let g2 = DeviceBases::<G2>::tiled(&device, &pattern, 1 << 24).unwrap();
        drop(pattern);
        if wanted("msm_g2") {
            for log in (16..=24).filter(|&l| sized(l)) {
                for (name, pattern) in [("random", &random), ("bit_heavy", &bits)] {
                    bench_msm(&device, "msm_g2", name, &g2, pattern, log, &mut table);
                }
            }
        }
        if wanted("batch_add") && sized(24) {
            bench_batch_add(&mut rng, "batch_add_g2", &g2, 24, &mut table);
        }
    }
    table.print();
}

/// Rows of the closing table: bench, case, size, median ms, rate.
#[derive(Default)]
struct Table(Vec<[String; 5]>);

impl Table {
    fn push(&mut self, bench: &str, case: &str, log: u32, median: f64, rate: String) {
        self.0.push([bench.into(), case.into(), format!("2^{log}"), format!("{median:.3}"), rate]);
    }

    fn print(&self) {
        println!("| bench | case | n | median ms | rate |");
        println!("| --- | --- | ---: | ---: | ---: |");
        for row in &self.0 {
            println!("| {} |", row.join(" | "));
        }
    }
}

/// Medians of the device times of a chain kernel after one warm-up, each
/// run's sample checked against the CPU reference.
fn chain_median<T: PartialEq + std::fmt::Debug>(
    mut run: impl FnMut() -> Result<ChainRun<T>, GpuError>,
    reference: impl Fn(usize) -> T,
) -> f64 {
    run().unwrap();
    let times = (0..RUNS)
        .map(|_| {
            let r = run().unwrap();
            for (t, got) in r.sample.iter().enumerate() {
                assert_eq!(*got, reference(t), "thread {t} of the chain kernel");
            }
            f64::from(r.device_ms)
        })
        .collect();
    median(times)
}

/// A chain kernel of Fp products: the integer multiplier's or the FP64-limb one's.
type FpChain = fn(&Device, &[Fp], u64, u32, usize) -> Result<ChainRun<Fp>, GpuError>;

/// Fp products per second of the integer product (`fp_mul`) and, on the
/// same seeds and chains, of the FP64-limb product (`fp64_mul`, cuda/ff/fp64.hpp).
fn bench_fp_mul(device: &Device, rng: &mut ChaCha20Rng, threads: u64, table: &mut Table) {
    const ITERS: u32 = 4096;
    let seeds: Vec<Fp> = (0..64).map(|_| Fp::random(&mut *rng)).collect();
    let chains: [(&str, FpChain); 2] = [("fp_mul", fp_mul_chain), ("fp64_mul", fp64_mul_chain)];
    for (name, chain) in chains {
        let ms = chain_median(
            || chain(device, &seeds, threads, ITERS, 8),
            |t| fp_mul_chain_reference(&seeds, t, ITERS),
        );
        let rate = threads as f64 * f64::from(ITERS) / (ms * 1e-3);
        println!("{{\"bench\":\"{name}\",\"threads\":{threads},\"iters\":{ITERS},\"median_ms\":{ms:.3},\"per_s\":{rate:.4e},\"runs\":{RUNS}}}");
        table.push(name, &format!("{threads} threads x {ITERS}"), 0, ms, format!("{:.2} G/s", rate * 1e-9));
    }
}

fn bench_g1_add(device: &Device, rng: &mut ChaCha20Rng, threads: u64, table: &mut Table) {
    const ITERS: u32 = 256;
    let bases: Vec<G1Affine> = points::<G1Projective>(rng, 64);
    let ms = chain_median(
        || g1_add_chain(device, &bases, threads, ITERS, 8),
        |t| g1_add_chain_reference(&bases, t, ITERS),
    );
    let rate = threads as f64 * f64::from(ITERS) / (ms * 1e-3);
    println!("{{\"bench\":\"g1_mixed_add\",\"threads\":{threads},\"iters\":{ITERS},\"median_ms\":{ms:.3},\"per_s\":{rate:.4e},\"runs\":{RUNS}}}");
    table.push("g1_mixed_add", &format!("{threads} threads x {ITERS}"), 0, ms, format!("{:.2} G/s", rate * 1e-9));
}

fn bench_ntt(device: &Device, pattern: &[Scalar], log: u32, kind: NttKind, table: &mut Table) {
    let name = format!("{kind:?}");
    let result = DeviceScalars::tiled(device, pattern, 1 << log)
        .and_then(|input| ntt_timed(&input, kind, RUNS as u32 + 1, false))
        .map(|t| {
            // The first run is the warm-up.
            let times: Vec<f64> = t.device_ms[1..].iter().map(|&ms| f64::from(ms)).collect();
            let min = times.iter().copied().fold(f64::INFINITY, f64::min);
            (median(times), min)
        });
    match result {
        Ok((med, min)) => {
            println!("{{\"bench\":\"ntt\",\"kind\":\"{name}\",\"log_n\":{log},\"median_ms\":{med:.3},\"min_ms\":{min:.3},\"runs\":{RUNS}}}");
            table.push("ntt", &name, log, med, String::new());
        }
        Err(e) => println!("{{\"bench\":\"ntt\",\"kind\":\"{name}\",\"log_n\":{log},\"error\":\"{e}\"}}"),
    }
}

/// The comma-separated numbers of an environment variable, if it is set.
fn env_list(name: &str) -> Option<Vec<u32>> {
    let value = std::env::var(name).ok()?;
    let parsed = value.split(',').map(|v| v.trim().parse::<u32>()).collect::<Result<Vec<_>, _>>();
    match parsed {
        Ok(list) => Some(list),
        Err(e) => panic!("{name}={value:?}: expected comma-separated numbers ({e})"),
    }
}

/// n random affine points: random walks (one per thread, from seeds drawn
/// here) and one batch normalisation each.
fn points<P: Curve<AffineRepr: Copy + Send> + Send>(rng: &mut ChaCha20Rng, n: usize) -> Vec<P::AffineRepr> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n);
    let share = n.div_ceil(threads);
    let seeds: Vec<(P, P)> = (0..threads).map(|_| (P::random(&mut *rng), P::random(&mut *rng))).collect();
    let mut out = vec![P::identity().to_affine(); n];
    std::thread::scope(|scope| {
        for (chunk, (mut p, step)) in out.chunks_mut(share).zip(seeds) {
            scope.spawn(move || {
                let walk: Vec<P> = (0..chunk.len())
                    .map(|_| {
                        p = p.double() + step;
                        p
                    })
                    .collect();
                P::batch_normalize(&walk, chunk);
            });
        }
    });
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Warm-up, then RUNS timed runs: (median device ms, min device ms, median wall ms).
fn timed<P>(mut run: impl FnMut() -> Result<DeviceRun<P>, GpuError>) -> Result<(f64, f64, f64), GpuError> {
    run()?;
    let (mut device, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let start = Instant::now();
        let r = run()?;
        wall.push(start.elapsed().as_secs_f64() * 1e3);
        device.push(f64::from(r.device_ms));
    }
    let min = device.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((median(device), min, median(wall)))
}

fn report(bench: &str, scalars: &str, log: u32, result: Result<(f64, f64, f64), GpuError>, table: &mut Table) {
    match result {
        Ok((med, min, wall)) => {
            println!(
                "{{\"bench\":\"{bench}\",\"scalars\":\"{scalars}\",\"log_n\":{log},\"median_ms\":{med:.3},\"min_ms\":{min:.3},\"wall_ms\":{wall:.3},\"runs\":{RUNS}}}"
            );
            table.push(bench, scalars, log, med, String::new());
        }
        Err(e) => println!("{{\"bench\":\"{bench}\",\"scalars\":\"{scalars}\",\"log_n\":{log},\"error\":\"{e}\"}}"),
    }
}

fn bench_msm<C: MsmCurve>(
    device: &Device,
    bench: &str,
    scalars: &str,
    bases: &DeviceBases<C>,
    pattern: &[Scalar],
    log: u32,
    table: &mut Table,
) {
    let result = DeviceScalars::tiled(device, pattern, 1 << log)
        .and_then(|s| timed(|| msm_resident(bases, &s)));
    report(bench, scalars, log, result, table);
}

/// MSMs of 2^log bases over a table of one copy per window, built (and its
/// build time printed) before the timed runs, as for a fixed SRS.
fn bench_msm_table<C: MsmCurve>(
    device: &Device,
    bench: &str,
    pattern: &[C::Affine],
    log: u32,
    scalar_sets: [(&str, &Vec<Scalar>); 2],
    table: &mut Table,
) {
    let start = Instant::now();
    let built = DeviceBases::<C>::tiled(device, pattern, 1 << log).and_then(|bases| MsmTable::build(&bases, u32::MAX));
    match built {
        Ok(t) => {
            println!(
                "{{\"bench\":\"{bench}\",\"log_n\":{log},\"table_points\":{},\"build_ms\":{:.1}}}",
                t.points(),
                start.elapsed().as_secs_f64() * 1e3
            );
            for (name, pattern) in scalar_sets {
                let result =
                    DeviceScalars::tiled(device, pattern, 1 << log).and_then(|s| timed(|| msm_table(&t, &s)));
                report(bench, name, log, result, table);
            }
        }
        Err(e) => report(bench, "random", log, Err(e), table),
    }
}

fn bench_batch_add<C: MsmCurve>(
    rng: &mut ChaCha20Rng,
    bench: &str,
    bases: &DeviceBases<C>,
    log: u32,
    table: &mut Table,
) {
    let n = 1usize << log;
    if n > bases.len() {
        return;
    }
    // The bases array may be longer than n: the bitmap covers all of it,
    // with ones (at random, half of them) only among the first n.
    let mut bitmap = vec![0u64; bases.len().div_ceil(64)];
    for word in bitmap.iter_mut().take(n / 64) {
        *word = rng.next_u64();
    }
    report(bench, "half_ones", log, timed(|| batch_add_resident(bases, &bitmap)), table);
}
