//! The hook bridge: C++ functions that exist for tests and benchmarks, kept
//! apart from the production bridge (`crate::ffi`) so the prover's API is the
//! one in lib.rs. The hooks run the kernels' field, curve and index code and
//! the host function's CPU parts on the CPU (host tests in CI, no GPU), probe
//! a device, time kernels for the benchmarks, throw every error kind on
//! demand, and make the prover's allocations fail one at a time. Types shared with the production bridge are aliases of its own,
//! so each has one definition.

/// The cxx bridge of the hooks (its C++ under cpp/hooks/, the device hooks
/// in cuda/api/device.cu and cuda/api/bench.cu).
#[cxx::bridge(namespace = "cuzk")]
pub mod ffi {
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
        /// a + b through the device's carry-chain schedule (`add_chain`),
        /// run on the host against an emulated carry flag; prime fields only.
        AddChain,
        /// a - b through the device schedule `sub_chain`, emulated; prime fields only.
        SubChain,
        /// a * b through the device schedule `mul_chain`, emulated; for Fp2
        /// its own device schedule, Karatsuba with deferred reductions (`mul_lazy`).
        MulChain,
        /// a * b as the full product (`mul_wide_chain`) then its Montgomery
        /// reduction (`redc_wide_chain`), emulated; prime fields only.
        WideMulChain,
        /// a^2 through the device schedule `sqr_chain`, emulated; prime fields only.
        SqrChain,
        /// a * b in the lazily reduced form of the G1 accumulation (ff/loose.hpp:
        /// inputs and result below 2p, the result not reduced further), emulated; Fp only.
        LooseMul,
        /// a^2 in the lazily reduced form, emulated; Fp only.
        LooseSqr,
        /// a + b in the lazily reduced form (modulo 2p), emulated; Fp only.
        LooseAdd,
        /// a - b in the lazily reduced form (modulo 2p), emulated; Fp only.
        LooseSub,
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

    /// An error kind of cuda/util/error.hpp, for `throw_error_kind`.
    #[derive(Debug)]
    enum ErrorKind {
        /// `no_gpu`.
        NoGpu,
        /// `no_device(id=7,count=2)`.
        NoDevice,
        /// `cuda_oom(requested=2^40,free=12345)`.
        CudaOom,
        /// `cuda_error(702)`.
        CudaError,
        /// `invalid_input`.
        InvalidInput,
        /// `unsatisfied(row=4096)`.
        Unsatisfied,
        /// A std::bad_alloc, which carries no kind.
        Host,
    }

    /// Host hook output: the split of one query over a batch
    /// (cpp/groth16/split.hpp), flattened, so tests can check it on the CPU.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct Groth16Split {
        /// Bases in the query.
        pub len: u64,
        /// True when every base gets a plain MSM (no bitmaps, no tail).
        pub dense: bool,
        /// Sparse: per circuit, ceil(len / 64) words of its ones bitmap, concatenated.
        pub ones: Vec<u64>,
        /// Sparse: the tail's base positions, ascending.
        pub tail: Vec<u32>,
        /// Per circuit, its tail (sparse) or all (dense A and B; none for dense L) scalars, 4 limbs each, concatenated.
        pub scalars: Vec<u64>,
    }

    /// What the allocation fault hook counted between its arm and disarm.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct AllocCount {
        /// Device, pool and pinned allocations attempted (an injected
        /// failure counts; a zero-byte request, which allocates nothing, does not).
        pub allocations: u64,
        /// Bytes allocated minus bytes released: 0 when everything taken
        /// was given back, negative when memory from before was released too.
        pub net_bytes: i64,
    }

    unsafe extern "C++" {
        include!("cuzk-ffi/src/lib.rs.h");

        /// Which Fr transform (the production bridge's).
        type NttKind = crate::ffi::NttKind;
        /// A resident device array (the production bridge's).
        type DeviceArray = crate::ffi::DeviceArray;
        /// One constraint matrix (the production bridge's).
        type R1csMatrix<'a> = crate::ffi::R1csMatrix<'a>;
        /// One circuit of the host function (the production bridge's).
        type Groth16Circuit<'a> = crate::ffi::Groth16Circuit<'a>;
        /// The host function's stage times (the production bridge's).
        type Groth16Timings = crate::ffi::Groth16Timings;
    }

    unsafe extern "C++" {
        include!("cpp/hooks/hooks.hpp");

        /// Writes the modulus, R and R^2 of a prime field as limbs and returns -p^-1 mod 2^32.
        fn field_constants(field: Field, modulus: &mut [u64], one: &mut [u64], r2: &mut [u64]) -> Result<u32>;
        /// Host-compiled field arithmetic on Montgomery limbs.
        fn field_op(field: Field, op: FieldOp, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()>;
        /// Host-compiled curve arithmetic on limbs (through the XYZZ form).
        fn curve_op(curve: Curve, op: CurveOp, p: &[u64], q: &[u64], out: &mut [u64]) -> Result<()>;
        /// The primitive 2^log_n-th root of unity the NTT kernels use.
        fn ntt_root_of_unity(log_n: u32, out: &mut [u64]) -> Result<()>;
        /// Host hook: the FP64-limb Montgomery product of Fp (cuda/ff/fp64.hpp)
        /// on the CPU, for 6-limb Montgomery values below 2p; canonical result.
        fn fp64_mul_host(a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()>;

        /// Allocates, fills and frees `bytes` of device memory: exercises the out-of-memory path.
        fn device_alloc_probe(id: i32, bytes: u64) -> Result<()>;
        /// Element-wise a * b computed on the device (the kernels' multiplier).
        fn gpu_field_mul(id: i32, field: Field, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()>;

        /// Host hook: the kernels' signed digits of a Montgomery scalar for window width `window_bits`.
        fn msm_signed_digits(scalar: &[u64], window_bits: u32) -> Result<Vec<i32>>;
        /// Host hook: an MSM over a table of precomputed copies, over integers mod 2^64.
        fn msm_table_model(scalars: &[u64], values: &[u64], copies: u32) -> Result<u64>;
        /// Host hook: the kernels' bucket accumulation and window reduction over integers mod 2^64.
        fn msm_reduce_model(
            keys: &[u32],
            values: &[u64],
            threads: u64,
            buckets: u32,
            buckets_per_window: u32,
            segment_len: u32,
        ) -> Result<Vec<u64>>;
        /// Host hook: the batch addition of bitmaps laid end to end over
        /// integers mod 2^64 (base i is values[i]; 64 values per bitmap word),
        /// one sum per bitmap, with the kernel's shares for `threads` threads.
        fn batch_add_model(bitmaps: &[u64], values: &[u64], threads: u64) -> Result<Vec<u64>>;

        /// Host hook: `fixed_base_mul`'s result from the kernels' point code run on
        /// the host, converted to affine in `stride` strided runs.
        fn fixed_base_host(
            curve: Curve,
            table: &[u64],
            window_bits: u32,
            scalars: &[u64],
            stride: u64,
            out: &mut [u64],
        ) -> Result<()>;

        /// Host hook: the same checks and row code on the CPU; `abc` is a, then b, then c.
        fn r1cs_evaluate_host<'a>(
            a: &R1csMatrix<'a>,
            b: &R1csMatrix<'a>,
            c: &R1csMatrix<'a>,
            coefficients: &[u64],
            inputs: &[u64],
            aux: &[u64],
            abc: &mut [u64],
        ) -> Result<()>;

        /// Host hook: the split of query `query` (0 = L, 1 = A, 2 = B) over `circuits` on `threads` threads,
        /// for a device that compacts the aux assignment (`compact`) or not.
        fn groth16_split_hook<'a>(circuits: &[Groth16Circuit<'a>], query: u8, threads: u32, compact: bool) -> Result<Groth16Split>;
        /// Host hook: the epilogue on ΣA, ΣB1, ΣB2, ΣL, ΣH (Jacobian limbs) and r, s.
        fn groth16_epilogue_hook(vk: &[u64], sums: &[u64], rs: &[u64], proof: &mut [u8]) -> Result<()>;
        /// Host hook: the split's stepwise release of pages over buffer[first..first + len]
        /// (whole pages inside it read zero afterwards, every other byte is kept).
        fn release_pages_hook(buffer: &mut [u8], first: usize, len: usize) -> Result<()>;
        /// The `CUZK_TIMING:` line a call with these timings prints (no newline).
        fn groth16_timing_line(timings: &Groth16Timings) -> String;
        /// Counts the prover's device, pool and pinned allocations from zero
        /// (cuda/util/alloc_fault.hpp); the `fail_at`-th (1-based) fails as
        /// the driver's out-of-memory would (0: none fails). Process-wide.
        fn alloc_faults_arm(fail_at: u64);
        /// Stops counting; what was counted since the arm.
        fn alloc_faults_disarm() -> AllocCount;
        /// Throws an error of `kind` with fixed arguments (see `ErrorKind`).
        fn throw_error_kind(kind: ErrorKind) -> Result<()>;
    }

    unsafe extern "C++" {
        include!("cuda/api/bench.hpp");

        /// Runs an Fr transform of a resident scalar array `runs` times (tables built once);
        /// returns each run's device milliseconds and, if `out` is not empty, the result.
        fn fr_ntt_timed(input: &DeviceArray, kind: NttKind, runs: u32, out: &mut [u64]) -> Result<Vec<f32>>;
        /// `threads` dependent chains of `iters` Fp multiplications (x = seeds[t % k] * y^iters,
        /// y = seeds[(t + 1) % k]); the first results go to `sample`; returns device milliseconds.
        fn fp_mul_chain(id: i32, seeds: &[u64], threads: u64, iters: u32, sample: &mut [u64]) -> Result<f32>;
        /// `fp_mul_chain` through the FP64-limb product (cuda/ff/fp64.hpp): the
        /// operands converted once, the chain in that form, the result converted back.
        fn fp64_mul_chain(id: i32, seeds: &[u64], threads: u64, iters: u32, sample: &mut [u64]) -> Result<f32>;
        /// `threads` chains of `iters` G1 mixed additions (bases[t % k] + bases[(t + 1) % k] + ...),
        /// XYZZ results of the first threads to `sample`; returns device milliseconds.
        fn g1_add_chain(id: i32, bases: &[u64], threads: u64, iters: u32, sample: &mut [u64]) -> Result<f32>;
    }
}
