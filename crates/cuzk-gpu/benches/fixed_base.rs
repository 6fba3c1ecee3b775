//! Setup benchmarks on device 0, one JSON line per measurement and a table
//! at the end: fixed-base multiplication throughput (`g1`: 2^24 and 2^27
//! scalars, `g2`: 2^24), wall time from host scalars to host affine points
//! (the table built on the host, uploads and copies back included; the
//! table's build is printed apart), the median of 3 runs after a warm-up,
//! each run's first points checked against blstrs; and `setup`: a whole
//! setup from a recorded mul-chain (2^20 constraints), the scalars on the
//! CPU and the multiplications on the device timed apart.
//! CUZK_BENCH=g1,g2,setup (any subset) runs only those groups;
//! CUZK_BENCH_SIZES=24,27 (log2 sizes) only those sizes of g1 and g2 (G2
//! stops at 2^25). Scalars repeat a random period of 2^20 − 3. Without a
//! GPU it exits non-zero, unless CUZK_ALLOW_NO_GPU=1.

mod common;

use std::time::Instant;

use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_groth16::{SetupScalars, ToxicWaste};
use cuzk_gpu::curve::{G1, G2};
use cuzk_gpu::setup::{fixed_base, window_table, FixedBasePlan, SetupCurve};
use cuzk_gpu::{Device, GpuFixedBase};
use cuzk_synth::recorded::RecordedShape;
use cuzk_synth::workloads::MulChain;
use ff::Field;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const RUNS: usize = 3;
const SCALAR_PERIOD: usize = (1 << 20) - 3;
const CHECKED: usize = 1000;

fn main() {
    let device = common::open_device_or_exit("the setup benchmarks");
    let info = device.info();
    println!("{{\"device\":\"{}\",\"sms\":{},\"total_mem\":{}}}", info.name, info.sm_count, info.total_mem);
    let only = std::env::var("CUZK_BENCH").ok();
    let wanted = |group: &str| only.as_deref().map_or(true, |list| list.split(',').any(|g| g.trim() == group));
    let sizes: Option<Vec<u32>> = std::env::var("CUZK_BENCH_SIZES").ok().map(|v| {
        v.split(',').map(|s| s.trim().parse().unwrap_or_else(|e| panic!("CUZK_BENCH_SIZES={v:?}: {e}"))).collect()
    });
    let sized = |log: u32, default: &[u32]| sizes.as_ref().map_or(default.contains(&log), |list| list.contains(&log));
    let mut rng = ChaCha20Rng::seed_from_u64(0x0073_6574_7570);
    let period: Vec<Scalar> = (0..SCALAR_PERIOD).map(|_| Scalar::random(&mut rng)).collect();
    let mut rows = Vec::new();
    if wanted("g1") {
        let g = G1Projective::random(&mut rng);
        for log in (16..=27).filter(|&l| sized(l, &[24, 27])) {
            rows.push(bench::<G1>(&device, "g1", g, &period, log));
        }
    }
    if wanted("g2") {
        let g = G2Projective::random(&mut rng);
        for log in (16..=25).filter(|&l| sized(l, &[24])) {
            rows.push(bench::<G2>(&device, "g2", g, &period, log));
        }
    }
    if wanted("setup") {
        rows.push(bench_setup(&device, &mut rng, 20));
    }
    println!("| bench | n | median ms | points/s |");
    println!("| --- | ---: | ---: | ---: |");
    for row in rows {
        println!("| {} |", row.join(" | "));
    }
}

fn bench<C: SetupCurve>(device: &Device, name: &str, g: C::Projective, period: &[Scalar], log: u32) -> Vec<String>
where
    C::Affine: std::fmt::Debug,
{
    let n = 1usize << log;
    let scalars: Vec<Scalar> = period.iter().copied().cycle().take(n).collect();
    let free = device.info().free_mem;
    let plan = FixedBasePlan::new::<C>(n, free);
    let start = Instant::now();
    window_table::<C>(g, plan.window_bits).unwrap();
    let table_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut times = Vec::new();
    for run in 0..=RUNS {
        let start = Instant::now();
        let points = fixed_base::<C>(device, g, &scalars, &mut |_, _| {}).unwrap();
        let ms = start.elapsed().as_secs_f64() * 1e3;
        for (i, (s, p)) in scalars.iter().zip(&points).take(CHECKED).enumerate() {
            assert_eq!(*p, (g * s).to_affine(), "{name} 2^{log}: point {i}");
        }
        drop(points);
        if run > 0 {
            times.push(ms);
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times[RUNS / 2];
    let rate = n as f64 / (median / 1e3);
    println!(
        "{{\"bench\":\"fixed_base_{name}\",\"log_n\":{log},\"window_bits\":{},\"chunk\":{},\"table_ms\":{table_ms:.1},\"median_ms\":{median:.1},\"points_per_s\":{rate:.4e},\"runs\":{RUNS}}}",
        plan.window_bits, plan.chunk
    );
    vec![format!("fixed_base_{name}"), format!("2^{log}"), format!("{median:.1}"), format!("{rate:.3e}")]
}

/// A whole setup from a recorded mul-chain of about 2^log constraints.
fn bench_setup(device: &Device, rng: &mut ChaCha20Rng, log: u32) -> Vec<String> {
    let shape = RecordedShape::record_shape(MulChain::<Scalar>::new((1 << log) - 2, 1)).unwrap();
    let toxic = ToxicWaste::random(rng);
    let start = Instant::now();
    let scalars = SetupScalars::from_shape(&shape, &toxic).unwrap();
    let scalars_ms = start.elapsed().as_secs_f64() * 1e3;
    let (g1, g2) = (scalars.g1_count(), scalars.b.len());
    let start = Instant::now();
    scalars.into_parameters(&toxic, &GpuFixedBase::new(device), None).unwrap();
    let mul_ms = start.elapsed().as_secs_f64() * 1e3;
    println!(
        "{{\"bench\":\"setup_mul_chain\",\"log_n\":{log},\"g1_points\":{g1},\"g2_points\":{g2},\"scalars_ms\":{scalars_ms:.1},\"multiplications_ms\":{mul_ms:.1}}}"
    );
    let rate = (g1 + g2) as f64 / (mul_ms / 1e3);
    vec!["setup_mul_chain".into(), format!("2^{log}"), format!("{:.1}", scalars_ms + mul_ms), format!("{rate:.3e}")]
}
