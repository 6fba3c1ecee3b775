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
}
