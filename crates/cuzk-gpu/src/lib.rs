//! Safe GPU API over the bridge: devices, kernels, typed CUDA errors.
//!
//! Every call names its device explicitly; a build without CUDA, a machine
//! without a GPU and a failing kernel all surface as a typed [`GpuError`],
//! never as a silent CPU fallback. Choosing a backend is the engine's job.
#![forbid(unsafe_code)]

/// Typed errors parsed from the bridge's error kinds.
pub mod error;
/// Device discovery and handles.
pub mod device;
/// Fr number-theoretic transforms on a device.
pub mod ntt;
/// The groups the kernels implement (markers `G1`, `G2`).
pub mod curve;

/// Pippenger multi-scalar multiplication in G1 and G2, resident inputs.
pub mod msm;
/// Bitmap-driven sums of bases (the 0/1 part of a witness).
pub mod batch_add;
/// The Groth16 SRS uploaded once per device.
pub mod srs;
/// Which SRS queries stay in device memory and which are streamed.
pub mod placement;
/// Groth16 proofs on a device (the host function of DESIGN §4).
pub mod groth16;
/// Host services of the bridge (thread priorities).
pub mod host;
/// Recorded shapes resident on a device and the sparse products a, b, c
/// computed there from a witness (DESIGN §5).
pub mod spmv;
/// Groth16 parameter generation with the fixed-base multiplications on a device.
pub mod setup;
/// Test- and bench-facing wrappers over the bridge's hooks.
pub mod hooks;

pub use device::{cap_device_memory, devices, release_idle_memory, Device, DeviceInfo};
pub use msm::{msm_g1, msm_g2, DeviceBases, DeviceRun, DeviceScalars};
pub use batch_add::{batch_add_g1, batch_add_g2};
pub use error::GpuError;
pub use groth16::{prove, prove_recorded, HostTimings};
pub use setup::{fixed_base_g1, fixed_base_g2, generate_parameters_from_shape, GpuFixedBase, SetupError};
pub use spmv::DeviceShape;
pub use placement::{Placement, Query, QuerySet, QuotientLayout, SrsSizes};
pub use srs::{GpuSrs, SrsPlacement};
pub use ntt::{ntt, NttKind};

/// Whether this build compiled the CUDA kernels.
pub const CUDA_COMPILED: bool = cuzk_ffi::CUDA_COMPILED;
