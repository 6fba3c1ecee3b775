//! Groth16 over BLS12-381: parameters, proofs, verification and the CPU prover.
#![forbid(unsafe_code)]
