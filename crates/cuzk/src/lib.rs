//! cuzk: a Groth16 proving engine for BLS12-381.
#![forbid(unsafe_code)]
