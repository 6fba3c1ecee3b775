//! `cuzk verify`: proofs against public inputs, with any bellperson-written
//! parameter file.

use std::path::Path;
use std::process::ExitCode;

use cuzk::groth16::{prepare_verifying_key, verify_proof, Proof};
use cuzk::Error;

/// Verifies every proof; exit code 0 only when all verify.
pub fn run(params: &Path, proofs: &Path, inputs: &Path) -> Result<ExitCode, Error> {
    let vk = super::jobs::read_vk(params)?;
    let bytes = std::fs::read(proofs).map_err(Error::io(proofs))?;
    let proofs = Proof::read_many(&bytes)?;
    let text = std::fs::read_to_string(inputs).map_err(Error::io(inputs))?;
    let inputs = cuzk::inputs::from_json(&text, inputs)?;
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
