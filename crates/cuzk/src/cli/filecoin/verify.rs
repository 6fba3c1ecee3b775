//! `cuzk filecoin verify <kind>`: a proof file against the request's
//! inputs, with the verifying key in the parameter cache.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use cuzk::filecoin::FilecoinError;
use cuzk::Error;

use super::request::Kind;
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
}

/// Exit code 0 when the proof verifies; an invalid proof says why on
/// stdout and exits 1, as does any error.
pub fn run(kind: &Kind<VerifyArgs>) -> Result<ExitCode, Error> {
    let input = kind.input()?;
    let circuit = input.request.circuit_id()?;
    let bytes = limits::read_file(&input.extra.proof, MAX_PROOF_FILE)?;
    match input.request.verify(&input.cache, &bytes) {
        Ok(()) => {
            println!("{circuit}: valid ({})", input.extra.proof.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ (FilecoinError::ProofInvalid { .. } | FilecoinError::ProofBytes { .. })) => {
            println!("{circuit}: INVALID ({}): {e}", input.extra.proof.display());
            Ok(ExitCode::FAILURE)
        }
        Err(e) => Err(input.explain(e.into())),
    }
}
