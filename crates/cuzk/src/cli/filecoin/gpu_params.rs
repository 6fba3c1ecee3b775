//! `cuzk filecoin params --write-test-params ID --gpu`: random test
//! parameters generated on cuda:0 from the circuit's recorded shape, minutes
//! where the CPU setup takes hours (a 32 GiB PoRep partition is 130 M
//! constraints: ~450 M G1 and ~60 M G2 fixed-base multiplications).
//!
//! A shape is recorded from a circuit with values, so the circuit is a
//! partition of a synthetic input (cuzk-filecoin's `synthetic`: a PoRep C1,
//! PoSt vanilla proofs, a SnapDeals update): every partition of a kind and
//! size has the same shape, which is what the parameters fix. The recording
//! is saved where the proving commands look for it (their --recordings
//! default, or as asked; named after the parameters and their verifying
//! key), so the first proof after this command does not record it again.

use std::path::{Path, PathBuf};
use std::time::Instant;

use cuzk::filecoin::porep::PoRepRequest;
use cuzk::filecoin::snap::SnapRequest;
use cuzk::filecoin::window_post::WindowPoStRequest;
use cuzk::filecoin::winning_post::WinningPoStRequest;
use cuzk::filecoin::{synthetic, testdata, CircuitId, FilecoinCircuit, ParamCache, ParamFiles, ProofKind};
use cuzk::groth16::setup::{SetupProgress, ToxicWaste};
use cuzk::synth::RecordedShape;
use cuzk::Error;

/// The synthetic sector's miner and number: any, the shape does not depend on them.
const MINER: u64 = 1000;
const SECTOR: u64 = 1;

/// Records `id`'s circuit, generates its parameters on cuda:0, writes them
/// into `cache` and the recording into `recordings(params file)` (none:
/// not kept).
pub fn write(
    cache: &ParamCache,
    id: CircuitId,
    recordings: &dyn Fn(&Path) -> Option<PathBuf>,
    progress: SetupProgress<'_>,
) -> Result<ParamFiles, Error> {
    let started = Instant::now();
    let circuit = synthetic_partition(id)?;
    eprintln!("params: a synthetic {id} partition in {:.1} s", secs(started));

    let started = Instant::now();
    // The setup needs the matrices only; the engine checks every row
    // against the first proof's witness.
    let shape = RecordedShape::record_shape(circuit)?;
    eprintln!(
        "params: recorded {} constraints, {} inputs, {} private variables, {} nonzeros in {:.1} s",
        shape.num_constraints(),
        shape.num_inputs(),
        shape.num_aux(),
        shape.nnz(),
        secs(started)
    );

    let started = Instant::now();
    let device = cuzk_gpu::Device::open(0).map_err(cuzk_gpu::setup::SetupError::from)?;
    let toxic = ToxicWaste::random(&mut rand::thread_rng());
    let params = cuzk_gpu::setup::generate_parameters_from_shape(&device, &shape, &toxic, progress)?;
    eprintln!("params: generated on cuda:0 in {:.1} s", secs(started));

    let started = Instant::now();
    let files = cache.write_params(id, &params)?;
    eprintln!("params: written in {:.1} s", secs(started));
    let recording = recordings(&files.params).and_then(|dir| cuzk_pipeline::recording_file(&dir, &files.params, &params));
    if let Some(path) = recording {
        // The parameters are complete without it: a recording that cannot
        // be saved (a 32 GiB WindowPoSt's is 9 GB beside its 61 GB file)
        // costs the first proof a recording, not the command its result.
        let started = Instant::now();
        let dir = path.parent().unwrap_or(Path::new("."));
        let saved = std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))
            .and_then(|()| shape.save(&path).map_err(|e| e.to_string()));
        match saved {
            Ok(()) => eprintln!("params: recording {} saved in {:.1} s", path.display(), secs(started)),
            Err(e) => eprintln!("params: warning: {e}; the parameters are complete, and the first proof records the circuit itself"),
        }
    }
    Ok(files)
}

/// The first partition of a synthetic input of `id`'s kind and size.
fn synthetic_partition(id: CircuitId) -> Result<FilecoinCircuit, Error> {
    let size = id.sector_size;
    let randomness = [3; 32];
    let partitions = match id.kind {
        ProofKind::PoRepC2 => {
            let c1 = synthetic::porep_c1(size, MINER, SECTOR, [1; 32], [2; 32])?;
            PoRepRequest::new(c1, SECTOR, MINER)?.prepare()?
        }
        ProofKind::WindowPoSt => {
            let proof = testdata::window_proof(size);
            let sectors: Vec<u64> = (SECTOR..).take(proof.sector_count()).collect();
            let vanilla = synthetic::post_vanilla(proof, MINER, randomness, &sectors)?;
            WindowPoStRequest { proof, randomness, miner_id: MINER, partition_index: 0, vanilla }.prepare()?
        }
        ProofKind::WinningPoSt => {
            let proof = testdata::winning_proof(size);
            let vanilla = synthetic::post_vanilla(proof, MINER, randomness, &[SECTOR])?;
            WinningPoStRequest { proof, randomness, miner_id: MINER, vanilla }.prepare()?
        }
        ProofKind::SnapDeals => {
            let u = synthetic::snap_update(size)?;
            SnapRequest::new(u.proof, u.vanilla, &u.comm_r_old, &u.comm_r_new, &u.comm_d_new)?.prepare()?
        }
    };
    partitions.circuits.into_iter().next().ok_or_else(|| Error::Usage(format!("{id}: the synthetic input has no partition")))
}

fn secs(started: Instant) -> f64 {
    started.elapsed().as_secs_f64()
}
