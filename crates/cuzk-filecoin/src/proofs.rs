//! Proof bytes in filecoin-proofs' layout (192-byte Groth16 proofs, A‖B‖C
//! compressed, concatenated in partition order) and their verification
//! against the public inputs the filecoin-proofs verifier builds.

use blstrs::Scalar;
use cuzk_groth16::{verify_proof, PreparedVerifyingKey, Proof};

use crate::error::FilecoinError;
use crate::kind::CircuitId;

/// Bytes of one Groth16 proof.
pub const PROOF_BYTES: usize = 192;

/// The proofs of a request's partitions as filecoin-proofs writes them.
pub fn join(proofs: &[Proof]) -> Vec<u8> {
    proofs.iter().flat_map(|p| p.to_bytes()).collect()
}

/// The proofs in `bytes`, which must hold exactly `partitions` of them.
pub fn split(circuit: CircuitId, bytes: &[u8], partitions: usize) -> Result<Vec<Proof>, FilecoinError> {
    let want = partitions.checked_mul(PROOF_BYTES).filter(|&n| n == bytes.len());
    if want.is_none() {
        return Err(FilecoinError::ProofBytes {
            circuit,
            reason: format!("{} bytes, expected {partitions} × {PROOF_BYTES}", bytes.len()),
        });
    }
    bytes
        .chunks_exact(PROOF_BYTES)
        .enumerate()
        .map(|(k, chunk)| {
            Proof::from_bytes(chunk).map_err(|e| FilecoinError::ProofBytes {
                circuit,
                reason: format!("partition {k}: {e}"),
            })
        })
        .collect()
}

/// Checks every partition's proof against the verifier's public inputs
/// (`public_inputs[k]` for partition k, without the leading one).
pub fn verify(
    circuit: CircuitId,
    pvk: &PreparedVerifyingKey,
    public_inputs: &[Vec<Scalar>],
    bytes: &[u8],
) -> Result<(), FilecoinError> {
    let proofs = split(circuit, bytes, public_inputs.len())?;
    for (partition, (proof, inputs)) in proofs.iter().zip(public_inputs).enumerate() {
        let ok = verify_proof(pvk, proof, inputs).map_err(|e| FilecoinError::ProofBytes {
            circuit,
            reason: format!("partition {partition}: {e}"),
        })?;
        if !ok {
            return Err(FilecoinError::ProofInvalid { circuit, partition });
        }
    }
    Ok(())
}
