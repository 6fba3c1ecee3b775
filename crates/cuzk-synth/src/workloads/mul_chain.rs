use ff::PrimeField;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use crate::{Circuit, ConstraintSystem, SynthesisError};

/// Seeds the circuit constant `c`: fixed, so the circuit does not depend on the witness.
const CONSTANT_SEED: u64 = 0x6d75_6c2d_6368_6169;

/// The "mul-chain N" workload: `x_{i+1} = x_i · (x_i + c)` for N steps, one
/// constraint each, `x_0` private and random, `c` a random constant fixed for
/// the workload (it is part of the circuit, so every witness must share it or
/// parameters made for one would not prove another), `x_N` the only public input. Every witness value is a full-width scalar: the
/// worst case for provers that split off zeros and ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulChain<S: PrimeField> {
    n: usize,
    x0: S,
    c: S,
    /// A step whose witness value is off by one (tests of failure paths).
    wrong_at: Option<usize>,
}

impl<S: PrimeField> MulChain<S> {
    /// A chain of `n` steps with `x_0` drawn from `seed`.
    ///
    /// # Panics
    /// If `n` is zero.
    pub fn new(n: usize, seed: u64) -> Self {
        assert!(n > 0, "a mul chain has at least one step");
        let c = S::random(&mut ChaCha20Rng::seed_from_u64(CONSTANT_SEED));
        let x0 = S::random(&mut ChaCha20Rng::seed_from_u64(seed));
        MulChain { n, x0, c, wrong_at: None }
    }

    /// The same chain with the witness value of `x_step` one too large: the
    /// shape is unchanged (parameters made for the chain prove it), but the
    /// witness fails constraint `step` first. Tests use it to show that an
    /// unsatisfied constraint is a typed error, never a proof.
    pub fn with_wrong_value_at(mut self, step: usize) -> Self {
        self.wrong_at = Some(step);
        self
    }

    /// Number of steps (and constraints).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false: a chain has at least one step.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The private start `x_0`.
    pub fn x0(&self) -> S {
        self.x0
    }

    /// The constant `c`.
    pub fn constant(&self) -> S {
        self.c
    }

    /// `x_N`, the one public input, computed natively.
    pub fn public_inputs(&self) -> Vec<S> {
        let mut x = self.x0;
        for _ in 0..self.n {
            x *= x + self.c;
        }
        vec![x]
    }
}

impl<S: PrimeField> Circuit<S> for MulChain<S> {
    fn synthesize<CS: ConstraintSystem<S>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let c = self.c;
        let mut x_value = self.x0;
        let mut x = cs.alloc(|| "x 0", || Ok(x_value))?;
        for i in 1..=self.n {
            x_value *= x_value + c;
            let shown = if self.wrong_at == Some(i) { x_value + S::ONE } else { x_value };
            let next = if i == self.n {
                cs.alloc_input(|| format!("x {i}"), || Ok(shown))?
            } else {
                cs.alloc(|| format!("x {i}"), || Ok(shown))?
            };
            cs.enforce(
                || format!("step {i}"),
                |lc| lc + x,
                |lc| lc + x + (c, CS::one()),
                |lc| lc + next,
            );
            x = next;
        }
        Ok(())
    }
}
