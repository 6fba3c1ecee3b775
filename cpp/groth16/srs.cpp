//! Uploading the SRS once per device (srs.hpp): each query resident or in
//! pinned host memory as the placement plan says (crates/cuzk-gpu's
//! placement.rs, which counts what a call allocates beside the SRS).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "../../cuda/api/msm.hpp"
#include "../../cuda/util/error.hpp"
#include "bridge.hpp"
#include "cuzk-ffi/src/lib.rs.h"
#include "epilogue.hpp"

namespace cuzk {
namespace {

/// Bytes per streamed chunk when the caller leaves the choice to us.
constexpr uint64_t DEFAULT_CHUNK_BYTES = uint64_t(256) << 20;
uint64_t elements(ArrayKind kind, rust::Slice<const uint64_t> limbs, const char* what) {
    const uint64_t elem = array_element_bytes(kind);
    if (limbs.size() * 8 % elem != 0)
        throw_invalid(std::string(what) + ": " + std::to_string(limbs.size()) + " limbs is not a whole number of points");
    return limbs.size() * 8 / elem;
}

bool is_oom(const error& e) { return std::string(e.what()).rfind("cuda_oom", 0) == 0; }

/// One query's bases: in device memory when `resident` and the device has
/// room (another user may have taken memory since the plan was made: then
/// the query is streamed, as it would be on a smaller card), else copied to
/// pinned host memory for streaming.
query_bases place(int32_t device, ArrayKind kind, rust::Slice<const uint64_t> limbs, bool resident,
                  const char* what) {
    query_bases q;
    q.kind = kind;
    q.len = elements(kind, limbs, what);
    if (resident) {
        try {
            q.device = g16::allocate(device, kind, q.len);
            g16::copy_to_device(*q.device, limbs.data());
            return q;
        } catch (const error& e) {
            if (!is_oom(e)) throw;
            q.device.reset();
        }
    }
    q.host = std::make_unique<g16::pinned_memory>(limbs.size() * 8);
    if (!limbs.empty()) std::memcpy(q.host->data(), limbs.data(), limbs.size() * 8);
    return q;
}

void place_all(Groth16Srs& srs, uint8_t resident, rust::Slice<const uint64_t> h, rust::Slice<const uint64_t> l,
               rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b_g1, rust::Slice<const uint64_t> b_g2) {
    const int32_t d = srs.device;
    srs.h = place(d, ArrayKind::G1Affine, h, resident & bit_h, "h");
    srs.l = place(d, ArrayKind::G1Affine, l, resident & bit_l, "l");
    srs.a = place(d, ArrayKind::G1Affine, a, resident & bit_a, "a");
    srs.b_g1 = place(d, ArrayKind::G1Affine, b_g1, resident & bit_b_g1, "b_g1");
    srs.b_g2 = place(d, ArrayKind::G2Affine, b_g2, resident & bit_b_g2, "b_g2");
}

/// Device memory of the overlapped quotient for an SRS of h_len h bases:
/// five n-scalar buffers (a, b, c and two results) and n/2 twiddles (timing
/// SRSs only: an uploaded SRS is told its working set by the placement
/// plan).
uint64_t quotient_bytes(uint64_t h_len) { return 11 * 16 * (h_len + 1); }

/// Device memory kept free beside a tiled SRS for the CUDA context, CUB and
/// the MSM temporaries, on top of the quotient's buffers.
constexpr uint64_t WORKING_RESERVE = uint64_t(2) << 30;

/// Copies of the table asked for: one per window (msm_table keeps no more).
constexpr uint32_t TABLE_COPIES = UINT32_MAX;
/// Below this many bases a table saves too little to be worth its memory.
constexpr uint64_t TABLE_MIN_BASES = uint64_t(1) << 16;

/// Gives the h query its MSM table (srs.hpp) when it and the MSM's digit
/// pairs over it (each window's digits sorted at once: four 32-bit words per
/// digit, and as much again for the sort) take at most half of the device
/// memory left beyond `reserved` bytes: the other half stays for the SRSs
/// of other parameter files, for which residency matters more. Every proof's
/// H MSM is dense and over all the h bases, where one copy per window
/// measured 11-16 % faster (PERF round 36); the other queries are sparse in
/// most circuits. A 2^27 domain's table (~150 GB) does not fit an H200.
void add_h_table(Groth16Srs& srs, uint64_t reserved) {
    const query_bases& h = srs.h;
    if (!h.device || h.len < TABLE_MIN_BASES) return;
    const uint64_t copies = msm_table_copies(h.len, TABLE_COPIES);
    const uint64_t need = h.len * copies * (array_element_bytes(h.kind) + 32);
    uint64_t free = 0, total = 0;
    g16::device_memory(srs.device, &free, &total);
    if (free < reserved || need > (free - reserved) / 2) return;
    srs.h_table.start(*h.device, TABLE_COPIES);
}

/// The best of three copies of one streamed chunk from pinned memory to the
/// device, in GB/s (srs.hpp's h2d_peak_gbps); 0 when every query is resident.
double measure_h2d(const Groth16Srs& srs) {
    for (const query_bases* q : {&srs.b_g2, &srs.h, &srs.l, &srs.a, &srs.b_g1}) {
        if (q->device || q->len == 0) continue;
        const uint64_t len = std::min(srs.stream_chunk, q->len);
        const auto to = g16::allocate(srs.device, q->kind, len);
        double best = 0;
        for (int i = 0; i < 3; i++) {
            const auto start = std::chrono::steady_clock::now();
            g16::copy_to_device(*to, q->host_at(0));
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            best = std::max(best, double(len * array_element_bytes(q->kind)) / 1e9 / s);
        }
        return best;
    }
    return 0;
}

/// Builds the device's quotient state for this SRS's domain now (buffers,
/// pinned staging, twiddles; the first kernel launch also loads the CUDA
/// module), so the first proof does not pay for it inside its own timer.
/// An SRS whose h query is not 2^k − 1 is left for the proof to reject.
void warm_quotient(const Groth16Srs& srs) {
    if (srs.log_domain() < 0) return;
    g16::quotient_engine warm(srs.device, uint32_t(srs.log_domain()), srs.quotient);
}

}  // namespace

background_table::~background_table() {
    if (builder_.joinable()) builder_.join();
}

void background_table::start(const DeviceArray& bases, uint32_t copies) {
    copies_ = copies;
    building_ = true;
    builder_ = std::thread([this, &bases, copies] {
        std::shared_ptr<const DeviceArray> built;
        try {
            built = msm_table(bases, copies);
        } catch (...) {
            // No table: the MSMs over these bases run without one, and a
            // device that really failed fails the next proof's own calls.
        }
        std::lock_guard<std::mutex> guard(lock_);
        table_ = std::move(built);
        building_ = false;
        finished_.notify_all();
    });
}

bool background_table::wait() const {
    std::unique_lock<std::mutex> guard(lock_);
    finished_.wait(guard, [&] { return !building_; });
    return table_ != nullptr;
}

std::shared_ptr<const DeviceArray> background_table::get() const {
    std::lock_guard<std::mutex> guard(lock_);
    return table_;
}

std::unique_ptr<Groth16Srs> groth16_srs_upload(int32_t device, rust::Slice<const uint64_t> vk,
                                               rust::Slice<const uint64_t> h, rust::Slice<const uint64_t> l,
                                               rust::Slice<const uint64_t> a, rust::Slice<const uint64_t> b_g1,
                                               rust::Slice<const uint64_t> b_g2, uint8_t resident,
                                               uint8_t quotient_layout, uint64_t working_set, uint64_t stream_chunk) {
    auto srs = std::make_unique<Groth16Srs>();
    srs->device = device;
    srs->quotient = g16::quotient_layout_of(quotient_layout);
    srs->vk = read_vk(span_of(vk));
    // Quotient buffers kept from earlier proofs were released by the caller
    // (release_idle_device_memory) before it read the free memory it
    // planned with; they are rebuilt on the next proof.
    place_all(*srs, resident, h, l, a, b_g1, b_g2);
    add_h_table(*srs, working_set);

    // Chunks hold whole bitmap words, so batch additions split at word bounds.
    const uint64_t chunk = stream_chunk ? stream_chunk : DEFAULT_CHUNK_BYTES / array_element_bytes(ArrayKind::G2Affine);
    srs->stream_chunk = std::max<uint64_t>(64, (chunk + 63) / 64 * 64);
    srs->h2d_peak_gbps = measure_h2d(*srs);
    warm_quotient(*srs);
    return srs;
}

std::unique_ptr<Groth16Srs> groth16_srs_tiled(int32_t device, rust::Slice<const uint64_t> vk,
                                              rust::Slice<const uint64_t> g1_pattern,
                                              rust::Slice<const uint64_t> g2_pattern, uint64_t h, uint64_t l,
                                              uint64_t a, uint64_t b) {
    auto srs = std::make_unique<Groth16Srs>();
    srs->device = device;
    srs->vk = read_vk(span_of(vk));
    const auto tiled = [&](ArrayKind kind, rust::Slice<const uint64_t> pattern, uint64_t len) {
        query_bases q;
        q.kind = kind;
        q.len = len;
        q.device = device_array_tile(device, kind, pattern, len);
        return q;
    };
    srs->h = tiled(ArrayKind::G1Affine, g1_pattern, h);
    srs->l = tiled(ArrayKind::G1Affine, g1_pattern, l);
    srs->a = tiled(ArrayKind::G1Affine, g1_pattern, a);
    srs->b_g1 = tiled(ArrayKind::G1Affine, g1_pattern, b);
    srs->b_g2 = tiled(ArrayKind::G2Affine, g2_pattern, b);
    srs->stream_chunk = std::max<uint64_t>(64, h / 64 * 64);
    add_h_table(*srs, quotient_bytes(h) + WORKING_RESERVE);
    warm_quotient(*srs);
    return srs;
}

uint8_t groth16_srs_resident_queries(const Groth16Srs& srs) { return srs.resident_queries(); }

double groth16_srs_h2d_peak_gbps(const Groth16Srs& srs) { return srs.h2d_peak_gbps; }

void release_idle_device_memory(int32_t device) { g16::release_idle_quotients(device); }

bool groth16_srs_wait_for_tables(const Groth16Srs& srs) { return srs.h_table.wait(); }

}  // namespace cuzk
