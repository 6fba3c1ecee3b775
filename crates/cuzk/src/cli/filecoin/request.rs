//! The inputs of each Filecoin kind on the command line, shared by `prove`
//! and `verify`, and the request they make: the parameter cache, the
//! registered proof, randomness, miner. The vanilla proofs are read in
//! [`super::vanilla`], PoRep's C1 files in [`super::porep`], SnapDeals'
//! commitments in [`super::snap`].

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use cuzk::filecoin::post::{proof_from_abi, RegisteredPoStProof};
use cuzk::filecoin::window_post::WindowPoStRequest;
use cuzk::filecoin::winning_post::WinningPoStRequest;
use cuzk::filecoin::{FilecoinError, ParamCache, Request};
use cuzk::Error;

use super::porep::PoRepArgs;
use super::snap::SnapArgs;
use super::vanilla::{Source, VanillaArgs};

/// A Filecoin kind and its inputs; `X` is what the command adds (`prove`:
/// output and engine flags; `verify`: the proof file).
#[derive(Subcommand)]
pub enum Kind<X: Args> {
    /// WinningPoSt: the challenged sector's vanilla proof (66 inclusion proofs).
    WinningPost(PoSt<X>),
    /// WindowPoSt: the vanilla proofs of one partition's sectors, in order.
    WindowPost(WindowPoSt<X>),
    /// PoRep C2 (seal commit phase 2): a sector's commit proof from its C1
    /// output (Curio's c1.json, or the raw C1 JSON with the sector number).
    Porep(PoRep<X>),
    /// SnapDeals (prove replica update 2): the update's vanilla partition
    /// proofs and its three commitments.
    Snap(Snap<X>),
}

/// The inputs of a WinningPoSt.
#[derive(Args)]
pub struct PoSt<X: Args> {
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    post: PoStArgs,
    #[command(flatten)]
    extra: X,
}

/// The inputs of a WindowPoSt partition.
#[derive(Args)]
pub struct WindowPoSt<X: Args> {
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    post: PoStArgs,
    /// The partition's index in the deadline.
    #[arg(long, value_name = "N")]
    partition_index: usize,
    #[command(flatten)]
    extra: X,
}

/// The inputs of a PoRep C2.
#[derive(Args)]
pub struct PoRep<X: Args> {
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    porep: PoRepArgs,
    #[command(flatten)]
    extra: X,
}

/// The inputs of a SnapDeals proof.
#[derive(Args)]
pub struct Snap<X: Args> {
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    snap: SnapArgs,
    #[command(flatten)]
    extra: X,
}

/// Where the parameters are.
#[derive(Args)]
struct CacheArgs {
    /// The Filecoin parameter cache directory (`v28-*.params`, `.vk`, `.meta`;
    /// Filecoin's default is /var/tmp/filecoin-proof-parameters).
    #[arg(long, value_name = "DIR")]
    params_dir: PathBuf,
}

/// What both PoSt kinds take.
#[derive(Args)]
struct PoStArgs {
    /// The registered proof as Go's abi.RegisteredPoStProof numbers it
    /// (0-4 WinningPoSt 2 KiB..64 GiB, 5-9 WindowPoSt V1, 10-14 WindowPoSt V1_1).
    #[arg(long, value_name = "N", value_parser = registered_post_proof)]
    registered_proof: RegisteredPoStProof,
    /// The challenge randomness: 64 hex characters (32 bytes).
    #[arg(long, value_name = "HEX", value_parser = randomness)]
    randomness: [u8; 32],
    /// The miner's actor id.
    #[arg(long, value_name = "N")]
    miner_id: u64,
    #[command(flatten)]
    vanilla: VanillaArgs,
}

/// A request read from the command line.
pub struct Input<'a, X> {
    /// The request.
    pub request: Request,
    /// The parameter cache.
    pub cache: ParamCache,
    /// Where the vanilla proofs came from.
    source: Source,
    /// What the command adds.
    pub extra: &'a X,
}

impl<X> Input<'_, X> {
    /// The files the request was read from (an output must not replace one).
    pub fn files(&self) -> Vec<&Path> {
        match &self.source {
            Source::Json(f) => vec![f.as_path()],
            Source::Bin(files) => files.iter().map(PathBuf::as_path).collect(),
            Source::C1(f) => vec![f.as_path()],
        }
    }

    /// Says which file a vanilla proof the request refused came from: the
    /// request names it `vanilla_proofs[i]`, the user gave files.
    pub fn explain(&self, err: Error) -> Error {
        let Error::Filecoin(FilecoinError::Input { field, reason }) = err else { return err };
        let index = field.strip_prefix("vanilla_proofs[").and_then(|r| r.strip_suffix(']'));
        let index = index.and_then(|i| i.parse().ok());
        let source = index.and_then(|i: usize| match &self.source {
            Source::Json(f) => Some(format!("entry {i} of {}", f.display())),
            Source::Bin(files) => files.get(i).map(|f| f.display().to_string()),
            Source::C1(_) => None,
        });
        let field = match source {
            Some(source) => format!("{field} ({source})"),
            None => field,
        };
        Error::Filecoin(FilecoinError::Input { field, reason })
    }
}

impl<X: Args> Kind<X> {
    /// Reads the request's files and builds it.
    pub fn input(&self) -> Result<Input<'_, X>, Error> {
        match self {
            Kind::WinningPost(a) => {
                let cache = a.cache.open()?;
                let (vanilla, source) = a.post.vanilla.read()?;
                let p = &a.post;
                let request = WinningPoStRequest {
                    proof: p.registered_proof,
                    randomness: p.randomness,
                    miner_id: p.miner_id,
                    vanilla,
                };
                Ok(Input { request: request.into(), cache, source, extra: &a.extra })
            }
            Kind::WindowPost(a) => {
                let cache = a.cache.open()?;
                let (vanilla, source) = a.post.vanilla.read()?;
                let p = &a.post;
                let request = WindowPoStRequest {
                    proof: p.registered_proof,
                    randomness: p.randomness,
                    miner_id: p.miner_id,
                    partition_index: a.partition_index,
                    vanilla,
                };
                Ok(Input { request: request.into(), cache, source, extra: &a.extra })
            }
            Kind::Porep(a) => {
                let cache = a.cache.open()?;
                let (request, source) = a.porep.request()?;
                Ok(Input { request, cache, source, extra: &a.extra })
            }
            Kind::Snap(a) => {
                let cache = a.cache.open()?;
                let (request, source) = a.snap.request()?;
                Ok(Input { request, cache, source, extra: &a.extra })
            }
        }
    }
}

impl CacheArgs {
    /// The cache, once its directory is known to be one.
    fn open(&self) -> Result<ParamCache, Error> {
        let dir = &self.params_dir;
        let meta = std::fs::metadata(dir).map_err(|e| Error::Usage(format!("--params-dir {}: {e}", dir.display())))?;
        if !meta.is_dir() {
            return Err(Error::Usage(format!("--params-dir {}: not a directory", dir.display())));
        }
        Ok(ParamCache::new(dir))
    }
}

/// `--registered-proof`: a PoSt proof number.
fn registered_post_proof(s: &str) -> Result<RegisteredPoStProof, String> {
    let n: i64 = s.parse().map_err(|e| format!("not a number: {e}"))?;
    proof_from_abi(n).map_err(|e| e.to_string())
}

/// `--randomness`: 32 bytes in hex.
fn randomness(s: &str) -> Result<[u8; 32], String> {
    let bytes = hex::decode(s.trim()).map_err(|e| format!("not hex: {e}"))?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| format!("{} bytes, expected 32 (64 hex characters)", bytes.len()))
}
