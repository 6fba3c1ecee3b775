//! Placeholder: the window_post kind (being written). Contract every kind module keeps:
//! `cache_identifier(size)` (filecoin-proofs' parameter-set identifier) and
//! `blank_circuit(size)` (the circuit without values, for setup and recording).

use crate::{FilecoinCircuit, FilecoinError, SectorSize};

/// filecoin-proofs' cache identifier of this kind at `size`.
pub fn cache_identifier(size: SectorSize) -> Result<String, FilecoinError> {
    todo!("{size}")
}

/// The circuit of this kind at `size` with no values.
pub fn blank_circuit(size: SectorSize) -> Result<FilecoinCircuit, FilecoinError> {
    todo!("{size}")
}
