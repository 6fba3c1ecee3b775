//! One `filecoin-synth` run: the inputs and the parameter file made or found
//! once, bellperson's parameters loaded once, the shape recorded once, then
//! per repetition cuzk's classic synthesis, cuzk's recorded synthesis and
//! bellperson's proof (the order of the libraries alternating), each on a
//! freshly built partition circuit. Checked every repetition: cuzk's input
//! assignment against the verifier's public inputs, recorded against classic
//! (a, b, c, witness, densities), and bellperson's proof against the
//! verifier's public inputs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk_filecoin::SectorSize;
use cuzk_synth::{ProvingAssignment, RecordedShape};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::inputs::{circuit_id, inputs, partition, Data, Kind};
use super::peer::PeerFilecoin;
use super::report::{ClassicFigures, PeerFigures, RssFigures, SynthReport};
use crate::compare::{median, recorded_figures};
use crate::error::BenchError;
use crate::fixture::{load_bellperson, BellParams};
use crate::{peer_timing, recorded, rss};

/// What a run measures and where it keeps its files.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The circuit.
    pub kind: Kind,
    /// The sector size (a test size).
    pub size: SectorSize,
    /// What the sector holds.
    pub data: Data,
    /// A Filecoin parameter cache directory.
    pub params_dir: PathBuf,
    /// Where the sector is sealed and its C1 or vanilla proof cached.
    pub work_dir: PathBuf,
    /// Repetitions per measurement; the report gives medians.
    pub reps: usize,
    /// Seed of the sector, its challenges and the test parameters.
    pub seed: u64,
}

/// Runs the comparison; `note` receives progress lines.
pub fn run(settings: &Settings, note: &dyn Fn(&str)) -> Result<SynthReport, BenchError> {
    if settings.reps == 0 {
        return Err(BenchError::BadArgument { what: "reps", value: "0".into(), expected: "at least 1" });
    }
    let made = inputs(&settings.work_dir, settings.kind, settings.size, settings.data, settings.seed, note)?;
    let request = &made.request;
    let id = circuit_id(request)?;
    let (files, setup_ms) = super::params::ensure(&settings.params_dir, id, settings.seed, note)?;

    note(&format!("{id}: bellperson reads {}", files.params.display()));
    let start = Instant::now();
    let bell_params = load_bellperson(&files.params)?;
    let bellperson_load_ms = ms(start.elapsed());
    let bell_pvk = bellperson::groth16::prepare_verifying_key(&bell_params.vk);
    let mut memory = RssFigures { base_mib: rss::current_bytes().map(mib), ..RssFigures::default() };

    note(&format!("{id}: recording the shape"));
    let (circuit, expected) = partition(request)?;
    let peak = Peak::start();
    let start = Instant::now();
    let (shape, recording) = RecordedShape::<Scalar>::record(circuit)?;
    let record_ms = ms(start.elapsed());
    memory.record_peak_mib = peak.end(None);
    check_inputs(&recording, &expected)?;
    let mut recording = Some(recording);

    let mut rng = ChaCha20Rng::seed_from_u64(settings.seed.wrapping_add(1));
    let (mut classic_runs, mut recorded_runs, mut peer_runs) = (Vec::new(), Vec::new(), Vec::new());
    let mut counts = (0, 0, 0);
    for rep in 0..settings.reps {
        // Alternate who goes first so that drift on a shared machine hits both.
        let bellperson_first = rep % 2 == 1;
        if bellperson_first {
            peer_runs.push(run_bellperson(request, &bell_params, &bell_pvk, &mut rng, &mut memory)?);
        }
        let (circuit, expected) = partition(request)?;
        let peak = Peak::start();
        let start = Instant::now();
        let classic = ProvingAssignment::<Scalar>::synthesize(circuit)?;
        classic_runs.push(ms(start.elapsed()));
        memory.classic_peak_mib = peak.end(memory.classic_peak_mib);
        check_inputs(&classic, &expected)?;
        counts = (classic.num_constraints(), classic.num_inputs(), classic.num_aux());
        if let Some(recording) = recording.take() {
            // The recording synthesized this very circuit the classic way too.
            recorded::same_assignment(&classic, &recording)?;
        }

        let (circuit, _) = partition(request)?;
        let peak = Peak::start();
        let run = recorded::run_checked(&shape, circuit, &classic)?;
        memory.recorded_peak_mib = peak.end(memory.recorded_peak_mib);
        recorded_runs.push((ms(run.witness), ms(run.products)));
        drop(classic);

        if !bellperson_first {
            peer_runs.push(run_bellperson(request, &bell_params, &bell_pvk, &mut rng, &mut memory)?);
        }
        let (r, p) = (recorded_runs[rep], &peer_runs[rep]);
        note(&format!(
            "{id}: rep {}: synthesis bellperson {:.1} ms, cuzk {:.1} ms, recorded {:.1} + {:.1} ms \
             (bellperson's proof {:.1} ms more, verified)",
            rep + 1,
            p.synth_ms,
            classic_runs[rep],
            r.0,
            r.1,
            p.prove_ms
        ));
    }

    let (prover_constraints, inputs_count, aux) = counts;
    let constraints = prover_constraints - inputs_count;
    let cuzk = ClassicFigures {
        synth_ms: median(classic_runs.clone()),
        synth_ns_per_constraint: median(classic_runs.clone()) * 1e6 / constraints as f64,
        synth_ms_all: classic_runs,
    };
    let recorded = recorded_figures(&recorded_runs, &shape, record_ms, constraints);
    let peer_synth: Vec<f64> = peer_runs.iter().map(|p| p.synth_ms).collect();
    let bellperson = PeerFigures {
        synth_ms: median(peer_synth.clone()),
        synth_ns_per_constraint: median(peer_synth.clone()) * 1e6 / constraints as f64,
        synth_ms_all: peer_synth,
        prove_ms: median(peer_runs.iter().map(|p| p.prove_ms).collect()),
        total_ms: median(peer_runs.iter().map(|p| p.total_ms).collect()),
    };
    Ok(SynthReport {
        circuit_id: id.to_string(),
        kind: settings.kind.to_string(),
        sector_bytes: settings.size.bytes(),
        data: settings.data.to_string(),
        seed: settings.seed,
        reps: settings.reps,
        threads: rayon::current_num_threads(),
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        constraints,
        prover_constraints,
        inputs: inputs_count,
        aux,
        inputs_file: made.file.display().to_string(),
        inputs_ms: made.made_ms,
        params_file: files.params.display().to_string(),
        setup_ms,
        bellperson_load_ms,
        classic_speedup: bellperson.synth_ms / cuzk.synth_ms,
        recorded_speedup: bellperson.synth_ms / recorded.synth_ms,
        cuzk,
        recorded,
        bellperson,
        rss: memory,
    })
}

/// One bellperson proof's figures.
struct PeerRun {
    synth_ms: f64,
    prove_ms: f64,
    total_ms: f64,
}

/// bellperson proves partition 0 with `create_random_proof`; its logged
/// synthesis time is the figure, and its proof must verify against the
/// verifier's public inputs.
fn run_bellperson(
    request: &cuzk_filecoin::Request,
    params: &BellParams,
    pvk: &crate::fixture::BellPvk,
    rng: &mut ChaCha20Rng,
    memory: &mut RssFigures,
) -> Result<PeerRun, BenchError> {
    let (circuit, expected) = partition(request)?;
    let id = circuit_id(request)?;
    let peak = Peak::start();
    let (proof, timings) = peer_timing::prove(PeerFilecoin(circuit), params, rng)?;
    memory.bellperson_peak_mib = peak.end(memory.bellperson_peak_mib);
    if !bellperson::groth16::verify_proof(pvk, &proof, &expected)? {
        return Err(BenchError::InvalidProof { prover: "bellperson", case: id.to_string() });
    }
    Ok(PeerRun { synth_ms: ms(timings.synthesis), prove_ms: ms(timings.prove), total_ms: ms(timings.total) })
}

/// The synthesized public inputs (after the leading one) must be the verifier's.
fn check_inputs(pa: &ProvingAssignment<Scalar>, expected: &[Scalar]) -> Result<(), BenchError> {
    let synthesized = pa.input_assignment.get(1..).unwrap_or_default();
    let (synthesized_count, expected_count) = (synthesized.len(), expected.len());
    match recorded::first_difference(synthesized, expected) {
        None => Ok(()),
        Some(index) => {
            Err(BenchError::PublicInputs { index, synthesized: synthesized_count, expected: expected_count })
        }
    }
}

/// A phase's resident-set peak, from a reset at its start.
struct Peak(bool);

impl Peak {
    fn start() -> Self {
        Peak(rss::reset_peak())
    }

    /// The larger of `so_far` and this phase's peak, in MiB.
    fn end(self, so_far: Option<f64>) -> Option<f64> {
        let now = if self.0 { rss::peak_bytes().map(mib) } else { None };
        match (so_far, now) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => b.or(a),
        }
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_checked_against_the_verifiers() {
        let pa = |inputs: &[u64]| {
            let mut pa = ProvingAssignment::<Scalar>::new();
            pa.input_assignment = std::iter::once(1).chain(inputs.iter().copied()).map(Scalar::from).collect();
            pa
        };
        let expected: Vec<Scalar> = [5u64, 6, 7].map(Scalar::from).to_vec();
        assert!(check_inputs(&pa(&[5, 6, 7]), &expected).is_ok());
        let index = |inputs: &[u64]| match check_inputs(&pa(inputs), &expected) {
            Err(BenchError::PublicInputs { index, .. }) => index,
            other => panic!("{inputs:?}: {other:?}"),
        };
        assert_eq!(index(&[5, 9, 7]), 1);
        assert_eq!(index(&[5, 6]), 2);
        assert_eq!(index(&[5, 6, 7, 8]), 3);
        assert_eq!(index(&[]), 0);
    }
}
