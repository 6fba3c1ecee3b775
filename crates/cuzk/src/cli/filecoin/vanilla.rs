//! The vanilla proofs on the command line, in either of the forms Curio
//! keeps them (a JSON array of base64 strings, or one raw bincode file per
//! sector or partition), and the files a request was read from: shared by
//! the kinds' arguments (request.rs, porep.rs, snap.rs), which therefore do
//! not import each other.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use clap::Args;
use cuzk::Error;

use crate::cli::limits;

/// Largest `--vanilla` JSON file read: Curio's `[][]byte` of a full 32 GiB
/// WindowPoSt partition (2,349 sector proofs of ~25 KB, base64) is ~80 MB.
const MAX_VANILLA_JSON: u64 = 1 << 30;

/// Largest `--vanilla-bin` file read: one sector proof (a 64 GiB WinningPoSt
/// proof, 66 inclusion proofs, is a few hundred KB).
const MAX_VANILLA_BIN: u64 = 64 << 20;

/// The vanilla proofs, in one of the two forms.
#[derive(Args)]
#[group(required = true, multiple = false)]
pub(super) struct VanillaArgs {
    /// The vanilla proofs as Curio stores them: a JSON array of standard
    /// base64 strings, one bincode proof each (a sector's for PoSt, a
    /// partition's for SnapDeals).
    #[arg(long, value_name = "FILE")]
    vanilla: Option<PathBuf>,
    /// One vanilla proof, raw bincode (repeat, in order: the partition's
    /// sectors for PoSt, the update's partitions for SnapDeals).
    #[arg(long, value_name = "FILE")]
    vanilla_bin: Vec<PathBuf>,
}

/// The files a request was read from.
pub(super) enum Source {
    /// `--vanilla`: one JSON array.
    Json(PathBuf),
    /// `--vanilla-bin`, in order.
    Bin(Vec<PathBuf>),
    /// `--c1` or `--c1-json`: a C1 output.
    C1(PathBuf),
}

impl VanillaArgs {
    /// The vanilla proofs and the files they came from.
    pub(super) fn read(&self) -> Result<(Vec<Vec<u8>>, Source), Error> {
        match &self.vanilla {
            Some(json) => Ok((vanilla_json(json)?, Source::Json(json.clone()))),
            None => {
                let read = |f: &PathBuf| limits::read_file(f, MAX_VANILLA_BIN);
                let proofs = self.vanilla_bin.iter().map(read).collect::<Result<_, _>>()?;
                Ok((proofs, Source::Bin(self.vanilla_bin.clone())))
            }
        }
    }
}

/// Curio's `[][]byte` JSON: an array of standard base64 strings.
fn vanilla_json(path: &Path) -> Result<Vec<Vec<u8>>, Error> {
    let bad = |message: String| Error::Inputs { path: path.to_path_buf(), message };
    let text = limits::read_file(path, MAX_VANILLA_JSON)?;
    let entries: Vec<String> = serde_json::from_slice(&text)
        .map_err(|e| bad(format!("not a JSON array of base64 strings (Curio's vanilla proofs): {e}")))?;
    if entries.is_empty() {
        return Err(bad("holds no vanilla proof".into()));
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, s)| {
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| bad(format!("entry {i}: not standard base64: {e}")))
        })
        .collect()
}
