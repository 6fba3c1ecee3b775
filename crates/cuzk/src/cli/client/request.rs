//! A request on the command line: the flags of one proof kind, read from the
//! files Curio keeps (its `c1.json`, vanilla proofs as a JSON array of
//! base64 strings) and the chain's values in hex. The kind follows from the
//! flags given (`--c1`: PoRep; `--randomness`: PoSt, Winning or Window by
//! the registered proof; `--comm-*`: SnapDeals; `--workload`), and a flag
//! another kind takes is refused, so nothing given is silently ignored.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use clap::Args;
use cuzk::synth::workloads::Workload;
use cuzk::Error;
use cuzk_daemon::client::{request, ClientError};
use cuzk_daemon::proto::{Priority, SubmitProofRequest};

/// Largest `--c1` or `--vanilla` file read: a 32 GiB C1 wrapper is ~70 MB,
/// a full 32 GiB WindowPoSt partition's vanilla JSON ~80 MB; the daemon
/// takes messages up to its `max_message_bytes` (272 MiB by default).
const MAX_INPUT_FILE: u64 = 1 << 30;

/// Bytes given in hex on the command line.
#[derive(Clone, Debug)]
pub struct Hex(Vec<u8>);

fn parse_hex(s: &str) -> Result<Hex, String> {
    hex::decode(s.strip_prefix("0x").unwrap_or(s)).map(Hex).map_err(|e| format!("not hex: {e}"))
}

fn parse_randomness(s: &str) -> Result<[u8; 32], String> {
    let Hex(bytes) = parse_hex(s)?;
    bytes.try_into().map_err(|b: Vec<u8>| format!("{} bytes, expected 32 (64 hex characters)", b.len()))
}

fn parse_workload(s: &str) -> Result<Workload, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// The flags of one request; which are given decides its kind.
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Request")]
pub struct RequestArgs {
    /// PoRep C2: Curio's c1.json wrapper ({"SectorNum", "Phase1Out", "SectorSize"}); with --miner-id.
    #[arg(long, value_name = "FILE")]
    c1: Option<PathBuf>,
    /// PoSt and SnapDeals: the vanilla proofs as Curio keeps them, a JSON
    /// array of standard base64 strings (one bincode proof per sector, or
    /// per update partition).
    #[arg(long, value_name = "FILE")]
    vanilla: Option<PathBuf>,
    /// PoSt: Go's abi.RegisteredPoStProof (0-4 WinningPoSt, 5-14 WindowPoSt);
    /// SnapDeals: abi.RegisteredUpdateProof (0-4).
    #[arg(long, value_name = "N")]
    registered_proof: Option<u64>,
    /// PoSt: the challenge randomness, 64 hex characters.
    #[arg(long, value_name = "HEX", value_parser = parse_randomness)]
    randomness: Option<[u8; 32]>,
    /// PoRep and PoSt: the miner's actor id.
    #[arg(long, value_name = "N")]
    miner_id: Option<u64>,
    /// WindowPoSt: the partition's index in the deadline (0 when absent).
    #[arg(long, value_name = "N")]
    partition_index: Option<u32>,
    /// SnapDeals: CommR before the update, hex of the 32-byte digest or of its CID bytes.
    #[arg(long, value_name = "HEX", value_parser = parse_hex)]
    comm_r_old: Option<Hex>,
    /// SnapDeals: CommR after the update (hex digest or CID bytes).
    #[arg(long, value_name = "HEX", value_parser = parse_hex)]
    comm_r_new: Option<Hex>,
    /// SnapDeals: CommD of the new data (hex digest or CID bytes).
    #[arg(long, value_name = "HEX", value_parser = parse_hex)]
    comm_d_new: Option<Hex>,
    /// A built-in workload, sha256 or mul-chain (the daemon reads
    /// `<params.dir>/<workload>-<size>.params`, as `cuzk setup` writes it).
    #[arg(long, value_name = "NAME", value_parser = parse_workload)]
    workload: Option<Workload>,
    /// Workload: N (sha256: compressions; mul-chain: constraints).
    #[arg(long, value_name = "N")]
    size: Option<u64>,
    /// Workload: circuits (partitions) in the request.
    #[arg(long, value_name = "N")]
    partitions: Option<u32>,
}

/// What a job is submitted with besides its request.
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Job")]
pub struct JobOptions {
    /// An idempotency key: the same id with the same request joins its job
    /// (finished or not). Absent: a fresh job every time.
    #[arg(long, value_name = "ID")]
    request_id: Option<String>,
    /// low, normal, high or critical; absent, the kind's default (WinningPoSt
    /// critical, WindowPoSt high, others normal).
    #[arg(long, value_name = "LEVEL")]
    priority: Option<String>,
}

impl JobOptions {
    /// `req` with the request id and priority set.
    pub fn apply(&self, mut req: SubmitProofRequest) -> Result<SubmitProofRequest, Error> {
        req.request_id = self.request_id.clone().unwrap_or_default();
        if let Some(p) = &self.priority {
            let level = Priority::from_str_name(&p.to_ascii_uppercase())
                .filter(|l| *l != Priority::Unspecified)
                .ok_or_else(|| Error::Usage(format!("--priority {p}: expected low, normal, high or critical")))?;
            req.priority = level as i32;
        }
        Ok(req)
    }
}

/// The kinds the flags can make.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    PoRep,
    PoSt,
    Snap,
    Workload,
}

impl RequestArgs {
    /// Whether no request flag is given.
    pub fn is_empty(&self) -> bool {
        self.given().iter().all(|(_, set)| !set)
    }

    /// Every flag and whether it is given.
    fn given(&self) -> [(&'static str, bool); 12] {
        [
            ("--c1", self.c1.is_some()),
            ("--vanilla", self.vanilla.is_some()),
            ("--registered-proof", self.registered_proof.is_some()),
            ("--randomness", self.randomness.is_some()),
            ("--miner-id", self.miner_id.is_some()),
            ("--partition-index", self.partition_index.is_some()),
            ("--comm-r-old", self.comm_r_old.is_some()),
            ("--comm-r-new", self.comm_r_new.is_some()),
            ("--comm-d-new", self.comm_d_new.is_some()),
            ("--workload", self.workload.is_some()),
            ("--size", self.size.is_some()),
            ("--partitions", self.partitions.is_some()),
        ]
    }

    /// The kind the flags make: exactly one.
    fn kind(&self) -> Result<Kind, Error> {
        let snap = self.comm_r_old.is_some() || self.comm_r_new.is_some() || self.comm_d_new.is_some();
        let marks = [
            (Kind::PoRep, self.c1.is_some()),
            (Kind::PoSt, self.randomness.is_some()),
            (Kind::Snap, snap),
            (Kind::Workload, self.workload.is_some()),
        ];
        let kinds: Vec<Kind> = marks.iter().filter(|(_, set)| *set).map(|(k, _)| *k).collect();
        match kinds.as_slice() {
            [kind] => Ok(*kind),
            [] => Err(Error::Usage(
                "no request: give --c1 (PoRep), --vanilla with --randomness (PoSt) or with --comm-r-old, \
                 --comm-r-new, --comm-d-new (SnapDeals), or --workload"
                    .into(),
            )),
            _ => Err(Error::Usage(format!("the flags make requests of several kinds ({kinds:?}): give one"))),
        }
    }

    /// The flags `kind` takes.
    fn takes(kind: Kind) -> &'static [&'static str] {
        match kind {
            Kind::PoRep => &["--c1", "--miner-id"],
            Kind::PoSt => &["--vanilla", "--registered-proof", "--randomness", "--miner-id", "--partition-index"],
            Kind::Snap => &["--vanilla", "--registered-proof", "--comm-r-old", "--comm-r-new", "--comm-d-new"],
            Kind::Workload => &["--workload", "--size", "--partitions"],
        }
    }

    /// The request, its files read.
    pub fn build(&self) -> Result<SubmitProofRequest, Error> {
        let kind = self.kind()?;
        let takes = Self::takes(kind);
        if let Some((flag, _)) = self.given().iter().find(|(flag, set)| *set && !takes.contains(flag)) {
            return Err(Error::Usage(format!(
                "{flag} does not apply to a {kind:?} request (it takes {})",
                takes.join(", ")
            )));
        }
        let need = |flag: &str| Error::Usage(format!("a {kind:?} request needs {flag}"));
        let req = match kind {
            Kind::PoRep => {
                let c1 = self.c1.as_deref().ok_or_else(|| need("--c1"))?;
                let miner_id = self.miner_id.ok_or_else(|| need("--miner-id"))?;
                request::porep(read(c1)?, miner_id).map_err(|e| in_file(e, c1))?
            }
            Kind::PoSt => request::post(request::PoSt {
                registered_proof: self.registered_proof.ok_or_else(|| need("--registered-proof"))?,
                randomness: self.randomness.ok_or_else(|| need("--randomness"))?,
                miner_id: self.miner_id.ok_or_else(|| need("--miner-id"))?,
                partition_index: self.partition_index,
                vanilla: self.vanilla_proofs().ok_or_else(|| need("--vanilla"))??,
            })?,
            Kind::Snap => {
                let hex = |h: &Option<Hex>, flag| h.as_ref().map(|Hex(b)| b.clone()).ok_or_else(|| need(flag));
                request::snap(request::Snap {
                    registered_proof: self.registered_proof.ok_or_else(|| need("--registered-proof"))?,
                    vanilla: self.vanilla_proofs().ok_or_else(|| need("--vanilla"))??,
                    comm_r_old: hex(&self.comm_r_old, "--comm-r-old")?,
                    comm_r_new: hex(&self.comm_r_new, "--comm-r-new")?,
                    comm_d_new: hex(&self.comm_d_new, "--comm-d-new")?,
                })?
            }
            Kind::Workload => {
                let workload = self.workload.ok_or_else(|| need("--workload"))?;
                let size = self.size.ok_or_else(|| need("--size"))?;
                request::workload(workload, size, self.partitions.unwrap_or(1))
            }
        };
        Ok(req)
    }

    /// The files the request is read from (an output must not replace one).
    pub fn files(&self) -> Vec<&Path> {
        [self.c1.as_deref(), self.vanilla.as_deref()].into_iter().flatten().collect()
    }

    /// `--vanilla`'s proofs, when given.
    fn vanilla_proofs(&self) -> Option<Result<Vec<Vec<u8>>, Error>> {
        self.vanilla.as_deref().map(|f| decode_vanilla(f, &read(f)?))
    }
}

/// Reads an input file, refusing one larger than any request.
fn read(path: &Path) -> Result<Vec<u8>, Error> {
    let len = std::fs::metadata(path).map_err(Error::io(path))?.len();
    if len > MAX_INPUT_FILE {
        return Err(Error::Usage(format!("{}: {len} bytes, more than any request holds", path.display())));
    }
    std::fs::read(path).map_err(Error::io(path))
}

/// Curio's `[][]byte` JSON: an array of standard base64 strings.
fn decode_vanilla(file: &Path, json: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
    let bad = |field: String, reason: String| Error::from(ClientError::Request { field, reason });
    let entries: Vec<String> = serde_json::from_slice(json)
        .map_err(|e| bad(file.display().to_string(), format!("not a JSON array of base64 strings: {e}")))?;
    let engine = base64::engine::general_purpose::STANDARD;
    let proofs = entries.iter().enumerate().map(|(i, entry)| {
        engine
            .decode(entry)
            .map_err(|e| bad(format!("{}: entry {i}", file.display()), format!("not standard base64: {e}")))
    });
    proofs.collect()
}

/// A request error about `c1.json` as the file the user gave.
fn in_file(e: ClientError, file: &Path) -> Error {
    match e {
        ClientError::Request { field, reason } => {
            Error::from(ClientError::Request { field: format!("{}: {field}", file.display()), reason })
        }
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(flags: &[&str]) -> Result<RequestArgs, clap::Error> {
        #[derive(clap::Parser)]
        struct P {
            #[command(flatten)]
            r: RequestArgs,
        }
        <P as clap::Parser>::try_parse_from(std::iter::once("p").chain(flags.iter().copied())).map(|p| p.r)
    }

    #[test]
    fn the_flags_decide_the_kind_and_foreign_flags_are_refused() {
        let w = args(&["--workload", "mul-chain", "--size", "64", "--partitions", "2"]).unwrap();
        let r = w.build().unwrap();
        assert_eq!((r.workload_size, r.workload_partitions), (64, 2));
        assert!(args(&[]).unwrap().is_empty() && !w.is_empty());
        for (flags, says) in [
            (&["--workload", "sha256"][..], "--size"),
            (&["--workload", "sha256", "--size", "1", "--miner-id", "1"], "--miner-id does not apply"),
            (&["--workload", "sha256", "--size", "1", "--c1", "x"], "several kinds"),
            (&["--vanilla", "v.json"], "no request"),
            (&["--randomness", &"00".repeat(32), "--miner-id", "1", "--registered-proof", "0"], "--vanilla"),
            (&["--comm-r-old", "00", "--partition-index", "1"], "--partition-index does not apply"),
        ] {
            let err = args(flags).unwrap().build().unwrap_err().to_string();
            assert!(err.contains(says), "{flags:?}: {err}");
        }
        assert!(args(&["--randomness", "abcd"]).is_err(), "2 bytes of randomness");
        assert!(args(&["--comm-d-new", "xyz"]).is_err(), "not hex");
    }

    #[test]
    fn vanilla_files_are_base64_arrays_and_bad_entries_are_named() {
        let file = Path::new("v.json");
        assert_eq!(decode_vanilla(file, br#"["AQI=", ""]"#).unwrap(), vec![vec![1u8, 2], vec![]]);
        let err = decode_vanilla(file, br#"["AQI=", "***"]"#).unwrap_err().to_string();
        assert!(err.starts_with("v.json: entry 1: not standard base64"), "{err}");
        let err = decode_vanilla(file, b"{}").unwrap_err().to_string();
        assert!(err.contains("not a JSON array"), "{err}");
    }

    #[test]
    fn job_options_set_the_id_and_priority() {
        let o = JobOptions { request_id: Some("r".into()), priority: Some("critical".into()) };
        let r = o.apply(SubmitProofRequest::default()).unwrap();
        assert_eq!((r.request_id.as_str(), r.priority), ("r", Priority::Critical as i32));
        for bad in ["urgent", "priority_unspecified"] {
            let o = JobOptions { request_id: None, priority: Some(bad.into()) };
            assert!(o.apply(SubmitProofRequest::default()).is_err(), "{bad}");
        }
    }
}
