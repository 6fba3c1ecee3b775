//! `cuzk filecoin verify <kind>`: a proof file against the request's
//! inputs, with the verifying key in the parameter cache, by cuzk's verifier
//! or by filecoin-proofs' own (`verify_seal`, `verify_winning_post`, …),
//! which is what a chain node or Curio would run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use cuzk::filecoin::{reference, FilecoinError, Request};
use cuzk::Error;

use super::request::{Input, Kind};
use crate::cli::limits;

/// Largest proof file read: far more partitions than any Filecoin proof
/// has (a 32 GiB SnapDeals proof has 16, 3,072 bytes).
const MAX_PROOF_FILE: u64 = 1 << 20;

/// What `verify` adds to a kind's inputs.
#[derive(Args)]
pub struct VerifyArgs {
    /// The proof: 192 bytes per partition, concatenated in partition order.
    #[arg(long, value_name = "FILE")]
    proof: PathBuf,
    /// Whose verifier decides.
    #[arg(long, value_enum, default_value_t = Verifier::Cuzk)]
    verifier: Verifier,
}

/// The verifiers `verify` can run.
#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
enum Verifier {
    /// cuzk's own (the check every `prove` runs before it answers).
    Cuzk,
    /// filecoin-proofs 19.1's, reading the `.vk` from `--params-dir`.
    FilecoinProofs,
}

/// Exit code 0 when the proof verifies; an invalid proof says why on
/// stdout and exits 1, as does any error.
pub fn run(kind: &Kind<VerifyArgs>) -> Result<ExitCode, Error> {
    let input = kind.input()?;
    let circuit = input.request.circuit_id()?;
    let a = input.extra;
    let bytes = limits::read_file(&a.proof, MAX_PROOF_FILE)?;
    // Ok(Some(why)): the proof is invalid; Err: the inputs are.
    let verdict = match a.verifier {
        Verifier::Cuzk => match input.request.verify(&input.cache, &bytes) {
            Ok(()) => Ok(None),
            Err(e @ (FilecoinError::ProofInvalid { .. } | FilecoinError::ProofBytes { .. })) => Ok(Some(e.to_string())),
            Err(e) => Err(e),
        },
        // filecoin-proofs answers bytes it cannot decode with an error, not
        // `false`; its key was checked first, so that error is the proof's.
        Verifier::FilecoinProofs => match filecoin_proofs_verdict(&input, &bytes) {
            Ok(valid) => Ok((!valid).then(|| "filecoin-proofs' verifier refused it".to_string())),
            Err(FilecoinError::Filecoin { message, .. }) => Ok(Some(format!("filecoin-proofs: {message}"))),
            Err(e) => Err(e),
        },
    };
    match verdict.map_err(|e| input.explain(e.into()))? {
        None => {
            println!("{circuit}: valid ({})", a.proof.display());
            Ok(ExitCode::SUCCESS)
        }
        Some(why) => {
            println!("{circuit}: INVALID ({}): {why}", a.proof.display());
            Ok(ExitCode::FAILURE)
        }
    }
}

/// filecoin-proofs' verdict. It finds the verifying key through
/// `FIL_PROOFS_PARAMETER_CACHE`, read once on its first use: this process
/// points it at `--params-dir` first (a value the user set must agree).
fn filecoin_proofs_verdict(input: &Input<'_, VerifyArgs>, bytes: &[u8]) -> Result<bool, FilecoinError> {
    const VAR: &str = "FIL_PROOFS_PARAMETER_CACHE";
    let dir = input.cache.dir();
    match std::env::var_os(VAR) {
        Some(set) if !same_dir(std::path::Path::new(&set), dir) => {
            let reason = format!("{VAR}={} names another cache than --params-dir {}", set.to_string_lossy(), dir.display());
            return Err(FilecoinError::Input { field: "--params-dir".into(), reason });
        }
        Some(_) => {}
        // Single-threaded here: nothing else reads the environment yet.
        None => std::env::set_var(VAR, dir),
    }
    let vk = input.cache.files(input.request.circuit_id()?)?.vk;
    if !vk.is_file() {
        let reason = format!("no verifying key {}", vk.display());
        return Err(FilecoinError::Input { field: "--params-dir".into(), reason });
    }
    match &input.request {
        Request::PoRepC2(r) => reference::porep(r, bytes),
        Request::SnapDeals(r) => reference::snap(r, bytes),
        Request::WindowPoSt(r) => reference::window_post(r, bytes),
        Request::WinningPoSt(r) => reference::winning_post(r, bytes),
    }
}

/// Whether two paths name one directory (compared resolved when both resolve).
fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
