//! What a request proves: the proof kind and the sector size, which together
//! fix the circuit's shape and so the parameter file (a `CircuitId`).

use std::fmt;
use std::str::FromStr;


/// The four proof kinds a storage provider's prover is asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProofKind {
    /// Seal commit phase 2: one proof per PoRep partition.
    PoRepC2,
    /// One WindowPoSt partition.
    WindowPoSt,
    /// WinningPoSt: one proof over one sector, challenged 66 times.
    WinningPoSt,
    /// SnapDeals (empty sector update): one proof per update partition.
    SnapDeals,
}

impl ProofKind {
    /// Every kind, in the order of Curio's `ProofKind` enum.
    pub const ALL: [ProofKind; 4] =
        [ProofKind::PoRepC2, ProofKind::SnapDeals, ProofKind::WindowPoSt, ProofKind::WinningPoSt];

    /// The prefix of Curio's circuit ids (`porep-32g`, `wpost-32g`, …).
    pub fn short_name(self) -> &'static str {
        match self {
            ProofKind::PoRepC2 => "porep",
            ProofKind::WindowPoSt => "wpost",
            ProofKind::WinningPoSt => "winning",
            ProofKind::SnapDeals => "snap",
        }
    }
}

/// The sector sizes Filecoin registers proofs for. 2 KiB, 8 MiB and 512 MiB
/// are test sizes (one PoRep partition, two sectors per WindowPoSt partition);
/// 32 GiB and 64 GiB are production.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SectorSize {
    /// 2 KiB (test).
    Kib2,
    /// 8 MiB (test).
    Mib8,
    /// 512 MiB (test).
    Mib512,
    /// 32 GiB.
    Gib32,
    /// 64 GiB.
    Gib64,
}

impl SectorSize {
    /// Every size, smallest first.
    pub const ALL: [SectorSize; 5] =
        [SectorSize::Kib2, SectorSize::Mib8, SectorSize::Mib512, SectorSize::Gib32, SectorSize::Gib64];

    /// The size in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            SectorSize::Kib2 => 2 << 10,
            SectorSize::Mib8 => 8 << 20,
            SectorSize::Mib512 => 512 << 20,
            SectorSize::Gib32 => 32 << 30,
            SectorSize::Gib64 => 64 << 30,
        }
    }

    /// The size for a byte count, or an error naming the count.
    pub fn from_bytes(bytes: u64) -> Result<SectorSize, KindError> {
        SectorSize::ALL
            .into_iter()
            .find(|s| s.bytes() == bytes)
            .ok_or(KindError::UnsupportedSectorSize { bytes })
    }

    /// The suffix of Curio's circuit ids: `2k`, `8m`, `512m`, `32g`, `64g`.
    pub fn short_name(self) -> &'static str {
        match self {
            SectorSize::Kib2 => "2k",
            SectorSize::Mib8 => "8m",
            SectorSize::Mib512 => "512m",
            SectorSize::Gib32 => "32g",
            SectorSize::Gib64 => "64g",
        }
    }

    /// True for the sizes only tests and development networks use.
    pub fn is_test_size(self) -> bool {
        matches!(self, SectorSize::Kib2 | SectorSize::Mib8 | SectorSize::Mib512)
    }
}

impl fmt::Display for SectorSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (n, unit) = match self {
            SectorSize::Kib2 => (2, "KiB"),
            SectorSize::Mib8 => (8, "MiB"),
            SectorSize::Mib512 => (512, "MiB"),
            SectorSize::Gib32 => (32, "GiB"),
            SectorSize::Gib64 => (64, "GiB"),
        };
        write!(f, "{n} {unit}")
    }
}

/// Reads a size as Display writes it, with or without the space (`32GiB`,
/// `32 GiB`), as Curio's short name (`32g`) or as the byte count
/// (`34359738368`), in any case and ignoring whitespace. The one parser of
/// sector sizes, so that the CLI, the benches and the tools accept the same
/// spellings.
impl FromStr for SectorSize {
    type Err = KindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let want = s.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        SectorSize::ALL
            .into_iter()
            .find(|size| {
                let long = size.to_string().replace(' ', "").to_ascii_lowercase();
                want == long || want == size.short_name() || want == size.bytes().to_string()
            })
            .ok_or_else(|| KindError::BadSectorSize { given: s.into() })
    }
}

/// A circuit shape: a kind at a sector size. One parameter file per id.
/// Written as Curio names SRS entries: `porep-32g`, `wpost-2k`, `snap-512m`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CircuitId {
    /// The proof kind.
    pub kind: ProofKind,
    /// The sector size.
    pub sector_size: SectorSize,
}

impl CircuitId {
    /// The id of `kind` at `sector_size`.
    pub fn new(kind: ProofKind, sector_size: SectorSize) -> Self {
        CircuitId { kind, sector_size }
    }

    /// Every kind at every size.
    pub fn all() -> impl Iterator<Item = CircuitId> {
        ProofKind::ALL.into_iter().flat_map(|k| SectorSize::ALL.into_iter().map(move |s| CircuitId::new(k, s)))
    }
}

impl fmt::Display for CircuitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.kind.short_name(), self.sector_size.short_name())
    }
}

impl FromStr for CircuitId {
    type Err = KindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CircuitId::all().find(|id| id.to_string() == s).ok_or_else(|| KindError::UnknownCircuitId { id: s.into() })
    }
}

/// A sector size or circuit id that is not one of Filecoin's (a
/// [`crate::FilecoinError`] through its `Kind` variant; its own type, so
/// that this module does not import the error module, which names
/// [`CircuitId`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KindError {
    /// A sector size Filecoin registers no proof for.
    #[error("unsupported sector size {bytes} bytes (Filecoin proves 2 KiB, 8 MiB, 512 MiB, 32 GiB and 64 GiB sectors)")]
    UnsupportedSectorSize {
        /// The size asked for.
        bytes: u64,
    },
    /// A sector size written in no spelling `SectorSize`'s `FromStr` reads.
    #[error("{given:?} is not a sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB; also written 32 GiB, 32g or in bytes)")]
    BadSectorSize {
        /// The text given.
        given: String,
    },
    /// A circuit id that is not a kind at a supported size.
    #[error("unknown circuit id {id:?} (expected <porep|wpost|winning|snap>-<2k|8m|512m|32g|64g>)")]
    UnknownCircuitId {
        /// The id given.
        id: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuit_ids_round_trip_and_are_distinct() {
        let ids: Vec<_> = CircuitId::all().collect();
        assert_eq!(ids.len(), 20);
        for id in &ids {
            assert_eq!(id.to_string().parse::<CircuitId>().unwrap(), *id);
        }
        assert_eq!(CircuitId::new(ProofKind::PoRepC2, SectorSize::Gib32).to_string(), "porep-32g");
        let err = "porep-1g".parse::<CircuitId>().unwrap_err();
        assert!(err.to_string().contains("porep-1g"), "{err}");
    }

    #[test]
    fn sector_sizes_from_bytes() {
        for s in SectorSize::ALL {
            assert_eq!(SectorSize::from_bytes(s.bytes()).unwrap(), s);
        }
        assert_eq!(SectorSize::Gib32.bytes(), 34_359_738_368);
        assert!(matches!(SectorSize::from_bytes(4096), Err(KindError::UnsupportedSectorSize { bytes: 4096 })));
    }

    #[test]
    fn sector_sizes_parse_in_every_spelling() {
        for size in SectorSize::ALL {
            let long = size.to_string();
            let spellings = [
                long.clone(),
                long.replace(' ', ""),
                long.to_ascii_lowercase(),
                long.to_ascii_uppercase().replace(' ', ""),
                format!("  {long} "),
                size.short_name().to_string(),
                size.short_name().to_ascii_uppercase(),
                size.bytes().to_string(),
            ];
            for s in spellings {
                assert_eq!(s.parse::<SectorSize>().unwrap(), size, "{s:?}");
            }
        }
        assert_eq!("32GiB".parse::<SectorSize>().unwrap(), SectorSize::Gib32);
        assert_eq!("34359738368".parse::<SectorSize>().unwrap(), SectorSize::Gib32);
        assert_eq!("2 kib".parse::<SectorSize>().unwrap(), SectorSize::Kib2);
    }

    #[test]
    fn bad_sector_sizes_are_named() {
        for bad in ["4KiB", "", "2KB", "32 GB", "4096", "1g"] {
            let err = bad.parse::<SectorSize>().unwrap_err();
            assert!(matches!(&err, KindError::BadSectorSize { given } if given == bad), "{bad:?}: {err}");
            let message = err.to_string();
            assert!(message.contains(&format!("{bad:?}")), "{message}");
            assert!(message.contains("2KiB, 8MiB, 512MiB, 32GiB, 64GiB"), "{message}");
        }
    }
}
