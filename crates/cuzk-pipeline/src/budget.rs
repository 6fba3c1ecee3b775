/// Bytes the engine may hold at once (resident parameters, witnesses, a/b/c
/// and the backend's temporaries), and how many it holds now.
///
/// Not synchronised itself: the engine keeps it under its state lock, so a
/// check and the reservation that follows it are one step.
#[derive(Clone, Debug)]
pub struct MemoryBudget {
    total: u64,
    used: u64,
}

impl MemoryBudget {
    /// A budget of `total` bytes, none used.
    pub fn new(total: u64) -> Self {
        MemoryBudget { total, used: 0 }
    }

    /// The whole budget.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes reserved now.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Reserves `bytes` if they fit; false (and nothing reserved) otherwise.
    pub fn try_reserve(&mut self, bytes: u64) -> bool {
        if self.used + bytes <= self.total {
            self.used += bytes;
            true
        } else {
            false
        }
    }

    /// Counts `bytes` that are held already even past the total; later
    /// reservations wait until enough is released.
    pub fn reserve_held(&mut self, bytes: u64) {
        self.used += bytes;
    }

    /// Returns a reservation.
    pub fn release(&mut self, bytes: u64) {
        debug_assert!(bytes <= self.used, "released more than was reserved");
        self.used -= bytes.min(self.used);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_never_exceed_the_total() {
        let mut b = MemoryBudget::new(100);
        assert!(b.try_reserve(60));
        assert!(!b.try_reserve(41));
        assert_eq!(b.used(), 60);
        assert!(b.try_reserve(40));
        b.release(60);
        assert_eq!(b.used(), 40);
        assert_eq!(b.total(), 100);
    }
}
