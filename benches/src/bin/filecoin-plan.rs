//! `filecoin-plan`: how much of a real Filecoin circuit's witness its
//! recorded rows determine (cuzk-synth's `RecordedShape::solve_plan`), and
//! what replaying that plan costs against running filecoin-proofs' own
//! gadgets, on one part of a synthetic partition of any sector size (no
//! sealing: `cuzk_filecoin::synthetic`): a run of a PoRep partition's
//! challenges, or of a WindowPoSt partition's sectors, or a whole
//! SnapDeals partition (which does not cut).
//! The replayed witness, and the one replayed block by block from the
//! values the circuit gives (as the engine replays), must equal the
//! gadgets' witness, or the run fails.
//! The Filecoin-scale witnesses computed without the gadgets start from these
//! figures. Progress goes to stderr; stdout gets one JSON line.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use blstrs::Scalar;
use clap::Parser;
use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::{synthetic, testdata, FilecoinCircuit, Request, SectorSize};
use cuzk_synth::recorded::Rule;
use cuzk_synth::{Circuit, RecordedShape, WitnessPass};

/// Plan and replay one part of a synthetic partition.
#[derive(Parser)]
#[command(name = "filecoin-plan")]
struct Args {
    /// The proof kind: porep (a PoRep C2 partition), wpost (a WindowPoSt
    /// partition) or snap (a SnapDeals partition, whole).
    #[arg(long, default_value = "porep", value_parser = ["porep", "wpost", "snap"])]
    kind: String,
    /// The sector size: 2k, 8m, 512m, 32g or 64g (or 32GiB, 32 GiB, or in bytes).
    #[arg(long)]
    sector_size: SectorSize,
    /// Blocks in the part: a PoRep partition's challenges, a WindowPoSt partition's sectors.
    #[arg(long, default_value_t = 1)]
    challenges: usize,
    /// Repetitions of the gadgets' witness and of the replay; medians are reported.
    #[arg(long, default_value_t = 3)]
    reps: usize,
}

/// A synthetic request of the kind and size asked for.
fn request(kind: &str, size: SectorSize) -> Result<Request, String> {
    let e = |e: cuzk_filecoin::FilecoinError| e.to_string();
    Ok(match kind {
        "porep" => {
            let c1 = synthetic::porep_c1(size, 1000, 1, [7; 32], [9; 32]).map_err(e)?;
            PoRepRequest::new(c1, 1, 1000).map_err(e)?.into()
        }
        "snap" => {
            let u = synthetic::snap_update(size).map_err(e)?;
            SnapRequest::new(u.proof, u.vanilla, &u.comm_r_old, &u.comm_r_new, &u.comm_d_new).map_err(e)?.into()
        }
        _ => {
            let proof = testdata::window_proof(size);
            let sectors: Vec<u64> = (1..).take(proof.sector_count()).collect();
            let vanilla = synthetic::post_vanilla(proof, 1000, [3; 32], &sectors).map_err(e)?;
            WindowPoStRequest { proof, randomness: [3; 32], miner_id: 1000, partition_index: 0, vanilla }.into()
        }
    })
}

/// The first part of partition 0: a run of at most `challenges` of its
/// blocks (the runs are balanced, so it may hold fewer); a partition that
/// does not cut, whole.
fn part(request: &Request, challenges: usize) -> Result<FilecoinCircuit, String> {
    let n = match first_partition(request)?.split(usize::MAX) {
        Ok(split) => split.parts.len(),
        Err(whole) => return Ok(whole),
    };
    let cut = first_partition(request)?.split(n.div_ceil(challenges.clamp(1, n)));
    let mut runs = cut.map(|s| s.parts).map_err(|_| "the partition did not split".to_string())?;
    Ok(runs.swap_remove(0))
}

/// Partition 0, whole.
fn first_partition(request: &Request) -> Result<FilecoinCircuit, String> {
    let partitions = request.prepare().map_err(|e| e.to_string())?;
    partitions.circuits.into_iter().next().ok_or_else(|| "no partition".into())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn run(args: &Args) -> Result<serde_json::Value, String> {
    let say = |s: String| eprintln!("filecoin-plan: {s}");
    let t = Instant::now();
    let request = request(&args.kind, args.sector_size)?;
    say(format!("synthetic {} {} inputs in {:.1} s", args.sector_size, args.kind, t.elapsed().as_secs_f64()));

    let circuit = part(&request, args.challenges)?;
    let t = Instant::now();
    let shape = RecordedShape::<Scalar>::record_shape(circuit).map_err(|e| e.to_string())?;
    let record_ms = ms(t);
    say(format!("recorded {} constraints, {} aux in {record_ms:.0} ms", shape.num_constraints(), shape.num_aux()));
    let t = Instant::now();
    let plan = shape.solve_plan();
    let plan_ms = ms(t);
    let s = plan.summary.clone();
    say(format!("planned in {plan_ms:.0} ms: {} free ({} boolean), {} linear, {} bits", s.free, s.free_booleans, s.linear, s.bits));

    let (mut gadgets, mut replays, mut blocks) = (Vec::new(), Vec::new(), Vec::new());
    for rep in 0..args.reps.max(1) {
        let mut circuit = part(&request, args.challenges)?;
        // The gadgets, not the replay of the circuit's own block values.
        drop(circuit.take_block_values());
        let t = Instant::now();
        let witness = shape.witness(circuit).map_err(|e| e.to_string())?;
        gadgets.push(ms(t));
        let free: Vec<Scalar> =
            plan.steps.iter().filter(|(_, r)| *r == Rule::Free).map(|&(v, _)| witness.aux[v as usize]).collect();
        let t = Instant::now();
        let replayed = shape.replay(&plan, witness.inputs.clone(), &free).map_err(|e| e.to_string())?;
        replays.push(ms(t));
        if replayed != witness {
            return Err("the replayed witness differs from the gadgets' witness".into());
        }
        // As the engine does: block by block from the values the circuit
        // gives (the first rep includes planning one block). A WindowPoSt
        // run of sectors gives none (its whole partition does).
        let t = Instant::now();
        let (by_blocks, pass) = shape.witness_pass(part(&request, args.challenges)?).map_err(|e| e.to_string())?;
        if pass == WitnessPass::Replay {
            blocks.push(ms(t));
            if by_blocks != witness {
                return Err("the block replay differs from the gadgets' witness".into());
            }
        }
        let by_blocks = blocks.get(rep).map_or("none".into(), |b| format!("{b:.0} ms"));
        say(format!("rep {rep}: gadgets {:.0} ms, replay {:.0} ms, by blocks {by_blocks}, equal", gadgets[rep], replays[rep]));
    }
    Ok(serde_json::json!({
        "kind": args.kind,
        "sector_size": args.sector_size.short_name(),
        "challenges": args.challenges,
        "constraints": shape.num_constraints(),
        "aux": shape.num_aux(),
        "free": s.free,
        "free_booleans": s.free_booleans,
        "unconstrained": s.unconstrained,
        "linear": s.linear,
        "bits": s.bits,
        "solving_nonzeros": s.solving_nonzeros,
        "record_ms": record_ms,
        "plan_ms": plan_ms,
        "gadgets_ms": median(gadgets),
        "replay_ms": median(replays),
        "blocks_ms": (!blocks.is_empty()).then(|| median(blocks)),
        "threads": rayon::current_num_threads(),
    }))
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("filecoin-plan: {e}");
            ExitCode::FAILURE
        }
    }
}
