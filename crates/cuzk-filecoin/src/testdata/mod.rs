//! Real inputs for the test sector sizes (2 KiB, 8 MiB, 512 MiB), made by
//! filecoin-proofs itself exactly as a storage provider's sealing pipeline
//! makes them, in the form Curio sends them to a prover: sealed sectors
//! (V1_1, or Synthetic PoRep), C1 outputs (raw JSON, and Curio's `c1.json`
//! wrapper), PoSt vanilla proofs (bincode per sector), SnapDeals updates of
//! committed-capacity sectors (bincode per partition, with the three
//! commitments). What tests, benchmarks and `cuzk filecoin test-data` prove.
//!
//! filecoin-proofs reads its own settings from the environment on first use
//! (`FIL_PROOFS_PARENT_CACHE` for the SDR parent cache among them): a caller
//! that must not write under /var/tmp sets them before the first call. This
//! module reads none itself.

mod sector;
mod snap;

pub use sector::{curio_c1_wrapper, SealedSector};
pub use snap::{update, update_proof, SnapInputs};

use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};

use crate::{FilecoinError, SectorSize};

/// The V1_1 seal proof of a sector size (what Curio seals with today).
pub fn seal_proof(size: SectorSize) -> RegisteredSealProof {
    use RegisteredSealProof::*;
    match size {
        SectorSize::Kib2 => StackedDrg2KiBV1_1,
        SectorSize::Mib8 => StackedDrg8MiBV1_1,
        SectorSize::Mib512 => StackedDrg512MiBV1_1,
        SectorSize::Gib32 => StackedDrg32GiBV1_1,
        SectorSize::Gib64 => StackedDrg64GiBV1_1,
    }
}

/// The Synthetic PoRep (FIP-0059) seal proof of a sector size: what Curio
/// seals with when `UseSyntheticPoRep` is on.
pub fn synthetic_seal_proof(size: SectorSize) -> RegisteredSealProof {
    use RegisteredSealProof::*;
    match size {
        SectorSize::Kib2 => StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
        SectorSize::Mib8 => StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
        SectorSize::Mib512 => StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
        SectorSize::Gib32 => StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
        SectorSize::Gib64 => StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
    }
}

/// The WinningPoSt proof type of a sector size.
pub fn winning_proof(size: SectorSize) -> RegisteredPoStProof {
    crate::post::winning_proof(size)
}

/// The WindowPoSt proof type Curio sends for a sector size (Go's V1_1, the
/// api's V1_2).
pub fn window_proof(size: SectorSize) -> RegisteredPoStProof {
    crate::post::window_proof(size)
}

/// Refuses the production sizes: sealing one takes hours and terabytes.
pub fn ensure_test_size(size: SectorSize) -> Result<(), FilecoinError> {
    if size.is_test_size() {
        Ok(())
    } else {
        Err(FilecoinError::input("sector size", format!("{size} sectors cannot be sealed for test data (2 KiB, 8 MiB and 512 MiB can)")))
    }
}
