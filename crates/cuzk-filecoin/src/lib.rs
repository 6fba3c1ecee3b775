//! Filecoin's proof kinds for cuzk: PoRep C2, WindowPoSt, WinningPoSt and
//! SnapDeals, from the exact inputs Curio sends, as circuits per partition,
//! the public inputs filecoin-proofs' verifier builds, parameter files in the
//! Filecoin cache layout, and proof bytes in filecoin-proofs' layout.
//!
//! The circuits are filecoin-proofs 19.1's own (storage-proofs-porep, -post
//! and -update), synthesized unchanged through cuzk-synth's bellpepper
//! adapter; nothing here ports or copies them. The crate knows no GPU, engine
//! or gRPC, and reads no environment variable: every directory is an argument.

pub mod cache;
pub mod circuit;
pub mod commitment;
pub mod error;
pub mod kind;
pub mod porep;
mod porep_values;
pub mod post;
pub mod post_values;
pub mod proofs;
pub mod published;
pub mod prover_id;
pub mod reference;
pub mod request;
pub mod snap;
pub mod snap_values;
pub mod split;
pub mod synthetic;
pub mod testdata;
pub mod window_post;
pub mod winning_post;

pub use cache::{ParamCache, ParamFiles};
pub use circuit::{FilecoinCircuit, Shape, ShapeCircuit};
pub use error::FilecoinError;
pub use kind::{CircuitId, KindError, ProofKind, SectorSize};
pub use prover_id::prover_id;
pub use request::Request;

/// A request made ready to prove: one circuit per partition, in partition
/// order, beside the public inputs filecoin-proofs' verifier computes for
/// each partition (without the leading one). Proving consumes the circuits;
/// the inputs stay to check the job's input assignment before the GPU runs
/// and to verify the proof bytes after.
pub struct Partitions {
    /// The shape, which names the parameter file.
    pub circuit_id: CircuitId,
    /// One circuit per partition.
    pub circuits: Vec<FilecoinCircuit>,
    /// The verifier's public inputs per partition.
    pub public_inputs: Vec<Vec<blstrs::Scalar>>,
}
