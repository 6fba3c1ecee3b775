//! One workload instance and the parameters both provers use for it, shared
//! by the tests, the criterion benches and the comparison binary, so that every
//! figure is taken on the circuit the tests prove identical in both libraries.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use blstrs::{Bls12, Scalar};
use cuzk_groth16::{
    generate_random_parameters, prepare_verifying_key, Parameters, PointChecks,
    PreparedVerifyingKey, Proof,
};
use cuzk_synth::workloads::Workload;
use cuzk_synth::WorkloadCircuit;
use rand::RngCore;

use crate::error::BenchError;
use crate::peer::PeerCircuit;

/// bellperson's in-memory parameters.
pub type BellParams = bellperson::groth16::Parameters<Bls12>;
/// bellperson's proof.
pub type BellProof = bellperson::groth16::Proof<Bls12>;
/// bellperson's prepared verifying key.
pub type BellPvk = bellperson::groth16::PreparedVerifyingKey<Bls12>;

/// A workload at one size with its witness drawn from a seed.
///
/// For mul-chain the seed also draws the constant `c`, a coefficient of the
/// circuit, so parameters belong to a (workload, size, seed) triple.
#[derive(Clone, Debug)]
pub struct Fixture {
    workload: Workload,
    size: usize,
    seed: u64,
    circuit: WorkloadCircuit<Scalar>,
    inputs: Vec<Scalar>,
}

impl Fixture {
    /// The workload's circuit at `size` with the witness of `seed`.
    pub fn new(workload: Workload, size: usize, seed: u64) -> Result<Self, BenchError> {
        let circuit = workload.circuit(size, seed)?;
        let inputs = circuit.public_inputs();
        Ok(Fixture {
            workload,
            size,
            seed,
            circuit,
            inputs,
        })
    }

    /// The workload.
    pub fn workload(&self) -> Workload {
        self.workload
    }

    /// The workload's size parameter (compressions or steps).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The seed of the witness.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Constraints of the circuit itself (DESIGN §7's count: without the
    /// prover's one extra constraint per public input).
    pub fn constraints(&self) -> usize {
        self.workload.expected_constraints(self.size)
    }

    /// The circuit for cuzk.
    pub fn ours(&self) -> WorkloadCircuit<Scalar> {
        self.circuit.clone()
    }

    /// The same circuit for bellperson.
    pub fn peer(&self) -> PeerCircuit {
        PeerCircuit(self.circuit.clone())
    }

    /// The public inputs after the constant one, computed natively (not by synthesis).
    pub fn public_inputs(&self) -> &[Scalar] {
        &self.inputs
    }
}

/// One parameter set as each library holds it, with its verifying keys.
pub struct ProvingPair {
    /// cuzk's parameters.
    pub cuzk: Parameters,
    /// The same parameters read by bellperson.
    pub bellperson: BellParams,
    /// cuzk's prepared verifying key.
    pub pvk: PreparedVerifyingKey,
    /// bellperson's prepared verifying key.
    pub bellperson_pvk: BellPvk,
}

impl ProvingPair {
    /// Fresh parameters in memory; bellperson reads cuzk's serialisation, as it
    /// would read the file.
    pub fn generate<R: RngCore>(fixture: &Fixture, rng: &mut R) -> Result<Self, BenchError> {
        let cuzk = generate_random_parameters(fixture.ours(), rng, None)?;
        let mut bytes = Vec::new();
        cuzk.write(&mut bytes)?;
        let bellperson = BellParams::read(&bytes[..], false).map_err(|source| BenchError::Io {
            path: PathBuf::from("<in-memory parameters>"),
            source,
        })?;
        Self::from_params(cuzk, bellperson)
    }

    /// Both libraries' parameters, read from one file (see [`load_cuzk`] and
    /// [`load_bellperson`]), with their verifying keys prepared.
    pub fn from_params(cuzk: Parameters, bellperson: BellParams) -> Result<Self, BenchError> {
        let pvk = prepare_verifying_key(&cuzk.vk)?;
        let bellperson_pvk = bellperson::groth16::prepare_verifying_key(&bellperson.vk);
        Ok(ProvingPair {
            cuzk,
            bellperson,
            pvk,
            bellperson_pvk,
        })
    }
}

/// cuzk's parallel reader; the points come from our own setup, so no subgroup checks.
pub fn load_cuzk(path: &Path) -> Result<Parameters, BenchError> {
    Ok(Parameters::read(path, PointChecks::None)?)
}

/// bellperson's reader (`Parameters::read`, unchecked like ours).
pub fn load_bellperson(path: &Path) -> Result<BellParams, BenchError> {
    let io = |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    BellParams::read(BufReader::with_capacity(1 << 20, file), false).map_err(io)
}

/// Where the parameters of `fixture` are cached under `dir`.
pub fn params_path(dir: &Path, fixture: &Fixture) -> PathBuf {
    dir.join(format!(
        "{}-{}-seed{}.params",
        fixture.workload(),
        fixture.size(),
        fixture.seed()
    ))
}

/// Runs cuzk's setup for `fixture` and writes the file at `path`, through a
/// temporary name so that an interrupted run never leaves a truncated cache.
pub fn make_params_file<R: RngCore>(
    fixture: &Fixture,
    path: &Path,
    rng: &mut R,
) -> Result<(), BenchError> {
    let params = generate_random_parameters(fixture.ours(), rng, None)?;
    let io = |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io)?;
    }
    let partial = path.with_extension("params.partial");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&partial).map_err(io)?);
    params.write(&mut out)?;
    out.flush().map_err(io)?;
    drop(out);
    fs::rename(&partial, path).map_err(io)
}

/// A bellperson proof as ours (the 192-byte encodings are the same).
pub fn proof_from_bellperson(proof: &BellProof) -> Result<Proof, BenchError> {
    let mut bytes = Vec::with_capacity(192);
    proof.write(&mut bytes).map_err(|source| BenchError::Io {
        path: PathBuf::from("<proof>"),
        source,
    })?;
    Ok(Proof::from_bytes(&bytes)?)
}
