//! `cuzk::filecoin::prove` on a CPU engine at 2 KiB: a WinningPoSt request
//! becomes one job whose bytes filecoin-proofs' own verifier accepts; a
//! partition expecting other public inputs fails before any proving; a
//! proof that does not verify is an error, never returned.
#![cfg(feature = "filecoin")]

mod filecoin_support;

use std::sync::{Arc, OnceLock};

use blstrs::Scalar;
use cuzk::filecoin::winning_post::WinningPoStRequest;
use cuzk::filecoin::{default_priority, CircuitId, FilecoinError, ParamCache, Request};
use cuzk::groth16::{Parameters, Proof};
use cuzk::synth::{ProvingAssignment, RecordedShape, Witness};
use cuzk::{BackendChoice, Config, Engine, EngineError, Error, Job};
use cuzk_pipeline::{BackendError, CpuBackend, ProveBackend, ProveOutput};
use filecoin_support::{randomness, sectors, timed, vanilla, winning_sector, MINER, WINNING};
use rand::SeedableRng;

/// This binary's parameter cache, with WinningPoSt 2 KiB test parameters.
fn cache() -> &'static ParamCache {
    static CACHE: OnceLock<ParamCache> = OnceLock::new();
    CACHE.get_or_init(|| {
        filecoin_support::init_filecoin_env();
        let cache = ParamCache::new(filecoin_support::params_dir());
        let id: CircuitId = "winning-2k".parse().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        timed("winning-2k test parameters", || cache.write_test_params(id, &mut rng, None)).unwrap();
        cache
    })
}

fn request(seed: u64) -> (Request, [u8; 32]) {
    let rand = randomness(seed);
    let sector = winning_sector(&rand, sectors());
    let vanilla = vanilla(WINNING, &rand, &[sector]);
    let request = WinningPoStRequest { proof: WINNING, randomness: rand, miner_id: MINER, vanilla };
    (request.into(), rand)
}

fn cpu_engine() -> Engine {
    Engine::new(Config { backend: BackendChoice::Cpu, ..Config::default() }).unwrap()
}

#[test]
fn a_winning_post_proves_on_the_engine_after_a_request_with_other_inputs_failed_before_proving() {
    let cache = cache();
    let engine = cpu_engine();
    let (req, rand) = request(21);
    let params = cache.files(req.circuit_id().unwrap()).unwrap().params;

    // The verifier's inputs with one changed: the job fails typed, unproved.
    let mut partitions = req.prepare().unwrap();
    let mut inputs = partitions.public_inputs.remove(0);
    assert_eq!(inputs.len(), 132, "66 challenges of one sector: comm_r and a leaf index each");
    inputs[5] += Scalar::from(1u64);
    let job = Job::new(&params).partition_expecting(partitions.circuits.remove(0), inputs);
    let handle = engine.submit(job).unwrap();
    let id = handle.id();
    match timed("the mismatching job", || handle.wait()) {
        Err(EngineError::PublicInputs { job, partition: 0, index: 5, expected: 132, synthesized: 132 }) => {
            assert_eq!(job, id)
        }
        other => panic!("expected a public-inputs error, got {other:?}"),
    }

    let proved = timed("cuzk::filecoin::prove", || {
        cuzk::filecoin::prove(&engine, cache, &req, default_priority(req.kind())).unwrap()
    });
    assert_eq!(proved.circuit_id.to_string(), "winning-2k");
    assert_eq!((proved.bytes.len(), proved.backend.as_str()), (192, "cpu"));
    assert!(proved.timings.total_ms > 0.0 && proved.timings.synth_ms > 0.0, "{:?}", proved.timings);
    let sector = winning_sector(&rand, sectors());
    assert!(filecoin_support::winning_verifies(&rand, sector, &proved.bytes), "filecoin-proofs refuses the proof");
}

/// A device whose proofs are well formed but wrong (C replaced by A).
struct Forging(CpuBackend);

impl Forging {
    fn forge(out: Result<ProveOutput, BackendError>) -> Result<ProveOutput, BackendError> {
        out.map(|mut out| {
            out.proofs = out.proofs.into_iter().map(|p| Proof { c: p.a, ..p }).collect();
            out
        })
    }
}

impl ProveBackend for Forging {
    fn name(&self) -> String {
        "forging".into()
    }
    fn prove(
        &self,
        p: &Arc<Parameters>,
        a: &[ProvingAssignment<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        Self::forge(self.0.prove(p, a, r))
    }
    fn prove_witnesses(
        &self,
        p: &Arc<Parameters>,
        shape: &Arc<RecordedShape<Scalar>>,
        w: &[Witness<Scalar>],
        r: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        Self::forge(self.0.prove_witnesses(p, shape, w, r))
    }
}

#[test]
fn a_proof_that_does_not_verify_is_an_error_and_never_returned() {
    let cache = cache();
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(Forging(CpuBackend::new()))];
    let engine = Engine::new(Config { backends: Some(backends), ..Config::default() }).unwrap();
    let (req, _) = request(22);
    let outcome = timed("a forged proof", || cuzk::filecoin::prove(&engine, cache, &req, default_priority(req.kind())));
    match outcome {
        Err(Error::Filecoin(FilecoinError::ProofInvalid { circuit, partition: 0 })) => {
            assert_eq!(circuit.to_string(), "winning-2k")
        }
        other => panic!("expected an invalid proof, got {:?}", other.map(|p| p.bytes.len())),
    }
}

#[test]
fn a_request_for_parameters_not_in_the_cache_names_the_file_before_any_work() {
    let empty = ParamCache::new(filecoin_support::scratch().join("empty-cache"));
    let engine = cpu_engine();
    let (req, _) = request(23);
    match cuzk::filecoin::prove(&engine, &empty, &req, default_priority(req.kind())) {
        Err(Error::Filecoin(FilecoinError::Io { path, source })) => {
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
            assert!(path.starts_with(empty.dir()) && path.to_string_lossy().ends_with(".params"), "{}", path.display());
        }
        other => panic!("expected the missing file, got {:?}", other.map(|p| p.bytes.len())),
    }
}
