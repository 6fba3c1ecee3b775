use cuzk_ffi::hooks::ffi as hooks;

use crate::HostTimings;

/// The `CUZK_TIMING:` line the host function prints for `t` (without its
/// newline), built by C++ from its stage table (cpp/groth16/timing.cpp).
pub fn host_line(t: &HostTimings) -> String {
    hooks::groth16_timing_line(t)
}

#[cfg(test)]
mod tests {
    use super::host_line;
    use crate::groth16::stages;
    use crate::HostTimings;

    /// The C++ table and the Rust list (`groth16::stages`) name the same
    /// fields in the same order: every field gets a distinct figure, so a
    /// renamed, reordered or missing stage changes the line.
    #[test]
    fn the_timing_line_and_the_rust_stages_agree() {
        let t = HostTimings {
            pre_prep_ms: 1.0,
            split_alloc_ms: 2.25,
            prep_msm_ms: 3.5,
            ntt_msm_h_ms: 4.125,
            prep_wait_ms: 4.75,
            batch_add_ms: 5.0,
            tail_msm_ms: 6.0625,
            b_g2_msm_ms: 7.0,
            epilogue_ms: 8.5,
            pre_destructor_ms: 9.75,
            h2d_ms: 0.0,
            h2d_mb: 0.0,
        };
        let from_rust: Vec<String> = stages(&t).iter().map(|(name, ms)| format!("{name}={ms:.3}")).collect();
        assert_eq!(host_line(&t), format!("CUZK_TIMING: {}", from_rust.join(" ")));
        assert!(host_line(&t).ends_with(" pre_destructor_ms=9.750 h2d_ms=0.000 h2d_mb=0.000"));
        // With bases streamed, the achieved rate follows: 512 MB in 16 ms.
        let streamed = HostTimings { h2d_ms: 16.0, h2d_mb: 512.0, ..t };
        assert!(host_line(&streamed).ends_with(" h2d_ms=16.000 h2d_mb=512.000 h2d_gbps=32.0"), "{}", host_line(&streamed));
    }
}
