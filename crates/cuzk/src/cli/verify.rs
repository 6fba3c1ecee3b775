//! `cuzk verify`: proofs against public inputs, with any bellperson-written
//! parameter file.

use std::path::Path;
use std::process::ExitCode;

use cuzk::groth16::{prepare_verifying_key, verify_proof, Proof};
use cuzk::Error;

use super::limits;

/// Verifies every proof; exit code 0 only when all verify.
pub fn run(params: &Path, proofs_path: &Path, inputs_path: &Path) -> Result<ExitCode, Error> {
    let vk = super::jobs::read_vk(params)?;
    let bytes = limits::read_file(proofs_path, 192 * limits::MAX_PROOFS)?;
    let proofs = Proof::read_many(&bytes)?;
    let text = limits::read_file(inputs_path, limits::MAX_INPUTS_JSON)?;
    let text = String::from_utf8(text).map_err(|_| Error::Inputs {
        path: inputs_path.to_path_buf(),
        message: "not UTF-8 text".into(),
    })?;
    let inputs = cuzk::inputs::from_json(&text, inputs_path)?;
    if proofs.is_empty() {
        return Err(Error::Usage(format!("{} holds no proof: nothing to verify", proofs_path.display())));
    }
    if proofs.len() != inputs.len() {
        return Err(Error::CountMismatch { proofs: proofs.len(), inputs: inputs.len() });
    }
    let pvk = prepare_verifying_key(&vk)?;
    let mut failed = 0;
    for (i, (proof, public)) in proofs.iter().zip(&inputs).enumerate() {
        let ok = verify_proof(&pvk, proof, public)?;
        println!("proof {i}: {}", if ok { "valid" } else { "INVALID" });
        failed += usize::from(!ok);
    }
    println!("{} of {} proofs verify", proofs.len() - failed, proofs.len());
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
