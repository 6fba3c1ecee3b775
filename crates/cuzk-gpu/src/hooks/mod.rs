//! Test-facing wrappers over the hook bridge (`cuzk_ffi::hooks`): C++ that
//! exists so tests and benchmarks can reach the native side's contracts,
//! most of them without a GPU. Nothing here is part of the prover.

/// The kernels' field and curve arithmetic run on the host (and the field
/// multiplier on a device), for differential tests against blstrs.
pub mod arith;
/// Kernel timings for the benchmarks: dependent Fp (integer and FP64-limb
/// products) and G1 chains, repeated NTTs.
pub mod bench;
/// The device allocation probe (out-of-memory as a typed error).
pub mod device;
/// Every C++ error kind thrown on demand, as the typed error it becomes.
pub mod errors;
/// The allocation fault hook: count a call's allocations, or fail the k-th.
pub mod faults;
/// The host function's split, page release and epilogue, run on the host.
pub mod groth16;
/// The MSM and batch-addition kernels' digit and index logic on the host.
pub mod msm;
/// The fixed-base multiplication's point and conversion code run on the host.
pub mod setup;
/// The SpMV kernels' checks and row code run on the host.
pub mod spmv;
/// The `CUZK_TIMING:` line as the host function prints it.
pub mod timing;
