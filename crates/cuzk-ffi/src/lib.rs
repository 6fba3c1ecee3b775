//! The bridge to cuzk's C++ host code (cpp/) and CUDA kernels (cuda/), and
//! the only crate of cuzk that contains `unsafe` code.
//!
//! Every fallible C++ function returns `Result`: C++ throws a `cuzk::error`
//! whose message starts with a machine-readable kind (`no_gpu`, `no_device`,
//! `cuda_oom`, `cuda_error`, `invalid_input`, see cpp/error.hpp) and cxx
//! turns it into an `Err(cxx::Exception)`; nothing unwinds across the FFI.
//! `cuzk-gpu` parses those kinds into its typed error.

pub mod cast;

/// The error type the bridge returns; its message starts with the error kind.
pub use cxx::Exception;

/// Whether this build compiled the CUDA kernels; without them every GPU entry
/// point returns a `no_gpu` error.
pub const CUDA_COMPILED: bool = cfg!(cuzk_cuda);

/// The cxx bridge: shared types first, then the C++ functions.
#[cxx::bridge(namespace = "cuzk")]
pub mod ffi {
    /// One CUDA device as the runtime reports it.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct DeviceInfo {
        /// Marketing name, e.g. "NVIDIA H200".
        pub name: String,
        /// CUDA device ordinal.
        pub id: i32,
        /// Compute capability, major part.
        pub sm_major: i32,
        /// Compute capability, minor part.
        pub sm_minor: i32,
        /// Number of streaming multiprocessors.
        pub sm_count: i32,
        /// Device memory in bytes.
        pub total_mem: u64,
        /// Device memory free at the time of the query, in bytes.
        pub free_mem: u64,
    }

    /// A field of BLS12-381 with host and device arithmetic.
    #[derive(Debug)]
    enum Field {
        /// The scalar field (4 limbs).
        Fr,
        /// The base field (6 limbs).
        Fp,
        /// The quadratic extension of Fp (12 limbs).
        Fp2,
    }

    /// A field operation of the host test hook; unary ops ignore `b`.
    #[derive(Debug)]
    enum FieldOp {
        /// a + b
        Add,
        /// a - b
        Sub,
        /// a * b
        Mul,
        /// a^2
        Sqr,
        /// -a
        Neg,
        /// Inverse; zero maps to zero.
        Inv,
    }

    /// A group of BLS12-381.
    #[derive(Debug)]
    enum Curve {
        /// Points over Fp.
        G1,
        /// Points over Fp2.
        G2,
    }

    /// A curve operation of the host test hook. `p` is always a Jacobian
    /// point (blstrs' projective form); the result is affine.
    #[derive(Debug)]
    enum CurveOp {
        /// p + q, q Jacobian.
        Add,
        /// 2p; q ignored.
        Dbl,
        /// p + q, q affine (the bucket accumulation of MSM).
        AddAffine,
        /// p itself, through the XYZZ form; q ignored.
        ToAffine,
    }

    /// Which Fr transform; sizes are powers of two, order natural in and out.
    #[derive(Debug)]
    enum NttKind {
        /// Evaluate at the powers of the root of unity w.
        Forward,
        /// Interpolate: the inverse of Forward, scaled by 1/n.
        Inverse,
        /// Forward of a_i * g^i (evaluate on the coset g<w>).
        CosetForward,
        /// Inverse, then a_i * g^-i.
        CosetInverse,
    }

    unsafe extern "C++" {
        include!("cpp/bridge.hpp");

        /// Writes the modulus, R and R^2 of a prime field as limbs and returns -p^-1 mod 2^32.
        fn field_constants(field: Field, modulus: &mut [u64], one: &mut [u64], r2: &mut [u64]) -> Result<u32>;
        /// Host-compiled field arithmetic on Montgomery limbs.
        fn field_op(field: Field, op: FieldOp, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()>;
        /// Host-compiled curve arithmetic on limbs (through the XYZZ form).
        fn curve_op(curve: Curve, op: CurveOp, p: &[u64], q: &[u64], out: &mut [u64]) -> Result<()>;
        /// The primitive 2^log_n-th root of unity the NTT kernels use.
        fn ntt_root_of_unity(log_n: u32, out: &mut [u64]) -> Result<()>;

        /// Number of CUDA devices; `no_gpu` when there is none or no driver.
        fn device_count() -> Result<i32>;
        /// Properties and free memory of one device.
        fn device_info(id: i32) -> Result<DeviceInfo>;
        /// Allocates, fills and frees `bytes` of device memory: exercises the out-of-memory path.
        fn device_alloc_probe(id: i32, bytes: u64) -> Result<()>;
        /// Element-wise a * b computed on the device (the kernels' multiplier).
        fn gpu_field_mul(id: i32, field: Field, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()>;
        /// In-place Fr NTT of a power-of-two number of Montgomery scalars.
        fn fr_ntt(id: i32, kind: NttKind, data: &mut [u64]) -> Result<()>;
    }
}

// The C++ side asserts the same size (cuda/api/device.cu).
const _: () = assert!(std::mem::size_of::<ffi::DeviceInfo>() == 56);
