//! `cuzk filecoin test-data`: real inputs of every kind at a test sector
//! size, made by filecoin-proofs itself as a provider's pipeline makes them
//! (cuzk-filecoin's `testdata`), written in the forms Curio sends them, with
//! a manifest of the commands that prove them; with `--synthetic-porep`, the
//! sector is sealed with Synthetic PoRep (FIP-0059) as Curio seals it under
//! `UseSyntheticPoRep`. Or, with `--synthetic` (cuzk-made sectors, nothing to
//! do with Synthetic PoRep), every kind's inputs at any size (32 and 64 GiB
//! included) made without sealing (cuzk-filecoin's `synthetic`).
//!
//! filecoin-proofs reads its settings from the environment once, on first
//! use: before the first call this command points its parent cache at the
//! run's work directory (removed at the end) unless the user chose one, so
//! a test run writes nothing under /var/tmp.

mod manifest;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use base64::Engine as _;
use blstrs::Scalar;
use clap::Args;
use cuzk::filecoin::synthetic;
use cuzk::filecoin::testdata::{self, curio_c1_wrapper, SealedSector};
use cuzk::filecoin::{FilecoinError, SectorSize};
use cuzk::Error;
use ff::{Field, PrimeField};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::cli::output::{self, Output};
use manifest::{Manifest, PoRepSector};

/// The sector sealed with random data (PoRep, both PoSts).
const DATA_SECTOR: u64 = 1;
/// The committed-capacity sector SnapDeals updates.
const CC_SECTOR: u64 = 2;

/// Arguments of `cuzk filecoin test-data`.
#[derive(Args)]
pub struct TestDataArgs {
    /// The sector size: 2KiB, 8MiB or 512MiB (a 512 MiB sector takes
    /// minutes and a few GB of disk; 32GiB and 64GiB are refused unless
    /// --synthetic); also written `2 KiB`, `2k` or in bytes.
    #[arg(long, value_name = "SIZE")]
    sector_size: SectorSize,
    /// The directory to write into (created if missing; files of the same
    /// names are replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Seeds the sector data, ticket, seed and randomness: the same seed
    /// and size give the same files.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// The miner's actor id the sectors are sealed for.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    miner_id: u64,
    /// Leaves out the SnapDeals inputs: they need a second sector, sealed
    /// with committed capacity, and its update (at 512 MiB, minutes more).
    #[arg(long)]
    no_snap: bool,
    /// Writes synthetic inputs instead of sealing: any size, 32GiB and 64GiB
    /// included, in seconds: a committed-capacity PoRep C1, WinningPoSt and
    /// whole-partition WindowPoSt vanilla proofs, and a SnapDeals update
    /// with zero new data. (Made by cuzk without sealing; not Synthetic
    /// PoRep, which is --synthetic-porep.)
    #[arg(long, conflicts_with = "no_snap")]
    synthetic: bool,
    /// Seals the PoRep sector with Synthetic PoRep (FIP-0059,
    /// StackedDrg*V1_1_Feat_SyntheticPoRep, Go's registered proof 10-14), as
    /// Curio does with UseSyntheticPoRep: its synthetic proofs are made after
    /// pre-commit, its layers cleared, and its C1 picks the seed's challenges
    /// from them. Not --synthetic (cuzk-made inputs without sealing).
    #[arg(long, conflicts_with = "synthetic")]
    synthetic_porep: bool,
}

/// Seals, makes every kind's inputs, writes them and the manifest.
pub fn run(a: &TestDataArgs) -> Result<ExitCode, Error> {
    if a.synthetic {
        return synthetic(a);
    }
    testdata::ensure_test_size(a.sector_size)?;
    std::fs::create_dir_all(&a.out).map_err(Error::io(&a.out))?;
    let out = std::fs::canonicalize(&a.out).map_err(Error::io(&a.out))?;
    let work = tempfile::Builder::new().prefix(".test-data-work-").tempdir_in(&out).map_err(Error::io(&out))?;
    filecoin_proofs_env(work.path())?;
    let mut rng = StdRng::seed_from_u64(a.seed);
    let (size, miner) = (a.sector_size, a.miner_id);
    let mut m = Manifest::new(&out, size, a.seed, miner);

    let (proof, how) = if a.synthetic_porep {
        (testdata::synthetic_seal_proof(size), ", Synthetic PoRep")
    } else {
        (testdata::seal_proof(size), "")
    };
    let sector = step(&format!("sealing sector {DATA_SECTOR} ({size}, random data{how})"), || {
        SealedSector::seal_with(work.path(), proof, miner, DATA_SECTOR, &mut rng)
    })?;
    let seed = Scalar::random(&mut rng).to_repr();
    let c1 = step("commit phase 1", || sector.c1_json(seed))?;
    write(&out, manifest::C1, &curio_c1_wrapper(&c1, DATA_SECTOR, size))?;
    write(&out, manifest::C1_RAW, &c1)?;
    m.porep(&PoRepSector::from(&sector), seed);

    let randomness = Scalar::random(&mut rng).to_repr();
    for (name, proof) in
        [(manifest::WINNING, testdata::winning_proof(size)), (manifest::WINDOW, testdata::window_proof(size))]
    {
        let vanilla = step(&format!("{proof:?} vanilla proof"), || {
            SealedSector::post_vanilla(proof, &randomness, &[&sector])
        })?;
        write(&out, name, &vanilla_json(&vanilla))?;
    }
    m.post(&[sector.number], &[sector.number], randomness);

    if !a.no_snap {
        let cc = step(&format!("sealing sector {CC_SECTOR} ({size}, committed capacity)"), || {
            SealedSector::seal_cc(work.path(), size, miner, CC_SECTOR, &mut rng)
        })?;
        let snap = step("SnapDeals update and its vanilla partition proofs", || {
            testdata::update(&cc, work.path(), &mut rng)
        })?;
        write(&out, manifest::SNAP, &vanilla_json(&snap.vanilla))?;
        m.snap(CC_SECTOR, &snap);
    }

    write(&out, manifest::MANIFEST, &m.to_json())?;
    let work_path = work.path().to_path_buf();
    work.close().map_err(Error::io(work_path))?;
    eprintln!("test-data: {size} inputs in {}; prove them with the commands in {}", out.display(), manifest::MANIFEST);
    Ok(ExitCode::SUCCESS)
}

/// `--synthetic`: a PoRep C1 of a committed-capacity sector never sealed.
fn synthetic(a: &TestDataArgs) -> Result<ExitCode, Error> {
    std::fs::create_dir_all(&a.out).map_err(Error::io(&a.out))?;
    let out = std::fs::canonicalize(&a.out).map_err(Error::io(&a.out))?;
    let mut rng = StdRng::seed_from_u64(a.seed);
    let (size, miner) = (a.sector_size, a.miner_id);
    let (ticket, seed) = (Scalar::random(&mut rng).to_repr(), Scalar::random(&mut rng).to_repr());
    let c1 = step(&format!("synthetic {size} committed-capacity sector {DATA_SECTOR} and its C1"), || {
        synthetic::porep_c1(size, miner, DATA_SECTOR, ticket, seed)
    })?;
    let json = serde_json::to_vec(&c1)
        .map_err(|e| FilecoinError::Input { field: "C1 output".into(), reason: format!("not serializable as JSON: {e}") })?;
    write(&out, manifest::C1, &curio_c1_wrapper(&json, DATA_SECTOR, size))?;
    write(&out, manifest::C1_RAW, &json)?;
    let randomness = Scalar::random(&mut rng).to_repr();
    let winning_proof = testdata::winning_proof(size);
    let winning = step(&format!("synthetic {winning_proof:?} vanilla proof"), || {
        synthetic::post_vanilla(winning_proof, miner, randomness, &[DATA_SECTOR])
    })?;
    write(&out, manifest::WINNING, &vanilla_json(&winning))?;
    let window_proof = testdata::window_proof(size);
    let window_sectors: Vec<u64> = (DATA_SECTOR..).take(window_proof.sector_count()).collect();
    let window = step(&format!("synthetic {window_proof:?} vanilla proofs of a whole partition ({} sectors)", window_sectors.len()), || {
        synthetic::post_vanilla(window_proof, miner, randomness, &window_sectors)
    })?;
    write(&out, manifest::WINDOW, &vanilla_json(&window))?;
    let snap = step(&format!("synthetic SnapDeals update of committed-capacity sector {CC_SECTOR}"), || {
        synthetic::snap_update(size)
    })?;
    write(&out, manifest::SNAP, &vanilla_json(&snap.vanilla))?;
    let mut m = Manifest::new(&out, size, a.seed, miner);
    m.synthetic();
    let sector = PoRepSector { proof: c1.registered_proof, number: DATA_SECTOR, ticket, comm_d: c1.comm_d, comm_r: c1.comm_r };
    m.porep(&sector, seed);
    m.post(&[DATA_SECTOR], &window_sectors, randomness);
    m.snap(CC_SECTOR, &snap);
    write(&out, manifest::MANIFEST, &m.to_json())?;
    eprintln!("test-data: synthetic {size} inputs in {}; prove them with the commands in {}", out.display(), manifest::MANIFEST);
    Ok(ExitCode::SUCCESS)
}

/// Points filecoin-proofs' parent cache into `work` unless the user set it
/// (or its base directory): it would otherwise write under /var/tmp.
fn filecoin_proofs_env(work: &Path) -> Result<(), Error> {
    if std::env::var_os("FIL_PROOFS_PARENT_CACHE").is_some() || std::env::var_os("FIL_PROOFS_CACHE_DIR").is_some() {
        return Ok(());
    }
    let parents = work.join("filecoin-parents");
    std::fs::create_dir_all(&parents).map_err(Error::io(&parents))?;
    // Read by filecoin-proofs' settings on its first call, which comes after this.
    std::env::set_var("FIL_PROOFS_PARENT_CACHE", &parents);
    Ok(())
}

/// Runs one step, with a line on stderr before it and one with its time after.
fn step<T>(what: &str, f: impl FnOnce() -> Result<T, cuzk::filecoin::FilecoinError>) -> Result<T, Error> {
    eprintln!("test-data: {what} ...");
    let started = Instant::now();
    let out = f()?;
    eprintln!("test-data: {what}: done in {:.2} s", started.elapsed().as_secs_f64());
    Ok(out)
}

/// Curio's `[][]byte` JSON: an array of standard base64 strings.
fn vanilla_json(proofs: &[Vec<u8>]) -> Vec<u8> {
    let b64: Vec<String> = proofs.iter().map(|p| base64::engine::general_purpose::STANDARD.encode(p)).collect();
    serde_json::Value::from(b64).to_string().into_bytes()
}

/// Writes `dir/name` whole or not at all.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = dir.join(name);
    let mut out = Output::create(&path, &[])?;
    output::write_all(&mut out, bytes)?;
    out.commit()?;
    eprintln!("test-data: wrote {} ({} bytes)", path.display(), bytes.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: TestDataArgs,
    }

    /// `--sector-size` as the command line reads it.
    fn sector_size(s: &str) -> Result<SectorSize, String> {
        Cli::try_parse_from(["test-data", "--out", "x", "--sector-size", s])
            .map(|cli| cli.args.sector_size)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn sector_sizes_read_in_every_usual_spelling() {
        for (s, size) in [("2KiB", SectorSize::Kib2), ("2 kib", SectorSize::Kib2), ("2k", SectorSize::Kib2)] {
            assert_eq!(sector_size(s), Ok(size), "{s}");
        }
        assert_eq!(sector_size("536870912"), Ok(SectorSize::Mib512));
        assert_eq!(sector_size("32GiB"), Ok(SectorSize::Gib32));
        let err = sector_size("4KiB").unwrap_err();
        assert!(err.contains("\"4KiB\"") && err.contains("2KiB, 8MiB"), "{err}");
    }

    #[test]
    fn synthetic_porep_is_not_synthetic_inputs() {
        let parse = |extra: &[&str]| {
            let args = ["test-data", "--out", "x", "--sector-size", "2KiB"].iter().chain(extra);
            Cli::try_parse_from(args).map(|cli| (cli.args.synthetic_porep, cli.args.synthetic))
        };
        assert_eq!(parse(&["--synthetic-porep"]).ok(), Some((true, false)));
        assert_eq!(parse(&["--synthetic-porep", "--no-snap"]).ok(), Some((true, false)));
        assert_eq!(parse(&[]).ok(), Some((false, false)));
        assert!(parse(&["--synthetic-porep", "--synthetic"]).is_err());
    }
}
