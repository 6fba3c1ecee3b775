//! Which coefficients of a recorded shape are powers of two, read by both
//! the one-row rules (solve.rs) and the packed rows (packed.rs), which
//! therefore do not import each other.

use std::collections::HashMap;

use ff::PrimeField;

/// Per coefficient index: `e` when the coefficient is `2^e`, `e + 512`
/// when it is `−2^e`. A table, not a map: it is read for every term of
/// every row the planner looks at.
pub(super) struct Powers(Vec<u16>);

impl Powers {
    const NONE: u16 = u16::MAX;

    pub(super) fn get(&self, k: u32) -> Option<u16> {
        self.0.get(k as usize).copied().filter(|&e| e != Self::NONE)
    }
}

impl Powers {
    /// The table of `coeffs`: each entry's exponent if it is ±2^e.
    pub(super) fn of<S: PrimeField>(coeffs: &[S]) -> Powers {
        let mut power = Powers(vec![Powers::NONE; coeffs.len()]);
        let mut two_e = S::ONE;
        let lookup: HashMap<Vec<u8>, usize> =
            coeffs.iter().enumerate().map(|(i, c)| (c.to_repr().as_ref().to_vec(), i)).collect();
        for e in 0..S::NUM_BITS as u16 {
            if let Some(&i) = lookup.get(two_e.to_repr().as_ref()) {
                power.0[i] = e;
            }
            if let Some(&i) = lookup.get((-two_e).to_repr().as_ref()) {
                power.0[i] = e + 512;
            }
            two_e = two_e.double();
        }
        power
    }
}
