use thiserror::Error;

/// Why synthesis (or a later step that shares bellpepper's error vocabulary) failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SynthesisError {
    /// A witness value was asked for while synthesizing without one (e.g. during setup).
    #[error("an assignment for a variable could not be computed")]
    AssignmentMissing,
    /// A gadget divided by zero while computing a witness.
    #[error("division by zero")]
    DivisionByZero,
    /// The witness does not satisfy a constraint.
    #[error("unsatisfiable constraint system")]
    Unsatisfiable,
    /// The circuit has more constraints than the largest supported evaluation domain.
    #[error("polynomial degree is too large")]
    PolynomialDegreeTooLarge,
    /// A point at infinity appeared where the protocol forbids it.
    #[error("encountered an identity element in the CRS")]
    UnexpectedIdentity,
    /// A variable appears in no constraint.
    #[error("auxiliary variable was unconstrained")]
    UnconstrainedVariable,
    /// A benchmark workload was asked for by an unknown name or with size zero.
    #[error("invalid workload: {0}")]
    InvalidWorkload(String),
    /// The circuit reported its own failure.
    #[error("circuit error: {0}")]
    Circuit(String),
    /// A part of a circuit cut by `Circuit::split` does not begin with the
    /// prefix's values and constraints: the circuit's split is wrong.
    #[error("part {part} of a split circuit does not begin with the circuit's prefix")]
    SplitMismatch {
        /// The part's index, from 0.
        part: usize,
    },
    /// A circuit given to a recorded shape does not have the recorded shape
    /// (counts or the allocation trace differ): it must be recorded anew.
    #[error("circuit does not match its recorded shape: {what} is {found}, the recording has {recorded}")]
    ShapeMismatch {
        /// Which count or fingerprint differs.
        what: &'static str,
        /// The recorded value.
        recorded: u64,
        /// The circuit's value.
        found: u64,
    },
    /// A row of the recorded matrices is not satisfied by the witness:
    /// either the recording is stale (the circuit's coefficients changed) or
    /// the witness is wrong.
    #[error("constraint {0} is not satisfied: the recording is stale or the witness is wrong")]
    UnsatisfiedConstraint(usize),
    /// A witness replayed from a recording's rows (`RecordedShape::replay`)
    /// could not be computed; the message names the row.
    #[error("witness replay from the recorded rows failed: {0}")]
    Replay(String),
    /// A circuit exceeds what a recording can index (32-bit columns and row offsets).
    #[error("circuit too large to record: {0}")]
    RecordingTooLarge(String),
    /// Reading or writing a recording file failed.
    #[error("recording file I/O: {0}")]
    RecordingIo(String),
    /// A recording file ends before its declared length.
    #[error("recording file is truncated: {found} bytes, {expected} expected")]
    RecordingTruncated {
        /// Bytes the header (or the header's own size) requires.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The file does not start with a recording's magic bytes.
    #[error("not a cuzk recording file (bad magic bytes)")]
    RecordingBadMagic,
    /// The file was written in a format version this build does not read.
    #[error("recording file format version {found} is not supported (this build reads version {supported})")]
    RecordingVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// The file's checksum does not match its contents.
    #[error("recording file checksum mismatch: the file is corrupt")]
    RecordingChecksum,
    /// The file's checksum matches but its contents are inconsistent (a
    /// count, column or coefficient out of range, another field).
    #[error("recording file is malformed: {0}")]
    RecordingMalformed(String),
}
