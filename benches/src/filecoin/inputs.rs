//! What a run proves: a test-size sector sealed by filecoin-proofs (random
//! data or committed capacity, from a fixed seed), then its C1 output (PoRep)
//! or its WinningPoSt vanilla proof, exactly as Curio hands them to a prover.
//! Those bytes are cached in the work directory, so a rerun skips sealing (a
//! 512 MiB seal takes minutes); the request built from them is checked
//! (replica id, filecoin-proofs' vanilla verification) on every run.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_filecoin::porep::PoRepRequest;
use cuzk_filecoin::testdata::{winning_proof, SealedSector};
use cuzk_filecoin::winning_post::WinningPoStRequest;
use cuzk_filecoin::{CircuitId, FilecoinCircuit, FilecoinError, ProofKind, Request, SectorSize};
use ff::{Field, PrimeField};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::error::BenchError;

/// The miner every sector belongs to.
pub const MINER: u64 = 1000;
/// The sector number.
pub const SECTOR: u64 = 1;

/// The circuit measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A PoRep (seal commit phase 2) partition: the 512 MiB figure.
    PoRep,
    /// WinningPoSt: small, for quick end-to-end runs.
    Winning,
}

impl Kind {
    /// The proof kind.
    pub fn proof_kind(self) -> ProofKind {
        match self {
            Kind::PoRep => ProofKind::PoRepC2,
            Kind::Winning => ProofKind::WinningPoSt,
        }
    }
}

impl FromStr for Kind {
    type Err = BenchError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "porep" => Ok(Kind::PoRep),
            "winning" => Ok(Kind::Winning),
            _ => Err(BenchError::BadArgument { what: "kind", value: s.into(), expected: "porep or winning" }),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::PoRep => "porep",
            Kind::Winning => "winning",
        })
    }
}

/// What the sector holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Data {
    /// One piece of random bytes from the seed.
    Random,
    /// Committed capacity: all zeros.
    Cc,
}

impl FromStr for Data {
    type Err = BenchError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "random" => Ok(Data::Random),
            "cc" => Ok(Data::Cc),
            _ => Err(BenchError::BadArgument { what: "data", value: s.into(), expected: "random or cc" }),
        }
    }
}

impl fmt::Display for Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Data::Random => "random",
            Data::Cc => "cc",
        })
    }
}

/// A test sector size, written `2KiB`, `8MiB` or `512MiB` (or in any
/// spelling `SectorSize`'s `FromStr` reads: `2 KiB`, Curio's `2k`, the
/// bytes); production sizes cannot be sealed for a benchmark.
pub fn parse_sector_size(s: &str) -> Result<SectorSize, BenchError> {
    s.parse::<SectorSize>().ok().filter(|size| size.is_test_size()).ok_or_else(|| BenchError::BadArgument {
        what: "sector size",
        value: s.into(),
        expected: "2KiB, 8MiB or 512MiB (the sizes filecoin-proofs seals for tests)",
    })
}

/// The request of a run and how it was obtained.
pub struct Inputs {
    /// The request, checked.
    pub request: Request,
    /// The cached C1 JSON or vanilla proof.
    pub file: PathBuf,
    /// Sealing plus C1 or vanilla proving, when this run did it; `None` when cached.
    pub made_ms: Option<f64>,
}

/// The request for `kind` at `size`: from its cache file in `work_dir`, or
/// from a sector sealed there now (the sector's files are removed once the
/// cache file is written). `note` receives progress lines.
pub fn inputs(
    work_dir: &Path,
    kind: Kind,
    size: SectorSize,
    data: Data,
    seed: u64,
    note: &dyn Fn(&str),
) -> Result<Inputs, BenchError> {
    let extension = match kind {
        Kind::PoRep => "c1.json",
        Kind::Winning => "vanilla",
    };
    let file = work_dir.join(format!("{kind}-{}-{data}-seed{seed}.{extension}", size.short_name()));
    let (bytes, made_ms) = if file.exists() {
        note(&format!("using cached {}", file.display()));
        (fs::read(&file).map_err(io(&file))?, None)
    } else {
        note(&format!("sealing a {size} {data} sector in {} (cached afterwards)", work_dir.display()));
        let start = Instant::now();
        let bytes = seal_and_prove(work_dir, kind, size, data, seed)?;
        let made = start.elapsed().as_secs_f64() * 1e3;
        note(&format!("sealed and made the {kind} inputs in {:.1} s", made / 1e3));
        write_atomically(&file, &bytes)?;
        (bytes, Some(made))
    };
    let request = match kind {
        Kind::PoRep => Request::PoRepC2(Box::new(PoRepRequest::from_c1_json(&bytes, SECTOR, MINER)?)),
        Kind::Winning => Request::WinningPoSt(WinningPoStRequest {
            proof: winning_proof(size),
            randomness: winning_randomness(seed),
            miner_id: MINER,
            vanilla: vec![bytes],
        }),
    };
    request.check_vanilla()?;
    Ok(Inputs { request, file, made_ms })
}

/// The circuit id a request proves.
pub fn circuit_id(request: &Request) -> Result<CircuitId, BenchError> {
    Ok(request.circuit_id()?)
}

/// Partition 0 of `request`, freshly built (a circuit is consumed by
/// synthesis), with the verifier's public inputs of that partition.
pub fn partition(request: &Request) -> Result<(FilecoinCircuit, Vec<Scalar>), BenchError> {
    let parts = request.prepare()?;
    match (parts.circuits.into_iter().next(), parts.public_inputs.into_iter().next()) {
        (Some(circuit), Some(inputs)) => Ok((circuit, inputs)),
        _ => Err(FilecoinError::Input { field: "partitions".into(), reason: "the request has none".into() }.into()),
    }
}

/// The WinningPoSt randomness of `seed`: a field element, as the chain's is after hashing.
pub fn winning_randomness(seed: u64) -> [u8; 32] {
    Scalar::random(ChaCha20Rng::seed_from_u64(seed ^ 0x7a11)).to_repr()
}

/// Seals in a scratch directory under `work_dir` and returns the cache file's bytes.
fn seal_and_prove(work_dir: &Path, kind: Kind, size: SectorSize, data: Data, seed: u64) -> Result<Vec<u8>, BenchError> {
    let scratch = work_dir.join("sealing");
    if scratch.exists() {
        fs::remove_dir_all(&scratch).map_err(io(&scratch))?;
    }
    fs::create_dir_all(&scratch).map_err(io(&scratch))?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sector = match data {
        Data::Random => SealedSector::seal(&scratch, size, MINER, SECTOR, &mut rng)?,
        Data::Cc => SealedSector::seal_cc(&scratch, size, MINER, SECTOR, &mut rng)?,
    };
    let bytes = match kind {
        Kind::PoRep => {
            let mut interactive = [0u8; 32];
            rng.fill_bytes(&mut interactive);
            sector.c1_json(interactive)?
        }
        Kind::Winning => {
            let proofs = SealedSector::post_vanilla(winning_proof(size), &winning_randomness(seed), &[&sector])?;
            proofs.into_iter().next().ok_or_else(|| FilecoinError::Input {
                field: "vanilla".into(),
                reason: "filecoin-proofs returned no vanilla proof".into(),
            })?
        }
    };
    drop(sector);
    fs::remove_dir_all(&scratch).map_err(io(&scratch))?;
    Ok(bytes)
}

/// Writes through a temporary name, so an interrupted run leaves no half file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), BenchError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let partial = path.with_extension("partial");
    fs::write(&partial, bytes).map_err(io(&partial))?;
    fs::rename(&partial, path).map_err(io(path))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io { path: path.to_path_buf(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse() {
        assert_eq!(parse_sector_size("2KiB").unwrap(), SectorSize::Kib2);
        assert_eq!(parse_sector_size("8MiB").unwrap(), SectorSize::Mib8);
        assert_eq!(parse_sector_size("512 MiB").unwrap(), SectorSize::Mib512);
        assert_eq!(parse_sector_size("512m").unwrap(), SectorSize::Mib512);
        for bad in ["32GiB", "64g", "1KiB", "", "2KB"] {
            let err = parse_sector_size(bad);
            assert!(matches!(err, Err(BenchError::BadArgument { what: "sector size", .. })), "{bad}");
        }
        for kind in [Kind::PoRep, Kind::Winning] {
            assert_eq!(kind.to_string().parse::<Kind>().unwrap(), kind);
        }
        for data in [Data::Random, Data::Cc] {
            assert_eq!(data.to_string().parse::<Data>().unwrap(), data);
        }
        assert!("window".parse::<Kind>().is_err());
        assert!("zeros".parse::<Data>().is_err());
    }

    #[test]
    fn randomness_is_a_field_element_fixed_by_the_seed() {
        let r = winning_randomness(3);
        assert!(Option::<Scalar>::from(Scalar::from_repr(r)).is_some());
        assert_eq!(r, winning_randomness(3));
        assert_ne!(r, winning_randomness(4));
    }
}
