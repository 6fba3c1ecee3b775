//! `cuzk filecoin`: Filecoin's proof kinds from the files Curio's inputs come
//! in (`prove`, `verify`), the parameter cache (`params`), and real inputs
//! at the test sizes made by filecoin-proofs (`test-data`). Compiled only
//! with the `filecoin` feature.
//!
//! Each kind is a subcommand of `prove` and `verify` with its own inputs
//! ([`request::Kind`]); a new kind is one variant there, its arguments and
//! the request they build.

mod cid;
mod gpu_params;
mod params;
mod porep;
mod prove;
mod repeat;
mod request;
mod snap;
mod test_data;
mod vanilla;
mod verify;

use std::process::ExitCode;

use clap::Subcommand;
use cuzk::Error;

/// The subcommands of `cuzk filecoin`.
#[derive(Subcommand)]
pub enum FilecoinCommand {
    /// Prove a Filecoin request on the engine; the proof is verified before
    /// it is printed or written.
    Prove {
        #[command(subcommand)]
        kind: request::Kind<prove::ProveArgs>,
    },
    /// Verify a Filecoin proof against its request's inputs: exit code 0
    /// only when it is valid.
    Verify {
        #[command(subcommand)]
        kind: request::Kind<verify::VerifyArgs>,
    },
    /// List a Filecoin parameter cache's files, or write random test parameters into it.
    Params(params::ParamsArgs),
    /// Seal a test sector (2KiB, 8MiB or 512MiB) with filecoin-proofs and
    /// write the inputs of every kind, as Curio would send them, with a
    /// manifest of the commands that prove them.
    TestData(test_data::TestDataArgs),
}

/// Runs `cuzk filecoin ...`.
pub fn run(command: &FilecoinCommand) -> Result<ExitCode, Error> {
    match command {
        FilecoinCommand::Prove { kind } => prove::run(kind),
        FilecoinCommand::Verify { kind } => verify::run(kind),
        FilecoinCommand::Params(args) => params::run(args),
        FilecoinCommand::TestData(args) => test_data::run(args),
    }
}
