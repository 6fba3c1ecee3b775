//! Test-facing wrappers over the hook bridge (`cuzk_ffi::hooks`): C++ that
//! exists so host tests can reach the native side's contracts without a GPU.
//! Nothing here is part of the prover.

/// Every C++ error kind thrown on demand, as the typed error it becomes.
pub mod errors;
/// The `CUZK_TIMING:` line as the host function prints it.
pub mod timing;
