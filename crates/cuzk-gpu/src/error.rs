use thiserror::Error;

/// Everything a GPU call can fail with.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GpuError {
    /// No usable GPU: built without CUDA, no driver, or no device present.
    #[error("no GPU: {0}")]
    NoGpu(String),
    /// The device id is not in `0..count`.
    #[error("no CUDA device {id} (this system has {count})")]
    NoDevice {
        /// The id asked for.
        id: i32,
        /// How many devices exist.
        count: i32,
    },
    /// A device allocation failed; the device stays usable.
    #[error("out of device memory: requested {requested} bytes with {free} free")]
    OutOfMemory {
        /// Bytes asked for.
        requested: u64,
        /// Bytes free on the device when the allocation failed.
        free: u64,
    },
    /// Any other CUDA runtime error, with the runtime's error code.
    #[error("CUDA error {code}: {message}")]
    Cuda {
        /// The `cudaError_t` value.
        code: i32,
        /// Call site and the runtime's description.
        message: String,
    },
    /// The caller's input is malformed (wrong length, size not a power of two, ...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The C++ side failed outside CUDA (e.g. a host allocation).
    #[error("host error in the C++ layer: {0}")]
    Host(String),
    /// The witness does not satisfy constraint `row` (the lowest such row,
    /// the one cuzk-synth's CPU evaluation names too).
    #[error("the witness does not satisfy constraint {row}")]
    UnsatisfiedConstraint {
        /// The row, input rows included, in the prover's order.
        row: usize,
    },
    /// The device cannot hold what one prove call needs beside the SRS,
    /// even with every base streamed from host memory.
    #[error(
        "device too small: a call over a domain of {domain} needs {needed} bytes of device memory beside the \
         streamed SRS, and the device has {free} free of {total}"
    )]
    DeviceTooSmall {
        /// The SRS's domain size.
        domain: u64,
        /// Bytes one call needs (placement.rs's working set).
        needed: u64,
        /// Bytes free on the device.
        free: u64,
        /// The device's bytes (its cap, when one is set).
        total: u64,
    },
    /// An SRS query does not have the size an assignment needs.
    #[error("SRS mismatch: {what}: the SRS has {have}, the assignment needs {need}")]
    SrsMismatch {
        /// Which query.
        what: &'static str,
        /// Its size in the SRS.
        have: usize,
        /// The size the assignment needs.
        need: usize,
    },
}

impl From<cuzk_ffi::Exception> for GpuError {
    fn from(e: cuzk_ffi::Exception) -> Self {
        GpuError::parse(e.what())
    }
}

impl GpuError {
    /// Parses a bridge message `kind[(key=value,...)]: detail` (cuda/util/error.hpp).
    pub fn parse(message: &str) -> GpuError {
        let (head, detail) = message.split_once(": ").unwrap_or((message, ""));
        let (kind, args) = match head.split_once('(') {
            Some((k, rest)) => (k, rest.strip_suffix(')').unwrap_or(rest)),
            None => (head, ""),
        };
        let arg = |key: &str| -> Option<&str> {
            args.split(',').find_map(|kv| kv.split_once('=').filter(|(k, _)| *k == key).map(|(_, v)| v))
        };
        let parsed = match kind {
            "no_gpu" => Some(GpuError::NoGpu(detail.to_string())),
            "no_device" => (|| {
                Some(GpuError::NoDevice { id: arg("id")?.parse().ok()?, count: arg("count")?.parse().ok()? })
            })(),
            "cuda_oom" => (|| {
                Some(GpuError::OutOfMemory {
                    requested: arg("requested")?.parse().ok()?,
                    free: arg("free")?.parse().ok()?,
                })
            })(),
            "cuda_error" => args.parse().ok().map(|code| GpuError::Cuda { code, message: detail.to_string() }),
            "invalid_input" => Some(GpuError::InvalidInput(detail.to_string())),
            "unsatisfied" => arg("row").and_then(|r| r.parse().ok()).map(|row| GpuError::UnsatisfiedConstraint { row }),
            _ => None,
        };
        parsed.unwrap_or_else(|| GpuError::Host(message.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::GpuError;

    fn check(message: &str, expected: GpuError) {
        assert_eq!(GpuError::parse(message), expected, "parsing {message:?}");
    }

    #[test]
    fn parses_every_kind() {
        check("no_gpu: no driver", GpuError::NoGpu("no driver".into()));
        check("no_device(id=3,count=1): no CUDA device with this id", GpuError::NoDevice { id: 3, count: 1 });
        check(
            "cuda_oom(requested=1125899906842624,free=42): cudaMalloc failed",
            GpuError::OutOfMemory { requested: 1 << 50, free: 42 },
        );
        check(
            "cuda_error(702): k at a.cu:3: cudaErrorLaunchTimeout",
            GpuError::Cuda { code: 702, message: "k at a.cu:3: cudaErrorLaunchTimeout".into() },
        );
        check("invalid_input: size 3 is not a power of two", GpuError::InvalidInput("size 3 is not a power of two".into()));
        check("unsatisfied(row=4096): a·b ≠ c", GpuError::UnsatisfiedConstraint { row: 4096 });
    }

    #[test]
    fn unknown_or_malformed_messages_are_host_errors() {
        check("std::bad_alloc", GpuError::Host("std::bad_alloc".into()));
        check("no_device(id=x): y", GpuError::Host("no_device(id=x): y".into()));
        check("cuda_error(abc): y", GpuError::Host("cuda_error(abc): y".into()));
        check("unsatisfied(row=-1): y", GpuError::Host("unsatisfied(row=-1): y".into()));
    }
}
