/// Peak resident set size of this process in bytes (VmHWM), where the OS
/// reports it.
pub fn peak_rss_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// Resident set size of this process now, in bytes (VmRSS), where the OS
/// reports it: `cuzk soak` samples it to show whether memory stays flat.
pub fn current_rss_bytes() -> Option<u64> {
    status_bytes("VmRSS:")
}

fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn peak_rss_is_reported_on_linux() {
        let rss = super::peak_rss_bytes().expect("VmHWM in /proc/self/status");
        assert!(rss > 1 << 20, "a test process holds more than 1 MiB: {rss}");
        let now = super::current_rss_bytes().expect("VmRSS in /proc/self/status");
        assert!(now > 1 << 20 && now <= super::peak_rss_bytes().unwrap(), "{now} {rss}");
    }
}
