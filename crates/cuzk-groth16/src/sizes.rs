//! The size rule: how long each query of a parameter set must be for a
//! circuit, written once for every backend (the CPU prover checks host
//! parameters, the GPU side an SRS in device memory).
//!
//! A query that is longer or shorter than the circuit needs means the
//! parameters were made for another circuit: proving would read the wrong
//! bases (or past the end) and produce a proof that cannot verify, so every
//! backend refuses before any work, naming the query and both lengths.

use blstrs::Scalar;
use cuzk_synth::ProvingAssignment;

use crate::domain::Domain;
use crate::error::Error;

/// The query lengths of a parameter set, wherever its bases live.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueryLengths {
    /// IC points of the verifying key: public inputs with the constant one.
    pub ic: usize,
    /// H query: domain size − 1.
    pub h: usize,
    /// L query: private variables.
    pub l: usize,
    /// A query: inputs and private variables used in A.
    pub a: usize,
    /// B query in G1: variables used in B.
    pub b_g1: usize,
    /// B query in G2: variables used in B.
    pub b_g2: usize,
}

/// What one circuit needs of a parameter set: its counts, and how many
/// variables its density bitsets mark as used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Constraints, input constraints included (they fix the domain).
    pub constraints: usize,
    /// Public inputs with the constant one.
    pub inputs: usize,
    /// Private variables.
    pub aux: usize,
    /// Private variables used in A (inputs are all used in A).
    pub a_aux_used: usize,
    /// Inputs and private variables used in B.
    pub b_used: usize,
}

impl Needs {
    /// What a synthesized assignment needs.
    pub fn of(pa: &ProvingAssignment<Scalar>) -> Needs {
        Needs {
            constraints: pa.num_constraints(),
            inputs: pa.num_inputs(),
            aux: pa.num_aux(),
            a_aux_used: pa.a_aux_density.count_ones(),
            b_used: pa.b_input_density.count_ones() + pa.b_aux_density.count_ones(),
        }
    }
}

/// Checks every query length against what the circuit needs and returns the
/// size of its evaluation domain. The domain comes first (a circuit too large
/// for any domain is [`Error::DomainTooLarge`] whatever the parameters), then
/// the queries in file order; the first that differs is [`Error::Mismatch`].
pub fn check(lengths: &QueryLengths, needs: &Needs) -> Result<usize, Error> {
    let domain_size = Domain::size_for(needs.constraints)?;
    let checks = [
        ("IC bases (public inputs with the one)", lengths.ic, needs.inputs),
        ("h bases (domain size - 1)", lengths.h, domain_size - 1),
        ("l bases (private variables)", lengths.l, needs.aux),
        ("a bases (inputs + private variables used in A)", lengths.a, needs.inputs + needs.a_aux_used),
        ("b_g1 bases (variables used in B)", lengths.b_g1, needs.b_used),
        ("b_g2 bases (variables used in B)", lengths.b_g2, needs.b_used),
    ];
    for (what, have, need) in checks {
        if have != need {
            return Err(Error::Mismatch { what, have, need });
        }
    }
    Ok(domain_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEEDS: Needs = Needs { constraints: 5, inputs: 2, aux: 3, a_aux_used: 1, b_used: 4 };
    const FITS: QueryLengths = QueryLengths { ic: 2, h: 7, l: 3, a: 3, b_g1: 4, b_g2: 4 };

    fn check_mismatch(lengths: QueryLengths, prefix: &str, have: usize, need: usize) {
        match check(&lengths, &NEEDS) {
            Err(Error::Mismatch { what, have: h, need: n }) => {
                assert!(what.starts_with(prefix), "{what} should start with {prefix}");
                assert_eq!((h, n), (have, need), "{what}");
            }
            other => panic!("expected a mismatch of {prefix}, got {other:?}"),
        }
    }

    #[test]
    fn every_query_is_checked_and_named_with_both_lengths() {
        assert_eq!(check(&FITS, &NEEDS).unwrap(), 8);
        check_mismatch(QueryLengths { ic: 3, ..FITS }, "IC", 3, 2);
        check_mismatch(QueryLengths { h: 8, ..FITS }, "h bases", 8, 7);
        check_mismatch(QueryLengths { l: 2, ..FITS }, "l bases", 2, 3);
        check_mismatch(QueryLengths { a: 5, ..FITS }, "a bases", 5, 3);
        check_mismatch(QueryLengths { b_g1: 3, ..FITS }, "b_g1", 3, 4);
        check_mismatch(QueryLengths { b_g2: 5, ..FITS }, "b_g2", 5, 4);
    }

    #[test]
    fn the_domain_is_checked_before_the_queries() {
        let none = Needs { constraints: 0, ..NEEDS };
        assert!(matches!(check(&QueryLengths { ic: 9, ..FITS }, &none), Err(Error::EmptyDomain)));
    }
}
