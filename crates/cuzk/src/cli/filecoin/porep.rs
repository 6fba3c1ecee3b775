//! PoRep C2's inputs on the command line: the C1 output in either form Curio
//! has it (its `c1.json` wrapper, or filecoin-ffi's raw C1 JSON with the
//! sector number beside it) and the miner id, which together must give the
//! C1's replica id before anything is proved.

use std::path::{Path, PathBuf};

use clap::Args;
use cuzk::filecoin::porep::PoRepRequest;
use cuzk::filecoin::{FilecoinError, Request};
use cuzk::Error;

use super::vanilla::Source;
use crate::cli::limits;

/// Largest C1 file read. A 32 GiB or 64 GiB sector's C1 JSON is tens of MB
/// (10 partitions of 18 challenges, each with its Merkle paths and labeling
/// proofs) and Curio's wrapper adds a third for base64; 1 GiB leaves an
/// order of magnitude of headroom while a wrong file (a sealed sector, a
/// parameter file) is refused before it is read.
const MAX_C1_FILE: u64 = 1 << 30;

/// The C1 output and whose sector it is.
#[derive(Args)]
pub struct PoRepArgs {
    #[command(flatten)]
    c1: C1Args,
    /// The sector number (with --c1-json; Curio's c1.json carries its own).
    #[arg(long, value_name = "N", conflicts_with = "c1")]
    sector_number: Option<u64>,
    /// The miner's actor id (1000 for f01000). With the sector number it
    /// must give the C1's replica id, or the proof would never verify.
    #[arg(long, value_name = "N")]
    miner_id: u64,
}

/// The C1 output, in one of the two forms.
#[derive(Args)]
#[group(required = true, multiple = false)]
struct C1Args {
    /// Curio's c1.json: {"SectorNum", "Phase1Out" (base64 of the C1 JSON),
    /// "SectorSize"}.
    #[arg(long, value_name = "FILE")]
    c1: Option<PathBuf>,
    /// The C1 output as filecoin-ffi returns it (SealCommitPhase1Output
    /// JSON); needs --sector-number.
    #[arg(long, value_name = "FILE", requires = "sector_number")]
    c1_json: Option<PathBuf>,
}

impl PoRepArgs {
    /// The request and the file it was read from.
    pub(super) fn request(&self) -> Result<(Request, Source), Error> {
        let (path, request) = match (&self.c1.c1, &self.c1.c1_json) {
            (Some(path), _) => {
                let bytes = limits::read_file(path, MAX_C1_FILE)?;
                (path, PoRepRequest::from_curio_wrapper(&bytes, self.miner_id))
            }
            (None, Some(path)) => {
                let bytes = limits::read_file(path, MAX_C1_FILE)?;
                // clap has required it with --c1-json already.
                let number = self.sector_number.ok_or_else(|| Error::Usage("--c1-json needs --sector-number".into()))?;
                (path, PoRepRequest::from_c1_json(&bytes, number, self.miner_id))
            }
            (None, None) => return Err(Error::Usage("give --c1 or --c1-json".into())),
        };
        let request = request.map_err(|e| in_file(path, e))?;
        Ok((request.into(), Source::C1(path.clone())))
    }
}

/// An input error of the C1 names the file it is in; other errors (a replica
/// id of another miner, an unsupported proof) say what they are already.
fn in_file(path: &Path, err: FilecoinError) -> Error {
    match err {
        e @ FilecoinError::Input { .. } => Error::Inputs { path: path.to_path_buf(), message: e.to_string() },
        e => e.into(),
    }
}
