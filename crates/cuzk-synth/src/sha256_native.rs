//! SHA-256 in plain Rust (FIPS 180-4).
//!
//! The circuit gadgets need the same round constants and initial state, the
//! workloads compute their public inputs without a constraint system, and the
//! test constraint system hashes its constraints; all three use this module.
//! The constants are derived from the primes as the standard defines them
//! rather than typed in, so a typo cannot hide in them.

/// The first 64 primes, whose roots define the constants.
const PRIMES: [u128; 64] = first_primes();

const fn first_primes() -> [u128; 64] {
    let mut out = [0u128; 64];
    let mut found = 0;
    let mut candidate = 2u128;
    while found < 64 {
        let mut d = 2;
        let mut prime = true;
        while d * d <= candidate {
            if candidate % d == 0 {
                prime = false;
                break;
            }
            d += 1;
        }
        if prime {
            out[found] = candidate;
            found += 1;
        }
        candidate += 1;
    }
    out
}

/// The largest `r` with `r^k <= n`, by bisection over `[0, 2^bits)`.
const fn integer_root(n: u128, k: u32, bits: u32) -> u128 {
    let (mut lo, mut hi) = (0u128, 1u128 << bits);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if mid.pow(k) <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The first 32 fractional bits of the square roots of the first 8 primes.
pub const IV: [u32; 8] = {
    let mut out = [0u32; 8];
    let mut i = 0;
    while i < 8 {
        out[i] = integer_root(PRIMES[i] << 64, 2, 40) as u32;
        i += 1;
    }
    out
};

/// The first 32 fractional bits of the cube roots of the first 64 primes.
pub const ROUND_CONSTANTS: [u32; 64] = {
    let mut out = [0u32; 64];
    let mut i = 0;
    while i < 64 {
        out[i] = integer_root(PRIMES[i] << 96, 3, 40) as u32;
        i += 1;
    }
    out
};

/// Applies the compression function to `state` for one 16-word block
/// (words big-endian as the standard reads them). No padding.
pub fn compress(state: &mut [u32; 8], block: &[u32; 16]) {
    let mut w = [0u32; 64];
    w[..16].copy_from_slice(block);
    for i in 16..64 {
        let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
        let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for i in 0..64 {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 =
            h.wrapping_add(s1).wrapping_add(ch).wrapping_add(ROUND_CONSTANTS[i]).wrapping_add(w[i]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = s.wrapping_add(v);
    }
}

/// Compresses one 64-byte block.
pub fn compress_bytes(state: &mut [u32; 8], block: &[u8; 64]) {
    let mut words = [0u32; 16];
    for (w, chunk) in words.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    compress(state, &words);
}

/// An incremental SHA-256 hasher with the standard padding.
#[derive(Clone, Debug)]
pub struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    filled: usize,
    length: u64,
}

impl Default for Sha256 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha256 {
    /// A hasher at the initial state.
    pub fn new() -> Self {
        Sha256 { state: IV, block: [0; 64], filled: 0, length: 0 }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        self.length = self.length.wrapping_add(data.len() as u64);
        while !data.is_empty() {
            let take = (64 - self.filled).min(data.len());
            self.block[self.filled..self.filled + take].copy_from_slice(&data[..take]);
            self.filled += take;
            data = &data[take..];
            if self.filled == 64 {
                compress_bytes(&mut self.state, &self.block);
                self.filled = 0;
            }
        }
    }

    /// Pads and returns the digest.
    pub fn finalize(mut self) -> [u8; 32] {
        let bit_length = self.length.wrapping_mul(8);
        self.update(&[0x80]);
        while self.filled != 56 {
            self.update(&[0]);
        }
        self.update(&bit_length.to_be_bytes());
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.state) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }
}

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(data);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use sha2::Digest;

    #[test]
    fn derived_constants_match_the_standard_endpoints() {
        assert_eq!(IV[0], 0x6a09_e667);
        assert_eq!(IV[7], 0x5be0_cd19);
        assert_eq!(ROUND_CONSTANTS[0], 0x428a_2f98);
        assert_eq!(ROUND_CONSTANTS[63], 0xc671_78f2);
    }

    #[test]
    fn padding_boundaries_match_sha2() {
        for len in [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 128] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            assert_eq!(sha256(&data)[..], sha2::Sha256::digest(&data)[..], "length {len}");
        }
    }

    proptest! {
        #[test]
        fn digest_matches_sha2(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(&sha256(&data)[..], &sha2::Sha256::digest(&data)[..]);
        }

        #[test]
        fn compression_matches_sha2(
            block in proptest::array::uniform32(any::<u16>()),
            state in proptest::array::uniform8(any::<u32>()),
        ) {
            let bytes: Vec<u8> = block.iter().flat_map(|v| v.to_be_bytes()).collect();
            let block: [u8; 64] = bytes.try_into().unwrap();
            let mut ours = state;
            compress_bytes(&mut ours, &block);
            let mut theirs = state;
            sha2::compress256(&mut theirs, &[block.into()]);
            prop_assert_eq!(ours, theirs);
        }
    }
}
