//! The CPU comparison with bellperson 0.27 (the foundation's benchmark goal):
//! for each case, one parameter file serves both provers, each library
//! synthesizes and proves the same circuit `reps` times in the same process,
//! every proof is verified, and the medians are reported.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk_groth16::{prove_timed, random_nonzero_scalar, verify_proof, Domain, ProveTimings};
use cuzk_synth::workloads::Workload;
use cuzk_synth::{ProvingAssignment, RecordedShape};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::error::BenchError;
use crate::fixture::{make_params_file, params_path, Fixture, ProvingPair};
use crate::peer_timing;

/// The foundation issue's four cases.
pub const DEFAULT_CASES: &str = "sha256:10,sha256:40,mul-chain:2^18,mul-chain:2^20";

/// One workload at one size, written `WORKLOAD:SIZE` (`SIZE` may be `2^K`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The workload.
    pub workload: Workload,
    /// Its size parameter.
    pub size: usize,
}

impl FromStr for Case {
    type Err = BenchError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BenchError::BadCase(s.to_string());
        let (workload, size) = s.split_once(':').ok_or_else(bad)?;
        let workload: Workload = workload.parse().map_err(|_| bad())?;
        let size = match size.split_once('^') {
            Some(("2", k)) => k.parse::<u32>().ok().and_then(|k| 1usize.checked_shl(k)),
            Some(_) => None,
            None => size.parse().ok(),
        };
        match size {
            Some(size) if size > 0 => Ok(Case { workload, size }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.workload == Workload::MulChain && self.size.is_power_of_two() && self.size > 1 {
            write!(f, "{}:2^{}", self.workload, self.size.trailing_zeros())
        } else {
            write!(f, "{}:{}", self.workload, self.size)
        }
    }
}

/// How the comparison runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Proofs per library per case; the report gives medians.
    pub reps: usize,
    /// Where parameter files are cached between runs.
    pub params_dir: PathBuf,
    /// Seed of the witnesses (and, for mul-chain, of the circuit's constant).
    pub seed: u64,
}

/// One library's figures for one case: medians, then every repetition.
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// Median synthesis time.
    pub synth_ms: f64,
    /// Median synthesis time per circuit constraint.
    pub synth_ns_per_constraint: f64,
    /// Median prove time (after synthesis, up to the finished proof).
    pub prove_ms: f64,
    /// Every repetition's synthesis time.
    pub synth_ms_all: Vec<f64>,
    /// Every repetition's prove time.
    pub prove_ms_all: Vec<f64>,
}

/// cuzk's recorded synthesis (the shape recorded once, then per proof
/// witness-only synthesis and the CPU sparse products): medians, then every repetition.
#[derive(Clone, Debug, Serialize)]
pub struct RecordedFigures {
    /// The one recording (a classic synthesis that also builds the matrices).
    pub record_ms: f64,
    /// Nonzeros of A, B and C together.
    pub nnz: usize,
    /// Bytes the recording holds (matrices, coefficients, densities).
    pub shape_bytes: usize,
    /// Median witness-only synthesis time.
    pub witness_ms: f64,
    /// Median time of a = A·w, b = B·w, c = C·w with the satisfaction check.
    pub spmv_ms: f64,
    /// Median of witness plus products: what replaces classic synthesis.
    pub synth_ms: f64,
    /// `synth_ms` per circuit constraint.
    pub synth_ns_per_constraint: f64,
    /// Every repetition's witness plus products time.
    pub synth_ms_all: Vec<f64>,
}

/// The medians of cuzk's prover phases (see [`ProveTimings`]).
#[derive(Clone, Debug, Serialize)]
pub struct Phases {
    /// Median of `ntt_ms`.
    pub ntt_ms: f64,
    /// Median of `msm_h_ms`.
    pub msm_h_ms: f64,
    /// Median of `msm_l_ms`.
    pub msm_l_ms: f64,
    /// Median of `msm_ab_ms`.
    pub msm_ab_ms: f64,
    /// Median of `epilogue_ms`.
    pub epilogue_ms: f64,
}

/// Everything measured for one case, one JSON line.
#[derive(Clone, Debug, Serialize)]
pub struct CaseReport {
    /// `WORKLOAD:SIZE`.
    pub case: String,
    /// The workload's name.
    pub workload: String,
    /// The size parameter.
    pub size: usize,
    /// Constraints of the circuit (DESIGN §7's count).
    pub constraints: usize,
    /// Constraints the prover sees (plus one per public input, the one included).
    pub prover_constraints: usize,
    /// The evaluation domain's size.
    pub domain: usize,
    /// Repetitions per library.
    pub reps: usize,
    /// Threads of the rayon pool both provers use.
    pub threads: usize,
    /// Cores the process may use.
    pub cores: usize,
    /// cuzk's setup time when this run made the parameter file; `None` when cached.
    pub setup_ms: Option<f64>,
    /// The parameter file.
    pub params_file: String,
    /// cuzk's load of the parameter file.
    pub cuzk_load_ms: f64,
    /// bellperson's load of the same file.
    pub bellperson_load_ms: f64,
    /// cuzk's figures.
    pub cuzk: Figures,
    /// bellperson's figures.
    pub bellperson: Figures,
    /// Median of bellperson's whole `create_random_proof` call.
    pub bellperson_total_ms: f64,
    /// cuzk's recorded synthesis.
    pub recorded: RecordedFigures,
    /// bellperson's synthesis time over ours (above 1: we are faster).
    pub synth_speedup: f64,
    /// bellperson's synthesis time over the recorded path's.
    pub recorded_synth_speedup: f64,
    /// bellperson's prove time over ours (above 1: we are faster).
    pub prove_speedup: f64,
    /// Where cuzk's prove time went.
    pub cuzk_phases: Phases,
}

/// Runs one case; `note` receives progress lines.
pub fn run_case(
    case: Case,
    settings: &Settings,
    note: &mut dyn FnMut(&str),
) -> Result<CaseReport, BenchError> {
    let fixture = Fixture::new(case.workload, case.size, settings.seed)?;
    let path = params_path(&settings.params_dir, &fixture);
    let setup_ms = if path.exists() {
        note(&format!("{case}: using cached {}", path.display()));
        None
    } else {
        note(&format!("{case}: cuzk setup -> {}", path.display()));
        let mut rng = ChaCha20Rng::seed_from_u64(settings.seed ^ 0x5e7u64);
        let start = Instant::now();
        make_params_file(&fixture, &path, &mut rng)?;
        Some(ms(start.elapsed()))
    };
    let start = Instant::now();
    let cuzk_params = crate::fixture::load_cuzk(&path)?;
    let cuzk_load_ms = ms(start.elapsed());
    let start = Instant::now();
    let bell_params = crate::fixture::load_bellperson(&path)?;
    let bellperson_load_ms = ms(start.elapsed());
    let pair = ProvingPair::from_params(cuzk_params, bell_params)?;

    note(&format!("{case}: recording the shape"));
    let start = Instant::now();
    let (shape, recorded_pa) = RecordedShape::<Scalar>::record(fixture.ours())?;
    let record_ms = ms(start.elapsed());
    // The fixture's circuit is the same every repetition, so the first
    // recorded synthesis must equal the recording's own (classic) assignment.
    let mut reference = Some(recorded_pa);
    let mut recorded_runs = Vec::with_capacity(settings.reps);

    let mut rng = ChaCha20Rng::seed_from_u64(settings.seed.wrapping_add(1));
    let mut ours = Vec::with_capacity(settings.reps);
    let mut theirs = Vec::with_capacity(settings.reps);
    let mut prover_constraints = 0;
    for rep in 0..settings.reps {
        // Alternate who goes first so that drift on a shared machine hits both.
        let ours_first = rep % 2 == 0;
        if !ours_first {
            theirs.push(run_bellperson(case, &fixture, &pair, &mut rng)?);
        }
        let (run, constraints) = run_cuzk(case, &fixture, &pair, &mut rng)?;
        prover_constraints = constraints;
        ours.push(run);
        if ours_first {
            theirs.push(run_bellperson(case, &fixture, &pair, &mut rng)?);
        }
        recorded_runs.push(run_recorded(&fixture, &shape, reference.take())?);
        let (o, t, r) = (&ours[rep], &theirs[rep], &recorded_runs[rep]);
        note(&format!(
            "{case}: rep {}: synth {:.1} / {:.1} ms, prove {:.1} / {:.1} ms (cuzk / bellperson); recorded synth {:.1} + {:.1} ms",
            rep + 1,
            o.synth_ms,
            t.synth_ms,
            o.prove_ms,
            t.prove_ms,
            r.0,
            r.1
        ));
    }
    let recorded = recorded_figures(&recorded_runs, &shape, record_ms, fixture.constraints());

    let cuzk = figures(&ours, fixture.constraints());
    let bellperson = figures(&theirs, fixture.constraints());
    let phase = |f: fn(&ProveTimings) -> f64| median(ours.iter().map(|r| f(&r.phases)).collect());
    Ok(CaseReport {
        case: case.to_string(),
        workload: case.workload.to_string(),
        size: case.size,
        constraints: fixture.constraints(),
        prover_constraints,
        domain: Domain::new(prover_constraints)?.size(),
        reps: settings.reps,
        threads: rayon::current_num_threads(),
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        setup_ms,
        params_file: path.display().to_string(),
        cuzk_load_ms,
        bellperson_load_ms,
        synth_speedup: bellperson.synth_ms / cuzk.synth_ms,
        recorded_synth_speedup: bellperson.synth_ms / recorded.synth_ms,
        recorded,
        prove_speedup: bellperson.prove_ms / cuzk.prove_ms,
        bellperson_total_ms: median(theirs.iter().map(|r| r.total_ms).collect()),
        cuzk,
        bellperson,
        cuzk_phases: Phases {
            ntt_ms: phase(|p| p.ntt_ms),
            msm_h_ms: phase(|p| p.msm_h_ms),
            msm_l_ms: phase(|p| p.msm_l_ms),
            msm_ab_ms: phase(|p| p.msm_ab_ms),
            epilogue_ms: phase(|p| p.epilogue_ms),
        },
    })
}

/// One repetition of one library.
struct Run {
    synth_ms: f64,
    prove_ms: f64,
    total_ms: f64,
    phases: ProveTimings,
}

/// cuzk: synthesis, then `prove_timed` on the assignment; the assignment is
/// dropped after the clock stops, as the engine drops it off the caller's clock.
fn run_cuzk(
    case: Case,
    fixture: &Fixture,
    pair: &ProvingPair,
    rng: &mut ChaCha20Rng,
) -> Result<(Run, usize), BenchError> {
    let circuit = fixture.ours();
    let start = Instant::now();
    let pa = ProvingAssignment::<Scalar>::synthesize(circuit)?;
    let synth = start.elapsed();
    let rs = (random_nonzero_scalar(rng), random_nonzero_scalar(rng));
    let start = Instant::now();
    let (proofs, phases) = prove_timed(&pair.cuzk, std::slice::from_ref(&pa), &[rs])?;
    let prove = start.elapsed();
    let constraints = pa.num_constraints();
    drop(pa);
    if !verify_proof(&pair.pvk, &proofs[0], fixture.public_inputs())? {
        return Err(BenchError::InvalidProof {
            prover: "cuzk",
            case: case.to_string(),
        });
    }
    let run = Run {
        synth_ms: ms(synth),
        prove_ms: ms(prove),
        total_ms: ms(synth + prove),
        phases,
    };
    Ok((run, constraints))
}

/// cuzk's recorded path: (witness ms, products ms). The assignment is
/// compared with `reference` when given, and dropped off the clock.
fn run_recorded(
    fixture: &Fixture,
    shape: &RecordedShape<Scalar>,
    reference: Option<ProvingAssignment<Scalar>>,
) -> Result<(f64, f64), BenchError> {
    let circuit = fixture.ours();
    let start = Instant::now();
    let witness = shape.witness(circuit)?;
    let witness_time = start.elapsed();
    let start = Instant::now();
    let pa = shape.evaluate(witness)?;
    let spmv_time = start.elapsed();
    if let Some(classic) = reference {
        crate::recorded::same_assignment(&classic, &pa)?;
    }
    Ok((ms(witness_time), ms(spmv_time)))
}

/// The recorded path's figures from (witness ms, products ms) per repetition.
pub(crate) fn recorded_figures(
    runs: &[(f64, f64)],
    shape: &RecordedShape<Scalar>,
    record_ms: f64,
    constraints: usize,
) -> RecordedFigures {
    let synth_ms_all: Vec<f64> = runs.iter().map(|(w, s)| w + s).collect();
    let synth_ms = median(synth_ms_all.clone());
    RecordedFigures {
        record_ms,
        nnz: shape.nnz(),
        shape_bytes: shape.heap_bytes(),
        witness_ms: median(runs.iter().map(|r| r.0).collect()),
        spmv_ms: median(runs.iter().map(|r| r.1).collect()),
        synth_ms,
        synth_ns_per_constraint: synth_ms * 1e6 / constraints as f64,
        synth_ms_all,
    }
}

/// bellperson: `create_random_proof` with its own logged phase times.
fn run_bellperson(
    case: Case,
    fixture: &Fixture,
    pair: &ProvingPair,
    rng: &mut ChaCha20Rng,
) -> Result<Run, BenchError> {
    let (proof, timings) = peer_timing::prove(fixture.peer(), &pair.bellperson, rng)?;
    if !bellperson::groth16::verify_proof(&pair.bellperson_pvk, &proof, fixture.public_inputs())? {
        return Err(BenchError::InvalidProof {
            prover: "bellperson",
            case: case.to_string(),
        });
    }
    Ok(Run {
        synth_ms: ms(timings.synthesis),
        prove_ms: ms(timings.prove),
        total_ms: ms(timings.total),
        phases: ProveTimings::default(),
    })
}

fn figures(runs: &[Run], constraints: usize) -> Figures {
    let synth_ms_all: Vec<f64> = runs.iter().map(|r| r.synth_ms).collect();
    let prove_ms_all: Vec<f64> = runs.iter().map(|r| r.prove_ms).collect();
    let synth_ms = median(synth_ms_all.clone());
    Figures {
        synth_ms,
        synth_ns_per_constraint: synth_ms * 1e6 / constraints as f64,
        prove_ms: median(prove_ms_all.clone()),
        synth_ms_all,
        prove_ms_all,
    }
}

/// The middle value (the mean of the middle two for an even count); NaN when empty.
pub fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_parse_and_print() {
        let cases: Vec<Case> = DEFAULT_CASES
            .split(',')
            .map(|s| s.parse().unwrap())
            .collect();
        let sizes: Vec<_> = cases.iter().map(|c| (c.workload, c.size)).collect();
        assert_eq!(
            sizes,
            [
                (Workload::Sha256, 10),
                (Workload::Sha256, 40),
                (Workload::MulChain, 1 << 18),
                (Workload::MulChain, 1 << 20)
            ]
        );
        let printed: Vec<String> = cases.iter().map(Case::to_string).collect();
        assert_eq!(printed.join(","), DEFAULT_CASES);
        assert_eq!(
            "mul-chain:1000".parse::<Case>().unwrap().to_string(),
            "mul-chain:1000"
        );
        for bad in [
            "sha256",
            "sha256:0",
            "sha256:x",
            "md5:3",
            "mul-chain:3^4",
            "mul-chain:2^99",
            ":5",
        ] {
            assert!(
                matches!(bad.parse::<Case>(), Err(BenchError::BadCase(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![7.0]), 7.0);
        assert!(median(Vec::new()).is_nan());
    }
}
