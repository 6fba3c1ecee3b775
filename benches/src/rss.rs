//! The process's resident set as Linux reports it: the current size and the
//! peak since the last reset (`/proc/self/status`'s VmRSS and VmHWM; writing
//! 5 to `/proc/self/clear_refs` resets the peak, Linux 4.0 and later), so a
//! phase's peak can be read apart from the phases before it. Elsewhere every
//! figure is `None`.

use std::fs;

/// Resets the peak to the current size; false where that is not possible.
pub fn reset_peak() -> bool {
    fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The peak resident set since start or the last [`reset_peak`], in bytes.
pub fn peak_bytes() -> Option<u64> {
    status_field("VmHWM:")
}

/// The current resident set in bytes.
pub fn current_bytes() -> Option<u64> {
    status_field("VmRSS:")
}

fn status_field(name: &str) -> Option<u64> {
    kib_field(&fs::read_to_string("/proc/self/status").ok()?, name).map(|kib| kib * 1024)
}

/// The value of a `Name:   1234 kB` line of a status text.
fn kib_field(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    let mut words = line[name.len()..].split_whitespace();
    let value = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines() {
        let status = "Name:\tx\nVmHWM:\t  20480 kB\nVmRSS:\t   1024 kB\nVmSwap:\t 3 MB\n";
        assert_eq!(kib_field(status, "VmHWM:"), Some(20480));
        assert_eq!(kib_field(status, "VmRSS:"), Some(1024));
        assert_eq!(kib_field(status, "VmSwap:"), None);
        assert_eq!(kib_field(status, "VmPeak:"), None);
        assert_eq!(kib_field("VmRSS: many kB", "VmRSS:"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_peak_follows_a_touched_allocation_and_resets() {
        assert!(reset_peak());
        let before = peak_bytes().unwrap();
        let block = vec![1u8; 64 << 20];
        let touched = peak_bytes().unwrap();
        assert!(touched >= before + (60 << 20), "{before} -> {touched}");
        drop(std::hint::black_box(block));
        assert!(reset_peak());
        let after = peak_bytes().unwrap();
        assert!(after < touched, "{touched} -> {after}");
        assert!(current_bytes().unwrap() > 0);
    }
}
