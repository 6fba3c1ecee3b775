//! SnapDeals' inputs on the command line: Go's registered update proof
//! number, the three commitments as hex digests or CID strings, and the
//! update's vanilla partition proofs.

use clap::Args;
use cuzk::filecoin::commitment::{self, CommitmentKind, DIGEST_BYTES};
use cuzk::filecoin::snap::{registered_update_proof, SnapRequest};
use cuzk::filecoin::Request;
use cuzk::Error;
use filecoin_proofs_api::RegisteredUpdateProof;

use super::cid;
use super::vanilla::{Source, VanillaArgs};

/// What a SnapDeals request takes besides the parameter cache.
#[derive(Args)]
pub struct SnapArgs {
    /// The registered update proof as Go's abi.RegisteredUpdateProof numbers
    /// it (0-4: StackedDrg 2KiB, 8MiB, 512MiB, 32GiB, 64GiB V1).
    #[arg(long, value_name = "N", value_parser = update_proof)]
    registered_proof: RegisteredUpdateProof,
    /// CommR of the sector before the update (the sector key): 64 hex
    /// characters, or its CID (bagboea4b5abc...).
    #[arg(long, value_name = "HEX|CID", value_parser = comm_r)]
    comm_r_old: [u8; DIGEST_BYTES],
    /// CommR of the updated replica: 64 hex characters, or its CID (bagboea4b5abc...).
    #[arg(long, value_name = "HEX|CID", value_parser = comm_r)]
    comm_r_new: [u8; DIGEST_BYTES],
    /// CommD of the new data: 64 hex characters, or its CID (baga6ea4seaq...).
    #[arg(long, value_name = "HEX|CID", value_parser = comm_d)]
    comm_d_new: [u8; DIGEST_BYTES],
    #[command(flatten)]
    vanilla: VanillaArgs,
}

impl SnapArgs {
    /// The request and the files its partition proofs came from.
    pub(super) fn request(&self) -> Result<(Request, Source), Error> {
        let (vanilla, source) = self.vanilla.read()?;
        let (old, new, data) = (&self.comm_r_old, &self.comm_r_new, &self.comm_d_new);
        let request = SnapRequest::new(self.registered_proof, vanilla, old, new, data)?;
        Ok((request.into(), source))
    }
}

/// `--registered-proof`: an update proof number.
fn update_proof(s: &str) -> Result<RegisteredUpdateProof, String> {
    let n: u64 = s.parse().map_err(|e| format!("not a number: {e}"))?;
    registered_update_proof(n).map_err(|e| e.to_string())
}

/// `--comm-r-old`, `--comm-r-new`: a CommR.
fn comm_r(s: &str) -> Result<[u8; DIGEST_BYTES], String> {
    commitment_arg(CommitmentKind::Sealed, s)
}

/// `--comm-d-new`: a CommD.
fn comm_d(s: &str) -> Result<[u8; DIGEST_BYTES], String> {
    commitment_arg(CommitmentKind::Unsealed, s)
}

/// A commitment of `kind` as 64 hex characters (the digest) or as its CID
/// string, checked as cuzk-filecoin checks a request's: a CID of the other
/// kind, or a digest that is not a field element, is refused here.
fn commitment_arg(kind: CommitmentKind, s: &str) -> Result<[u8; DIGEST_BYTES], String> {
    let s = s.trim();
    let bytes = if s.len() == 2 * DIGEST_BYTES && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        hex::decode(s).map_err(|e| format!("not hex: {e}"))?
    } else {
        cid::from_string(s).map_err(|e| {
            format!("neither {} hex characters nor a commitment CID: {e}", 2 * DIGEST_BYTES)
        })?
    };
    let what = match kind {
        CommitmentKind::Sealed => "CommR",
        CommitmentKind::Unsealed => "CommD",
    };
    commitment::parse(what, kind, &bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk::filecoin::commitment::to_cid_bytes;

    #[test]
    fn commitments_parse_from_hex_and_cid_strings_of_their_kind_only() {
        let digest = [7u8; 32];
        let hex = hex::encode(digest);
        let comm_r_cid = cid::to_string(&to_cid_bytes(CommitmentKind::Sealed, &digest));
        let comm_d_cid = cid::to_string(&to_cid_bytes(CommitmentKind::Unsealed, &digest));
        assert_eq!(comm_r(&hex), Ok(digest));
        assert_eq!(comm_d(&hex.to_uppercase()), Ok(digest));
        assert_eq!(comm_r(&comm_r_cid), Ok(digest));
        assert_eq!(comm_d(&comm_d_cid), Ok(digest));
        let wrong = comm_r(&comm_d_cid).unwrap_err();
        assert!(wrong.contains("CommR") && wrong.contains("fil-commitment-unsealed"), "{wrong}");
        assert!(comm_d(&comm_r_cid).unwrap_err().contains("expected fil-commitment-unsealed"));
        assert!(comm_r(&hex[..62]).unwrap_err().contains("64 hex characters"));
        assert!(comm_r(&"ff".repeat(32)).unwrap_err().contains("not a BLS12-381 scalar"));
        assert!(update_proof("5").unwrap_err().contains("RegisteredUpdateProof(5)"));
        assert_eq!(update_proof("0"), Ok(RegisteredUpdateProof::StackedDrg2KiBV1));
    }
}
