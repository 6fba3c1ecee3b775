//! Host services of the bridge that the engine needs beside the GPUs.

use cuzk_ffi::ffi;

use crate::GpuError;

/// Raises the calling thread's nice value by `steps` (at most to 19), so
/// that threads of normal priority win the cores from it. The engine gives
/// its synthesis threads this: every host-function call (split, uploads,
/// epilogue) then runs as soon as it is ready, and synthesis fills the rest
/// of the CPU. Linux only; elsewhere it is a [`GpuError::Host`] error.
pub fn lower_thread_priority(steps: i32) -> Result<(), GpuError> {
    ffi::lower_thread_priority(steps).map_err(GpuError::from)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The calling thread's nice value: field 19 of /proc/thread-self/stat
    /// (after the parenthesised command name, which may contain spaces).
    fn nice() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        after_name.split_whitespace().nth(16).unwrap().parse().unwrap()
    }

    #[test]
    fn lowers_only_the_calling_thread() {
        let main_before = nice();
        let (before, after) = std::thread::spawn(|| {
            let before = nice();
            lower_thread_priority(3).unwrap();
            (before, nice())
        })
        .join()
        .unwrap();
        assert_eq!(after, (before + 3).min(19));
        assert_eq!(nice(), main_before, "another thread's priority changed");
    }
}
