/// A bitset over the variables of one query (e.g. the aux variables of A),
/// with a bit set for each variable that some constraint uses. Provers skip
/// bases whose bit is clear, and the GPU host takes the words as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DensityTracker {
    words: Vec<u64>,
    len: usize,
    ones: usize,
}

impl DensityTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty tracker with room for `bits` variables.
    pub fn with_capacity(bits: usize) -> Self {
        DensityTracker { words: Vec::with_capacity(bits.div_ceil(64)), len: 0, ones: 0 }
    }

    /// Appends a clear bit (a newly allocated variable).
    pub fn add_element(&mut self) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        self.len += 1;
    }

    /// Sets bit `idx`.
    pub fn inc(&mut self, idx: usize) {
        debug_assert!(idx < self.len);
        let (w, b) = (idx / 64, idx % 64);
        if self.words[w] & (1 << b) == 0 {
            self.words[w] |= 1 << b;
            self.ones += 1;
        }
    }

    /// Joins the tracker of one part of a split circuit: its first
    /// `prefix` bits (the prefix's variables, which the part may use too)
    /// are or-ed into these, the rest appended.
    pub(crate) fn join_part(&mut self, part: &DensityTracker, prefix: usize) {
        for i in 0..prefix.min(part.len).min(self.len) {
            if part.get(i) {
                self.inc(i);
            }
        }
        for i in prefix..part.len {
            self.add_element();
            if part.get(i) {
                self.inc(self.len - 1);
            }
        }
    }

    /// Whether bit `idx` is set.
    pub fn get(&self, idx: usize) -> bool {
        self.words[idx / 64] & (1 << (idx % 64)) != 0
    }

    /// Number of bits (variables tracked).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no variable is tracked.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.ones
    }

    /// The bits, 64 per word, least significant bit first; bits past `len` are zero.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Iterates over the bits.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_bit_once_across_word_boundaries() {
        let mut d = DensityTracker::with_capacity(130);
        for _ in 0..130 {
            d.add_element();
        }
        for i in [0, 63, 64, 129, 64] {
            d.inc(i);
        }
        assert_eq!(d.len(), 130);
        assert_eq!(d.count_ones(), 4);
        assert_eq!(d.words().len(), 3);
        let set: Vec<usize> = d.iter().enumerate().filter(|(_, b)| *b).map(|(i, _)| i).collect();
        assert_eq!(set, vec![0, 63, 64, 129]);
    }
}
