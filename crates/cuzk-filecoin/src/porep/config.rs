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

/// Every seal proof in Go's `abi.RegisteredSealProof` numbering: V1 (0-4),
/// V1_1 (5-9), V1_1 Synthetic PoRep (10-14), V1_2 non-interactive (15-19),
/// 2 KiB to 64 GiB within each group.
const BY_ABI_NUMBER: [RegisteredSealProof; 20] = {
    use RegisteredSealProof::*;
    [
        StackedDrg2KiBV1,
        StackedDrg8MiBV1,
        StackedDrg512MiBV1,
        StackedDrg32GiBV1,
        StackedDrg64GiBV1,
        StackedDrg2KiBV1_1,
        StackedDrg8MiBV1_1,
        StackedDrg512MiBV1_1,
        StackedDrg32GiBV1_1,
        StackedDrg64GiBV1_1,
        StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
        StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
    ]
};

/// The seal proof that Go's `abi.RegisteredSealProof` number `number` stands
/// for (what Curio puts in a PoRep request's `registered_proof`), when cuzk
/// proves it: the non-interactive ones are refused as [`supported`] refuses
/// them.
pub fn registered_seal_proof(number: u64) -> Result<RegisteredSealProof, FilecoinError> {
    let proof = usize::try_from(number).ok().and_then(|i| BY_ABI_NUMBER.get(i).copied()).ok_or_else(|| {
        FilecoinError::UnsupportedProof {
            proof: format!("abi.RegisteredSealProof({number})"),
            why: "not a seal proof number (0-4 V1, 5-9 V1_1, 10-14 Synthetic PoRep, 15-19 non-interactive PoRep)",
        }
    })?;
    supported(proof).map(|_| proof)
}

/// Go's `abi.RegisteredSealProof` number of `proof` (the table holds every
/// variant, so `u64::MAX` never shows).
pub fn abi_number(proof: RegisteredSealProof) -> u64 {
    BY_ABI_NUMBER.iter().position(|&p| p == proof).map_or(u64::MAX, |i| i as u64)
}

/// The sector size and configuration of `proof` when cuzk proves it: the
/// interactive PoReps, V1 and V1_1, and Synthetic PoRep, of every size.
///
/// Synthetic PoRep's C2 is the interactive one under its own configuration
/// (checked in filecoin-proofs 19.1 and storage-proofs-porep 19.1,
/// 2026-12-07): the configuration's SyntheticPoRep feature makes
/// `setup_params` select `Challenges::Synth`, from which
/// `PublicInputs::challenges` derives the seed's challenges for partition k
/// among the synthetic ones (from replica_id and comm_r); the circuit takes
/// its challenges from the vanilla proofs and its public inputs; the
/// parameters are V1_1's (their identifier holds only the graph, the layer
/// count, the challenges per partition and the tree); and the replica id
/// hashes the synthetic proof's own porep id.
pub(crate) fn supported(proof: RegisteredSealProof) -> Result<(SectorSize, PoRepConfig), FilecoinError> {
    if proof.feature_enabled(ApiFeature::NonInteractivePoRep) {
        return Err(FilecoinError::UnsupportedProof {
            proof: format!("{proof:?}"),
            why: "non-interactive PoRep's commit proof is a SnarkPack aggregate of its partition proofs, which \
                  cuzk does not build; cuzk proves interactive PoRep (StackedDrg*V1 and *V1_1) and Synthetic \
                  PoRep (*V1_1_Feat_SyntheticPoRep)",
        });
    }
    let size = SectorSize::from_bytes(u64::from(proof.sector_size()))?;
    Ok((size, proof.as_v1_config()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_numbers_are_filecoin_proofs_porep_ids() {
        // filecoin-proofs-api's porep id starts with the proof's registered
        // number (its private REGISTERED_PROOF_IDS table): the same numbering as Go's.
        for (number, proof) in BY_ABI_NUMBER.iter().enumerate() {
            let id = proof.as_v1_config().porep_id;
            assert_eq!(u64::from_le_bytes(id[..8].try_into().unwrap()), number as u64, "{proof:?}");
            assert_eq!(abi_number(*proof), number as u64, "{proof:?}");
        }
        assert_eq!(registered_seal_proof(5).unwrap(), RegisteredSealProof::StackedDrg2KiBV1_1);
        assert_eq!(registered_seal_proof(3).unwrap(), RegisteredSealProof::StackedDrg32GiBV1);
        assert_eq!(registered_seal_proof(10).unwrap(), RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep);
        assert_eq!(registered_seal_proof(13).unwrap(), RegisteredSealProof::StackedDrg32GiBV1_1_Feat_SyntheticPoRep);
        for (number, word) in [(15, "non-interactive"), (19, "non-interactive"), (20, "not a seal proof number")] {
            let err = registered_seal_proof(number).unwrap_err();
            assert!(matches!(err, FilecoinError::UnsupportedProof { .. }) && err.to_string().contains(word), "{err}");
        }
        let err = registered_seal_proof(u64::MAX).unwrap_err().to_string();
        assert!(err.contains("RegisteredSealProof(18446744073709551615)"), "{err}");
    }

    #[test]
    fn interactive_and_synthetic_proofs_only() {
        for size in SectorSize::ALL {
            let (s, cfg) = supported(v1_1(size)).unwrap();
            assert_eq!(s, size);
            assert_eq!(u64::from(cfg.sector_size), size.bytes());
        }
        let (s, _) = supported(RegisteredSealProof::StackedDrg32GiBV1).unwrap();
        assert_eq!(s, SectorSize::Gib32);
        // Synthetic PoRep: V1_1's size and partitions, the synthetic porep id
        // and feature, which selects the synthetic challenges.
        for (number, size) in (10..15).zip(SectorSize::ALL) {
            let proof = BY_ABI_NUMBER[number];
            let (s, cfg) = supported(proof).unwrap();
            let interactive = v1_1(size).as_v1_config();
            assert_eq!((s, cfg.sector_size, cfg.partitions.0), (size, interactive.sector_size, interactive.partitions.0));
            assert_eq!(u64::from_le_bytes(cfg.porep_id[..8].try_into().unwrap()), number as u64);
            assert_ne!(cfg.porep_id, interactive.porep_id);
            assert!(cfg.feature_enabled(ApiFeature::SyntheticPoRep), "{proof:?}");
        }
        let proof = RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep;
        let err = supported(proof).unwrap_err();
        assert!(matches!(err, FilecoinError::UnsupportedProof { .. }), "{err}");
        assert!(err.to_string().contains(&format!("{proof:?}")) && err.to_string().contains("non-interactive"), "{err}");
    }

    /// filecoin-proofs' own parameters of Synthetic PoRep are V1_1's: same
    /// identifier, same challenges per partition, synthetic challenges.
    #[test]
    fn synthetic_porep_shares_v1_1_parameters() {
        use filecoin_proofs::parameters::setup_params;
        use storage_proofs_porep::stacked::Challenges;
        for (number, size) in (10..15).zip(SectorSize::ALL) {
            let synthetic = BY_ABI_NUMBER[number];
            assert_eq!(synthetic.circuit_identifier().unwrap(), v1_1(size).circuit_identifier().unwrap(), "{size}");
            let (_, cfg) = supported(synthetic).unwrap();
            let ours = setup_params(&cfg).unwrap().challenges;
            let theirs = setup_params(&v1_1(size).as_v1_config()).unwrap().challenges;
            assert!(matches!(ours, Challenges::Synth(_)) && matches!(theirs, Challenges::Interactive(_)), "{size}");
            assert_eq!(ours.num_challenges_per_partition(), theirs.num_challenges_per_partition(), "{size}");
        }
    }
}
