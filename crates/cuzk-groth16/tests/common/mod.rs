//! A small test circuit, written once and expanded against both circuit APIs
//! (cuzk-synth and bellpepper-core) so both sides see the same constraints in
//! the same order.
#![allow(dead_code)]

use blstrs::Scalar;
use ff::Field;

/// x_{i+1} = x_i·(x_i + c) for `steps` steps with x_N public; 16 boolean bits
/// packed into a public input; t = x₀·x_N puts an input into B.
#[derive(Clone, Debug)]
pub struct Demo {
    pub x0: Scalar,
    pub c: Scalar,
    pub steps: usize,
    pub bits: u16,
}

impl Demo {
    pub fn new(seed: u64, steps: usize) -> Self {
        // c is part of the circuit (a coefficient), so it is fixed; x₀ and the bits are witness.
        Demo { x0: Scalar::from(seed.wrapping_mul(0x9e37_79b9) | 3), c: Scalar::from(0x5eed_c0de_u64), steps, bits: seed as u16 }
    }

    fn chain_end(&self) -> Scalar {
        (0..self.steps).fold(self.x0, |x, _| x * (x + self.c))
    }

    /// Public inputs without the leading one.
    pub fn public_inputs(&self) -> Vec<Scalar> {
        vec![self.chain_end(), Scalar::from(u64::from(self.bits))]
    }
}

macro_rules! demo_circuit {
    ($name:ident, $krate:ident) => {
        pub struct $name(pub Demo);

        impl $krate::Circuit<Scalar> for $name {
            fn synthesize<CS: $krate::ConstraintSystem<Scalar>>(
                self,
                cs: &mut CS,
            ) -> Result<(), $krate::SynthesisError> {
                let d = self.0;
                let x0 = cs.alloc(|| "x0", || Ok(d.x0))?;
                let (mut x, mut v) = (x0, d.x0);
                for i in 0..d.steps {
                    let next = v * (v + d.c);
                    let nx = cs.alloc(|| format!("x{}", i + 1), || Ok(next))?;
                    cs.enforce(|| format!("step {i}"), |lc| lc + x, |lc| lc + x + (d.c, CS::one()), |lc| lc + nx);
                    x = nx;
                    v = next;
                }
                let out = cs.alloc_input(|| "out", || Ok(v))?;
                cs.enforce(|| "expose", |lc| lc + x, |lc| lc + CS::one(), |lc| lc + out);

                let mut bit_vars = Vec::new();
                for i in 0..16 {
                    let bit = Scalar::from(u64::from(d.bits >> i & 1));
                    let b = cs.alloc(|| format!("bit {i}"), || Ok(bit))?;
                    cs.enforce(|| format!("boolean {i}"), |lc| lc + b, |lc| lc + CS::one() - b, |lc| lc);
                    bit_vars.push(b);
                }
                let packed = cs.alloc_input(|| "packed", || Ok(Scalar::from(u64::from(d.bits))))?;
                cs.enforce(
                    || "pack",
                    |mut lc| {
                        for (i, b) in bit_vars.iter().enumerate() {
                            lc = lc + (Scalar::from(1u64 << i), *b);
                        }
                        lc
                    },
                    |lc| lc + CS::one(),
                    |lc| lc + packed,
                );

                let t = cs.alloc(|| "t", || Ok(d.x0 * v))?;
                cs.enforce(|| "input in B", |lc| lc + x0, |lc| lc + out, |lc| lc + t);
                Ok(())
            }
        }
    };
}

demo_circuit!(CuzkDemo, cuzk_synth);
demo_circuit!(BellDemo, bellpepper_core);

/// A wrong value for the first public input.
pub fn tampered(inputs: &[Scalar]) -> Vec<Scalar> {
    let mut v = inputs.to_vec();
    v[0] += Scalar::ONE;
    v
}
