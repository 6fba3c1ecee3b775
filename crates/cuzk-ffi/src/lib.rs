//! The bridge to cuzk's C++ host code (cpp/) and CUDA kernels (cuda/), and
//! the only crate of cuzk that contains `unsafe` code.
//!
//! Every fallible C++ function returns `Result`: C++ throws a `cuzk::error`
//! whose message starts with a machine-readable kind (`no_gpu`, `no_device`,
//! `cuda_oom`, `cuda_error`, `invalid_input`, `unsatisfied`, see cuda/util/error.hpp) and cxx
//! turns it into an `Err(cxx::Exception)`; nothing unwinds across the FFI.
//! `cuzk-gpu` parses those kinds into its typed error.

pub mod cast;
/// The second bridge: test and bench hooks, apart from the production API.
pub mod hooks;

pub mod allocator;

/// The error type the bridge returns; its message starts with the error kind.
pub use cxx::Exception;
/// The owning pointer of C++ objects handed to Rust (resident device arrays).
pub use cxx::UniquePtr;

/// Whether this build compiled the CUDA kernels; without them every GPU entry
/// point returns a `no_gpu` error.
pub const CUDA_COMPILED: bool = cfg!(cuzk_cuda);

/// The production bridge: shared types first, then the C++ functions the
/// prover runs. Test and bench hooks live in [`hooks`].
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

    /// What a resident device array holds (cuda/api/msm.hpp).
    #[derive(Debug)]
    enum ArrayKind {
        /// blstrs G1Affine points (12 limbs).
        G1Affine,
        /// blstrs G2Affine points (24 limbs).
        G2Affine,
        /// blstrs Scalars in Montgomery form (4 limbs).
        Scalar,
    }

    /// An MSM up to its per-window sums: the result is
    /// sum_w 2^(window_bits * w) S_w, a chain of doublings the host finishes.
    #[derive(Debug)]
    pub struct MsmWindows {
        /// Window width c of the signed-digit recoding (0 for no scalars).
        pub window_bits: u32,
        /// The window sums S_0, S_1, ... as blstrs Jacobian limbs, lowest window first.
        pub sums: Vec<u64>,
        /// Device time of the call, measured with CUDA events, in milliseconds.
        pub device_ms: f32,
    }

    unsafe extern "C++" {
        include!("cpp/bridge.hpp");

        /// Raises the calling thread's nice value by `steps` (Linux; elsewhere
        /// an `unsupported` error), so the threads that feed the GPUs win
        /// the cores from it.
        fn lower_thread_priority(steps: i32) -> Result<()>;

        /// Number of CUDA devices; `no_gpu` when there is none or no driver.
        fn device_count() -> Result<i32>;
        /// Properties and free memory of one device.
        fn device_info(id: i32) -> Result<DeviceInfo>;
        /// Makes device `id` read as a card of `bytes` total (0: its own size) to every plan;
        /// with `enforce`, the memory above the cap is taken so that exceeding it fails.
        fn set_device_memory_cap(id: i32, bytes: u64, enforce: bool) -> Result<()>;
        /// In-place Fr NTT of a power-of-two number of Montgomery scalars.
        fn fr_ntt(id: i32, kind: NttKind, data: &mut [u64]) -> Result<()>;
    }

    unsafe extern "C++" {
        include!("cuda/api/msm.hpp");

        /// Bases or scalars resident in device memory across calls.
        type DeviceArray;

        /// Copies whole elements of `kind` from host memory to a new array on device `id`.
        fn device_array_upload(id: i32, kind: ArrayKind, data: &[u64]) -> Result<UniquePtr<DeviceArray>>;
        /// A new array of `len` elements on device `id` repeating `pattern`.
        fn device_array_tile(id: i32, kind: ArrayKind, pattern: &[u64], len: u64) -> Result<UniquePtr<DeviceArray>>;
        /// Number of elements of an array.
        fn device_array_len(array: &DeviceArray) -> u64;
        /// Pippenger MSM of the first scalars.len() bases, up to the per-window sums.
        fn msm_windows(bases: &DeviceArray, scalars: &DeviceArray) -> Result<MsmWindows>;
        /// Precomputed copies of the bases for MSMs whose windows share
        /// buckets (cuda/api/msm.hpp).
        fn msm_table(bases: &DeviceArray, copies: u32) -> Result<UniquePtr<DeviceArray>>;
        /// `msm_windows` over a table built from `table_n` bases with `copies`.
        fn msm_windows_table(
            table: &DeviceArray,
            table_n: u64,
            copies: u32,
            scalars: &DeviceArray,
        ) -> Result<MsmWindows>;
        /// For each of the bitmaps laid end to end in `bitmaps` (one bit per
        /// base each), the sum of the bases whose bit is set, as Jacobian
        /// limbs in `out` (one point per bitmap); returns device milliseconds.
        fn batch_add(bases: &DeviceArray, bitmaps: &[u64], out: &mut [u64]) -> Result<f32>;

        /// Host hook: the window width the MSM picks for n scalars of which `wide` are neither 0 nor 1.
        fn msm_window_bits(n: u64, wide: u64) -> u32;
        /// The copies `msm_table` keeps for `len` bases asked for `copies`.
        fn msm_table_copies(len: u64, copies: u32) -> u64;
    }

    unsafe extern "C++" {
        include!("cuda/api/setup.hpp");

        /// s_i·G for every scalar (4 Montgomery limbs each) from G's window table for
        /// `window_bits`-bit windows (cuda/msm/fixed_base.hpp) as affine points of `kind`,
        /// into `out` as affine points, `chunk` scalars at a time on device `device`.
        fn fixed_base_mul(
            device: i32,
            kind: ArrayKind,
            table: &[u64],
            window_bits: u32,
            scalars: &[u64],
            chunk: u64,
            out: &mut [u64],
        ) -> Result<()>;
    }

    /// One constraint matrix of a recorded shape (cuzk-synth's `Csr`):
    /// compressed sparse rows over the columns inputs-then-aux, coefficient
    /// indices at their recorded width in exactly one of `narrow` and `wide`
    /// (a matrix without nonzeros may leave both empty).
    pub struct R1csMatrix<'a> {
        /// rows + 1 offsets into the nonzeros, from 0 to their count.
        pub row_ptr: &'a [u32],
        /// The column of every nonzero.
        pub cols: &'a [u32],
        /// 16-bit coefficient table indices (tables of at most 2^16 entries).
        pub narrow: &'a [u16],
        /// 32-bit coefficient table indices (larger tables).
        pub wide: &'a [u32],
    }

    unsafe extern "C++" {
        include!("cuda/api/spmv.hpp");

        /// A recorded shape (A, B, C and their coefficient table) resident on one device.
        type DeviceR1cs;

        /// Uploads a shape to device `device` after checking every index; `coefficients`
        /// holds 4 Montgomery limbs per table entry, entries 0 and 1 being one and minus one.
        fn r1cs_upload<'a>(
            device: i32,
            a: &R1csMatrix<'a>,
            b: &R1csMatrix<'a>,
            c: &R1csMatrix<'a>,
            coefficients: &[u64],
            num_inputs: u64,
            num_aux: u64,
        ) -> Result<UniquePtr<DeviceR1cs>>;
        /// As r1cs_upload, the matrices left in host memory that the driver pins and maps,
        /// read across the bus by every evaluation (the coefficient table is copied).
        ///
        /// # Safety
        /// The matrices' arrays must stay allocated and unchanged until the shape is
        /// destroyed: [`crate::MappedR1cs`] keeps their owner for as long.
        unsafe fn r1cs_upload_mapped<'a>(
            device: i32,
            a: &R1csMatrix<'a>,
            b: &R1csMatrix<'a>,
            c: &R1csMatrix<'a>,
            coefficients: &[u64],
            num_inputs: u64,
            num_aux: u64,
        ) -> Result<UniquePtr<DeviceR1cs>>;
        /// Bytes of the shape's matrices that its device reads from host memory.
        fn r1cs_host_bytes(shape: &DeviceR1cs) -> u64;
        /// a = A·w, b = B·w, c = C·w on the shape's device, one scalar per row each;
        /// `unsatisfied(row=R)` names the lowest row where a·b ≠ c.
        fn r1cs_evaluate(
            shape: &DeviceR1cs,
            inputs: &[u64],
            aux: &[u64],
            a: &mut [u64],
            b: &mut [u64],
            c: &mut [u64],
        ) -> Result<()>;
    }

    /// One circuit's input to the Groth16 host function: blstrs' Montgomery
    /// limbs of its ProvingAssignment, its density bitsets as words, and its
    /// blinding factors.
    pub struct Groth16Circuit<'a> {
        /// A's evaluation per constraint (4 limbs each).
        pub a: &'a [u64],
        /// B's evaluation per constraint. C's is not passed: for a
        /// satisfying witness it is A's times B's, which the device computes
        /// instead of uploading a third array (4.2 GB per 2^27 circuit).
        pub b: &'a [u64],
        /// Public inputs, the constant one first.
        pub input: &'a [u64],
        /// Private witness.
        pub aux: &'a [u64],
        /// Aux variables used in A, 64 per word.
        pub a_aux_density: &'a [u64],
        /// Inputs used in B.
        pub b_input_density: &'a [u64],
        /// Aux variables used in B.
        pub b_aux_density: &'a [u64],
        /// The blinding factor r.
        pub r: [u64; 4],
        /// The blinding factor s.
        pub s: [u64; 4],
    }

    /// Milliseconds per stage of one host-function call, measured from its entry.
    #[derive(Debug, Clone, Copy, Default, PartialEq)]
    pub struct Groth16Timings {
        /// Entry until the CPU prep thread started.
        pub pre_prep_ms: f64,
        /// Allocating the split vectors (bitmaps, tail scalars).
        pub split_alloc_ms: f64,
        /// The rest of the prep thread: classifying scalars, tail positions, host gathers.
        pub prep_msm_ms: f64,
        /// The quotient (uploads, NTTs) and the H MSM, all circuits.
        pub ntt_msm_h_ms: f64,
        /// Waiting after H for the prep thread to finish (zero when the
        /// split ends before H; it grows when other work takes the cores).
        pub prep_wait_ms: f64,
        /// Batch additions of the ones of L, A, B (G1).
        pub batch_add_ms: f64,
        /// Tail (or dense) MSMs of L, A, B (G1).
        pub tail_msm_ms: f64,
        /// B in G2: batch addition and tail (or dense) MSM.
        pub b_g2_msm_ms: f64,
        /// Combining the sums into compressed proofs.
        pub epilogue_ms: f64,
        /// Entry until just before returning (temporaries go to the freeing thread after).
        pub pre_destructor_ms: f64,
        /// Copying streamed bases from pinned host memory to the device, each copy's time
        /// summed (the copies overlap the MSMs, so this is bus time, not added wall time).
        pub h2d_ms: f64,
        /// Megabytes (10^6 bytes) of bases those copies moved: h2d_mb / h2d_ms is the bus's
        /// achieved rate in GB/s.
        pub h2d_mb: f64,
    }

    unsafe extern "C++" {
        include!("cpp/groth16/bridge.hpp");

        /// An SRS uploaded for one device.
        type Groth16Srs;

        /// Uploads an SRS: `vk` is alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2 as affine limbs;
        /// `resident` the queries to keep in device memory (bits: h 1, l 2, a 4, b_g1 8, b_g2 16;
        /// one that does not fit is streamed), the rest streamed from pinned host memory;
        /// `quotient_layout` how proofs compute H (0 overlapped: five device buffers; 1 lean:
        /// three; 2 spilled: two and c in pinned host memory; cuda/api/quotient.cu); `working_set` the device bytes a call needs beside the SRS (the
        /// h query's MSM table takes only memory beyond it); `stream_chunk` bases per streamed
        /// chunk (0 for the default).
        #[allow(clippy::too_many_arguments)]
        fn groth16_srs_upload(
            device: i32,
            vk: &[u64],
            h: &[u64],
            l: &[u64],
            a: &[u64],
            b_g1: &[u64],
            b_g2: &[u64],
            resident: u8,
            quotient_layout: u8,
            working_set: u64,
            stream_chunk: u64,
        ) -> Result<UniquePtr<Groth16Srs>>;
        /// A timing-only SRS tiled on the device from a few affine points (proofs will not verify).
        #[allow(clippy::too_many_arguments)]
        fn groth16_srs_tiled(
            device: i32,
            vk: &[u64],
            g1_pattern: &[u64],
            g2_pattern: &[u64],
            h: u64,
            l: u64,
            a: u64,
            b: u64,
        ) -> Result<UniquePtr<Groth16Srs>>;
        /// The queries whose bases live in device memory (bits as for the upload).
        fn groth16_srs_resident_queries(srs: &Groth16Srs) -> u8;
        /// The host-to-device rate of pinned copies measured at upload, GB/s (0: nothing streamed).
        fn groth16_srs_h2d_peak_gbps(srs: &Groth16Srs) -> f64;
        /// Frees the device memory kept between calls for reuse (the quotient's buffers of the
        /// last domain size), so that an SRS about to be placed can count it as free.
        fn release_idle_device_memory(device: i32) -> Result<()>;
        /// Waits for the MSM tables the SRS builds in the background; whether h has one.
        fn groth16_srs_wait_for_tables(srs: &Groth16Srs) -> bool;
        /// Proves every circuit on `device`, writing 192 bytes per proof into `proofs`.
        fn generate_groth16_proofs_c<'a>(
            device: i32,
            srs: &Groth16Srs,
            circuits: &[Groth16Circuit<'a>],
            timing: bool,
            proofs: &mut [u8],
        ) -> Result<Groth16Timings>;
        /// As `generate_groth16_proofs_c` for circuits of `shape` (on the SRS's device), whose
        /// a and b are empty: the device computes a, b and c from each witness.
        fn generate_groth16_proofs_recorded_c<'a>(
            device: i32,
            srs: &Groth16Srs,
            shape: &DeviceR1cs,
            circuits: &[Groth16Circuit<'a>],
            timing: bool,
            proofs: &mut [u8],
        ) -> Result<Groth16Timings>;
    }
}

// SAFETY: a DeviceArray is immutable after construction (its device pointer,
// length and kind never change, all its methods are const) and frees its
// memory in its destructor; the CUDA runtime calls on it are thread-safe, so
// it may be shared and dropped across threads.
unsafe impl Send for ffi::DeviceArray {}
// SAFETY: as for Send.
unsafe impl Sync for ffi::DeviceArray {}

// The C++ side asserts the same size (cuda/api/device.cu).
const _: () = assert!(std::mem::size_of::<ffi::DeviceInfo>() == 56);

// SAFETY: a Groth16Srs is immutable after construction (cpp/groth16/srs.hpp)
// and frees its device and pinned memory in its destructor; the CUDA calls
// that read it are thread-safe, so it may be shared and dropped across threads.
unsafe impl Send for ffi::Groth16Srs {}
// SAFETY: as for Send.
unsafe impl Sync for ffi::Groth16Srs {}

// SAFETY: a DeviceR1cs is immutable after construction (cuda/api/spmv.hpp),
// each evaluation allocates its own scratch memory, and it frees its device
// memory in its destructor; the CUDA calls on it are thread-safe, so it may
// be shared and dropped across threads.
unsafe impl Send for ffi::DeviceR1cs {}
// SAFETY: as for Send.
unsafe impl Sync for ffi::DeviceR1cs {}

/// A shape whose matrices stay in host memory (ffi::r1cs_upload_mapped),
/// holding the owner of those arrays for as long as the device reads them.
pub struct MappedR1cs {
    // Declared first: dropped (the arrays unregistered) before the owner.
    raw: UniquePtr<ffi::DeviceR1cs>,
    _owner: std::sync::Arc<dyn std::any::Any + Send + Sync>,
}

/// The matrices A, B, C of a shape and its coefficient limbs, borrowed
/// from their owner.
pub type MatrixViews<'a> = ([ffi::R1csMatrix<'a>; 3], &'a [u64]);

impl MappedR1cs {
    /// Maps the shape that `view` finds in `owner` for `device`. The
    /// owner's arrays must not change while it is shared (no interior
    /// mutability behind `view`'s slices): a recording is immutable.
    pub fn new<O: Send + Sync + 'static>(
        device: i32,
        owner: std::sync::Arc<O>,
        view: impl for<'a> FnOnce(&'a O) -> MatrixViews<'a>,
        num_inputs: u64,
        num_aux: u64,
    ) -> Result<MappedR1cs, cxx::Exception> {
        let ([a, b, c], coefficients) = view(&owner);
        // SAFETY: the slices borrow from `owner`'s contents, which the Arc
        // keeps at one address, allocated and (shared, immutable) unchanged
        // until `raw` is dropped, which the field order puts first.
        let raw = unsafe { ffi::r1cs_upload_mapped(device, &a, &b, &c, coefficients, num_inputs, num_aux)? };
        Ok(MappedR1cs { raw, _owner: owner })
    }

    /// The shape, for evaluations and proofs.
    pub fn shape(&self) -> &ffi::DeviceR1cs {
        &self.raw
    }
}

// The C++ side asserts the same size (cpp/groth16/prove.cpp).
const _: () = assert!(std::mem::size_of::<ffi::Groth16Timings>() == 96);
