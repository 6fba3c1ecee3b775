//! Which registered seal proofs cuzk proves, and their filecoin-proofs
//! configuration.

use filecoin_proofs::PoRepConfig;
use filecoin_proofs_api::{ApiFeature, RegisteredSealProof};

use crate::error::FilecoinError;
use crate::kind::SectorSize;

/// The V1_1 seal proof of `size`: what sectors are sealed with today. The
/// parameter files of V1 and V1_1 are the same (their identifier holds
/// neither the porep id nor the api version), so this one names them.
pub(crate) fn v1_1(size: SectorSize) -> RegisteredSealProof {
    match size {
        SectorSize::Kib2 => RegisteredSealProof::StackedDrg2KiBV1_1,
        SectorSize::Mib8 => RegisteredSealProof::StackedDrg8MiBV1_1,
        SectorSize::Mib512 => RegisteredSealProof::StackedDrg512MiBV1_1,
        SectorSize::Gib32 => RegisteredSealProof::StackedDrg32GiBV1_1,
        SectorSize::Gib64 => RegisteredSealProof::StackedDrg64GiBV1_1,
    }
}

/// The sector size and configuration of `proof` when cuzk proves it: the
/// interactive PoReps, V1 and V1_1, of every size.
pub(crate) fn supported(proof: RegisteredSealProof) -> Result<(SectorSize, PoRepConfig), FilecoinError> {
    let refuse = |why| Err(FilecoinError::UnsupportedProof { proof: format!("{proof:?}"), why });
    if proof.feature_enabled(ApiFeature::SyntheticPoRep) {
        return refuse(
            "Synthetic PoRep proves challenges drawn from comm_r against the synthetic proofs kept with the \
             sector; cuzk proves interactive PoRep (StackedDrg*V1 and *V1_1) only",
        );
    }
    if proof.feature_enabled(ApiFeature::NonInteractivePoRep) {
        return refuse(
            "non-interactive PoRep's commit proof is a SnarkPack aggregate of its partition proofs, which cuzk \
             does not build; cuzk proves interactive PoRep (StackedDrg*V1 and *V1_1) only",
        );
    }
    let size = SectorSize::from_bytes(u64::from(proof.sector_size()))?;
    Ok((size, proof.as_v1_config()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interactive_proofs_only() {
        for size in SectorSize::ALL {
            let (s, cfg) = supported(v1_1(size)).unwrap();
            assert_eq!(s, size);
            assert_eq!(u64::from(cfg.sector_size), size.bytes());
        }
        let (s, _) = supported(RegisteredSealProof::StackedDrg32GiBV1).unwrap();
        assert_eq!(s, SectorSize::Gib32);
        for (proof, word) in [
            (RegisteredSealProof::StackedDrg32GiBV1_1_Feat_SyntheticPoRep, "Synthetic"),
            (RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, "non-interactive"),
        ] {
            let err = supported(proof).unwrap_err();
            assert!(matches!(err, FilecoinError::UnsupportedProof { .. }), "{err}");
            assert!(err.to_string().contains(&format!("{proof:?}")) && err.to_string().contains(word), "{err}");
        }
    }
}
