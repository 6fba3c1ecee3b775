//! The summary statistics the benchmark commands print.

/// The `p`-th percentile of ascending `sorted` (nearest rank); 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let ms: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!([50.0, 90.0, 99.0, 100.0].map(|p| percentile(&ms, p)), [5.0, 9.0, 10.0, 10.0]);
        assert_eq!(percentile(&[7.0], 50.0), 7.0);
        assert_eq!(percentile(&[], 99.0), 0.0);
    }
}
