//! The stage table of timing.hpp and the `CUZK_TIMING:` line built from it.
#include "timing.hpp"

#include <cstdio>

#include "cuzk-ffi/src/lib.rs.h"

namespace cuzk::g16 {
namespace {

struct stage {
    const char* name;
    double Groth16Timings::*ms;
};

constexpr stage STAGES[] = {
    {"pre_prep_ms", &Groth16Timings::pre_prep_ms},
    {"split_alloc_ms", &Groth16Timings::split_alloc_ms},
    {"prep_msm_ms", &Groth16Timings::prep_msm_ms},
    {"ntt_msm_h_ms", &Groth16Timings::ntt_msm_h_ms},
    {"prep_wait_ms", &Groth16Timings::prep_wait_ms},
    {"batch_add_ms", &Groth16Timings::batch_add_ms},
    {"tail_msm_ms", &Groth16Timings::tail_msm_ms},
    {"b_g2_msm_ms", &Groth16Timings::b_g2_msm_ms},
    {"epilogue_ms", &Groth16Timings::epilogue_ms},
    {"pre_destructor_ms", &Groth16Timings::pre_destructor_ms},
    {"h2d_ms", &Groth16Timings::h2d_ms},
    {"h2d_mb", &Groth16Timings::h2d_mb},
};

// Every field of the struct has its stage.
static_assert(sizeof(STAGES) / sizeof(STAGES[0]) * sizeof(double) == sizeof(Groth16Timings),
              "a Groth16Timings field without a stage name");

}  // namespace

std::string timing_line(const Groth16Timings& t) {
    std::string line = "CUZK_TIMING:";
    char field[96];
    for (const stage& s : STAGES) {
        std::snprintf(field, sizeof(field), " %s=%.3f", s.name, t.*s.ms);
        line += field;
    }
    if (t.h2d_ms > 0) {
        std::snprintf(field, sizeof(field), " h2d_gbps=%.1f", t.h2d_mb / t.h2d_ms);
        line += field;
    }
    return line;
}

}  // namespace cuzk::g16
