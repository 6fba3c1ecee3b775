//! `manifest.json` of `cuzk filecoin test-data`: what was made (miner,
//! sectors, ticket, seed, randomness, commitments, registered proof numbers)
//! and, for each kind, the `cuzk` arguments that prove it from the files
//! written beside it.

use std::path::{Path, PathBuf};

use cuzk::filecoin::commitment::{to_cid_bytes, CommitmentKind};
use cuzk::filecoin::porep;
use cuzk::filecoin::post::abi_number;
use cuzk::filecoin::testdata::{self, SealedSector, SnapInputs};
use cuzk::filecoin::{CircuitId, ProofKind, SectorSize};
use filecoin_proofs_api::RegisteredSealProof;
use serde_json::{json, Value};

use super::super::cid;

/// Curio's `c1.json` wrapper.
pub const C1: &str = "c1.json";
/// The raw C1 output (filecoin-ffi's JSON).
pub const C1_RAW: &str = "c1-raw.json";
/// The WinningPoSt vanilla proof, Curio's JSON array of base64.
pub const WINNING: &str = "winning-vanilla.json";
/// The WindowPoSt vanilla proofs of partition 0.
pub const WINDOW: &str = "window-vanilla.json";
/// The SnapDeals vanilla partition proofs.
pub const SNAP: &str = "snap-vanilla.json";
/// This manifest.
pub const MANIFEST: &str = "manifest.json";

/// What the manifest says of the PoRep's sector.
pub struct PoRepSector {
    /// The seal proof it was sealed with.
    pub proof: RegisteredSealProof,
    /// The sector number.
    pub number: u64,
    /// The sealing ticket.
    pub ticket: [u8; 32],
    /// The unsealed commitment.
    pub comm_d: [u8; 32],
    /// The sealed commitment.
    pub comm_r: [u8; 32],
}

impl From<&SealedSector> for PoRepSector {
    fn from(s: &SealedSector) -> Self {
        let (number, ticket, comm_d, comm_r) = (s.number, s.ticket, s.pre_commit.comm_d, s.comm_r());
        PoRepSector { proof: s.proof, number, ticket, comm_d, comm_r }
    }
}

/// The manifest, filled in as each kind's inputs are written.
pub struct Manifest {
    dir: PathBuf,
    size: SectorSize,
    miner: String,
    root: Value,
}

impl Manifest {
    /// A manifest of test data in `dir` (absolute, so its commands run from anywhere).
    pub fn new(dir: &Path, size: SectorSize, seed: u64, miner_id: u64) -> Manifest {
        let circuits: Vec<String> =
            ProofKind::ALL.into_iter().map(|k| CircuitId::new(k, size).to_string()).collect();
        let root = json!({
            "about": "Test inputs sealed by filecoin-proofs (cuzk filecoin test-data). Prove a kind with \
                      `cuzk <its prove_args> --params-dir DIR`; verify with the same arguments, `verify` for \
                      `prove`, and `--proof FILE`. Test parameters for the circuits: `cuzk filecoin params \
                      --params-dir DIR --write-test-params ID`.",
            "sector_size": size.to_string(),
            "sector_size_bytes": size.bytes(),
            "circuits": circuits,
            "seed": seed,
            "miner_id": miner_id,
        });
        Manifest { dir: dir.to_path_buf(), size, miner: miner_id.to_string(), root }
    }

    fn file(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// The PoRep of `sector`: sector number, ticket, seed, commitments, and
    /// the command on Curio's wrapper and on the raw C1.
    pub fn porep(&mut self, sector: &PoRepSector, seed: [u8; 32]) {
        let miner = &self.miner;
        let args = ["filecoin", "prove", "porep", "--c1", &self.file(C1), "--miner-id", miner];
        let number = sector.number.to_string();
        let raw = ["filecoin", "prove", "porep", "--c1-json", &self.file(C1_RAW), "--sector-number", &number];
        let raw_args: Vec<&str> = raw.into_iter().chain(["--miner-id", miner]).collect();
        self.root["porep"] = json!({
            "circuit": CircuitId::new(ProofKind::PoRepC2, self.size).to_string(),
            "registered_proof": porep::abi_number(sector.proof),
            "registered_proof_name": format!("{:?}", sector.proof),
            "sector_number": sector.number,
            "ticket": hex::encode(sector.ticket),
            "seed": hex::encode(seed),
            "comm_d": hex::encode(sector.comm_d),
            "comm_r": hex::encode(sector.comm_r),
            "c1": C1,
            "c1_raw": C1_RAW,
            "prove_args": args,
            "prove_args_c1_json": raw_args,
        });
    }

    /// Says the inputs are synthetic: no sector was sealed.
    pub fn synthetic(&mut self) {
        self.root["synthetic"] = json!(true);
        self.root["about"] = json!(
            "A synthetic committed-capacity PoRep C1 (cuzk filecoin test-data --synthetic): no sector was \
             sealed; the challenged nodes are labelled as sealing labels them, the trees are sparse, and \
             storage-proofs' verify_all_partitions accepted the vanilla proofs; the PoSt sectors' challenged \
             leaves are filler values under sparse trees; the SnapDeals update adds zero data to a sector whose \
             replica is one default leaf. Prove a kind with `cuzk <its prove_args> --params-dir DIR`."
        );
    }

    /// WinningPoSt of `winning_sectors` and WindowPoSt of `window_sectors`
    /// (partition 0) under `randomness`.
    pub fn post(&mut self, winning_sectors: &[u64], window_sectors: &[u64], randomness: [u8; 32]) {
        let miner = &self.miner;
        let rand = hex::encode(randomness);
        let winning = testdata::winning_proof(self.size);
        let window = testdata::window_proof(self.size);
        let (winning_n, window_n) = (abi_number(winning).to_string(), abi_number(window).to_string());
        let common = |kind: &str, n: &str, file: &str| -> Vec<String> {
            let args = ["filecoin", "prove", kind, "--registered-proof", n, "--randomness", &rand, "--miner-id", miner];
            let mut args: Vec<String> = args.into_iter().map(String::from).collect();
            args.extend(["--vanilla".into(), self.file(file)]);
            args
        };
        let winning_args = common("winning-post", &winning_n, WINNING);
        let mut window_args = common("window-post", &window_n, WINDOW);
        window_args.extend(["--partition-index".into(), "0".into()]);
        self.root["randomness"] = json!(rand);
        self.root["winning_post"] = json!({
            "circuit": CircuitId::new(ProofKind::WinningPoSt, self.size).to_string(),
            "registered_proof": abi_number(winning),
            "registered_proof_name": format!("{winning:?}"),
            "sector_numbers": winning_sectors,
            "vanilla": WINNING,
            "prove_args": winning_args,
        });
        self.root["window_post"] = json!({
            "circuit": CircuitId::new(ProofKind::WindowPoSt, self.size).to_string(),
            "registered_proof": abi_number(window),
            "registered_proof_name": format!("{window:?}"),
            "partition_index": 0,
            "sector_numbers": window_sectors,
            "vanilla": WINDOW,
            "prove_args": window_args,
        });
    }

    /// The SnapDeals update of committed-capacity sector `number`, its
    /// commitments as hex (what the command uses) and as CID strings.
    pub fn snap(&mut self, number: u64, snap: &SnapInputs) {
        let n = update_abi_number(self.size).to_string();
        let old = hex::encode(snap.comm_r_old);
        let (new, data) = (hex::encode(snap.comm_r_new), hex::encode(snap.comm_d_new));
        let args = [
            "filecoin",
            "prove",
            "snap",
            "--registered-proof",
            &n,
            "--comm-r-old",
            &old,
            "--comm-r-new",
            &new,
            "--comm-d-new",
            &data,
            "--vanilla",
            &self.file(SNAP),
        ];
        let cid_of = |kind, digest| cid::to_string(&to_cid_bytes(kind, digest));
        self.root["snap"] = json!({
            "circuit": CircuitId::new(ProofKind::SnapDeals, self.size).to_string(),
            "registered_proof": update_abi_number(self.size),
            "registered_proof_name": format!("{:?}", snap.proof),
            "sector_number": number,
            "comm_r_old": old,
            "comm_r_new": new,
            "comm_d_new": data,
            "comm_r_old_cid": cid_of(CommitmentKind::Sealed, &snap.comm_r_old),
            "comm_r_new_cid": cid_of(CommitmentKind::Sealed, &snap.comm_r_new),
            "comm_d_new_cid": cid_of(CommitmentKind::Unsealed, &snap.comm_d_new),
            "vanilla": SNAP,
            "prove_args": args,
        });
    }

    /// The manifest's bytes, pretty-printed for people to read.
    pub fn to_json(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(&self.root).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

/// Go's `abi.RegisteredUpdateProof` number at `size`: 0..4, 2KiB..64GiB.
fn update_abi_number(size: SectorSize) -> u64 {
    size_index(size)
}

fn size_index(size: SectorSize) -> u64 {
    SectorSize::ALL.iter().position(|&s| s == size).unwrap_or_default() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk::filecoin::snap::registered_update_proof;

    #[test]
    fn registered_proof_numbers_are_gos() {
        for size in SectorSize::ALL {
            let update = registered_update_proof(update_abi_number(size)).unwrap();
            assert_eq!(update, testdata::update_proof(size), "{size}");
            // filecoin-proofs-api's porep id starts with the abi number, little-endian.
            for proof in [testdata::seal_proof(size), testdata::synthetic_seal_proof(size)] {
                let porep_id = proof.as_v1_config().porep_id;
                assert_eq!(porep_id[..8], porep::abi_number(proof).to_le_bytes(), "{proof:?}");
            }
        }
    }
}
