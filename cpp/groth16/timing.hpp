//! The stages of one host-function call by name, in the order of the
//! `CUZK_TIMING:` line: one table (timing.cpp) spells them, and the line's
//! test hook lets a Rust test check that cuzk-gpu's list of stages
//! (cuzk_gpu::groth16::stages) names the same fields in the same order.
#pragma once

#include <string>

namespace cuzk {
struct Groth16Timings;
}  // namespace cuzk

namespace cuzk::g16 {

/// `CUZK_TIMING: pre_prep_ms=… … pre_destructor_ms=…`, each figure with
/// three decimals, without a newline: what a call with timing prints.
std::string timing_line(const Groth16Timings& t);

}  // namespace cuzk::g16
