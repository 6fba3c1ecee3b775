//! The Groth16 host function (DESIGN §4): H through device-resident NTTs and
//! an MSM; the split into zeros, ones and tail on a CPU thread meanwhile; the
//! ones by GPU batch addition, the tail (and dense queries) by Pippenger MSMs,
//! B in G2 on the GPU; the epilogue on the host; temporaries freed on the
//! background freeing thread.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../../cuda/util/error.hpp"
#include "bridge.hpp"
#include "circuit.hpp"
#include "cuzk-ffi/src/lib.rs.h"
#include "dealloc.hpp"
#include "deferred.hpp"
#include "epilogue.hpp"
#include "parallel.hpp"
#include "split.hpp"
#include "timing.hpp"

namespace cuzk {

static_assert(sizeof(Groth16Timings) == 12 * sizeof(double), "Groth16Timings layout must match the Rust side");

namespace {

using namespace g16;
using steady = std::chrono::steady_clock;

double ms_between(steady::time_point a, steady::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

/// Adds the milliseconds `f` takes to *slot.
template <class F>
void timed(double* slot, F&& f) {
    const auto start = steady::now();
    f();
    *slot += ms_between(start, steady::now());
}

/// A non-owning window [first, first + len) of an array.
DeviceArray view(const DeviceArray& a, uint64_t first, uint64_t len) {
    return DeviceArray(a.device(), a.kind(), len, static_cast<uint8_t*>(a.data()) + first * array_element_bytes(a.kind()),
                       nullptr);
}

/// Adds an MSM's window sums into target, combined by `pending`
/// (deferred_sums) while the device goes on.
template <class F>
void add_windows(deferred_sums& pending, ec::xyzz<F>& target, const MsmWindows& w) {
    pending.add(target, std::vector<uint64_t>(w.sums.begin(), w.sums.end()), w.window_bits);
}

/// Adds the MSM of `scalars` over `bases` into target (add_windows).
template <class F>
void add_msm(deferred_sums& pending, ec::xyzz<F>& target, const DeviceArray& bases, const DeviceArray& scalars) {
    add_windows(pending, target, msm_windows(bases, scalars));
}

/// The sums over `bases` of `count` bitmaps laid end to end in `words`
/// (one batch addition for them all); none is made when no bit is set.
template <class F>
std::vector<ec::xyzz<F>> bitmap_sums(const DeviceArray& bases, const uint64_t* words, size_t count) {
    const uint64_t word_count = count * ((bases.len() + 63) / 64);
    std::vector<ec::xyzz<F>> sums(count, ec::xyzz<F>::identity());
    if (std::none_of(words, words + word_count, [](uint64_t w) { return w != 0; })) return sums;
    std::vector<uint64_t> out(count * jacobian_limbs<F>);
    batch_add_sums(bases, span<const uint64_t>(words, word_count), span<uint64_t>(out.data(), out.size()));
    for (size_t i = 0; i < count; i++) sums[i] = from_jacobian_limbs<F>(out.data() + i * jacobian_limbs<F>);
    return sums;
}

/// len host scalars on the device, uploaded through the engine's staging.
std::unique_ptr<DeviceArray> upload_scalars(quotient_engine& up, int32_t device, const fr_t* data, uint64_t len) {
    auto a = allocate(device, ArrayKind::Scalar, len);
    up.upload(*a, data);
    return a;
}

/// The scalars of positions [first, first + len) of a dense query for one
/// circuit, on the device: the split's copied scalars, then (for L, which
/// copies nothing, and with aux_direct) the aux assignment itself.
std::unique_ptr<DeviceArray> dense_scalars(quotient_engine& up, int32_t device, const query_split& split,
                                           const circuit_view& c, size_t i, uint64_t first, uint64_t len) {
    const fr_t* head = split.scalars.empty() ? nullptr : split.scalars[i].data();
    const uint64_t head_len = split.scalars.empty() ? 0 : split.scalars[i].size();
    auto a = allocate(device, ArrayKind::Scalar, len);
    const uint64_t from_head = first < head_len ? std::min(len, head_len - first) : 0;
    if (from_head > 0) up.upload(view(*a, 0, from_head), head + first);
    if (from_head < len) up.upload(view(*a, from_head, len - from_head), c.aux + (first + from_head - head_len));
    return a;
}

/// Bases copied to the device from host memory in one call, and the time
/// the copies took (Groth16Timings::h2d_ms, h2d_mb). The copies of one
/// query follow one another, each awaited before the next starts, so one
/// meter needs no lock.
struct bus_meter {
    double ms = 0, bytes = 0;

    /// Runs copy(), counting `bytes` and its time.
    template <class F>
    void count(uint64_t n, F&& copy) {
        const auto start = steady::now();
        copy();
        ms += ms_between(start, steady::now());
        bytes += double(n);
    }
};

/// Calls f(bases, first, len) over the first `count` bases of q: once over
/// the resident array, or chunk by chunk through two staging buffers, the
/// next chunk's copy (DMA from pinned memory, on a thread of its own) under
/// way while f runs over this one, so the bus and the kernels overlap.
template <class Fn>
void for_chunks(const Groth16Srs& srs, bus_meter& bus, const query_bases& q, uint64_t count, Fn&& f) {
    if (count == 0) return;
    if (q.device) {
        f(view(*q.device, 0, count), uint64_t(0), count);
        return;
    }
    const uint64_t chunk = std::min(srs.stream_chunk, count);
    std::unique_ptr<DeviceArray> staging[2] = {allocate(srs.device, q.kind, chunk),
                                               count > chunk ? allocate(srs.device, q.kind, chunk) : nullptr};
    const auto part = [&](uint64_t first) {
        return view(*staging[(first / chunk) % 2], 0, std::min(chunk, count - first));
    };
    const auto copy = [&](uint64_t first) {
        const DeviceArray to = part(first);
        bus.count(to.len() * array_element_bytes(q.kind), [&] { copy_to_device(to, q.host_at(first)); });
    };
    copy(0);
    // Declared after the staging buffers: a copy in flight when f throws is
    // waited for before they are freed.
    std::future<void> next;
    for (uint64_t first = 0; first < count; first += chunk) {
        if (next.valid()) next.get();
        if (first + chunk < count) next = std::async(std::launch::async, copy, first + chunk);
        const DeviceArray bases = part(first);
        f(bases, first, bases.len());
    }
}

/// Bases of q at the tail positions, gathered on the host from pinned memory
/// (streaming only; resident SRSs gather on the device).
host_vector<uint64_t> host_gather(const query_bases& q, const host_vector<uint32_t>& positions) {
    const uint64_t elem = array_element_bytes(q.kind);
    host_vector<uint64_t> out(positions.size() * elem / 8);
    for (size_t t = 0; t < positions.size(); t++) std::memcpy(out.data() + t * elem / 8, q.host_at(positions[t]), elem);
    return out;
}

/// Everything the CPU prep thread builds; freed on the freeing thread.
struct host_temporaries {
    std::vector<blinding> blindings;
    query_split l, a, b;
    host_vector<uint64_t> tail_msm_l_bases, tail_msm_a_bases, tail_msm_b_g1_bases, tail_msm_b_g2_bases;
};

/// Per-call state of one batch.
struct batch {
    const Groth16Srs& srs;
    std::vector<circuit_view> circuits;
    std::vector<const Groth16Circuit*> inputs;
    uint64_t n = 0;
    uint32_t log_n = 0;
    /// The streamed bases' copies of the call (for_chunks, the tails').
    mutable bus_meter bus;
};

/// Σ over query `bases` of every circuit's scalars per `split`, added into
/// target(i): bitmap sums of the ones (into *batch_ms), then the tail MSM
/// or, for a dense query, the full MSM (into *msm_ms; its sums through
/// `pending`). Host scalars and bases go up through `up`'s staging.
template <class F, class Target>
void prove_query(const batch& bt, quotient_engine& up, deferred_sums& pending, const query_bases& bases,
                 const query_split& split, const host_vector<uint64_t>& host_tail, double* batch_ms, double* msm_ms,
                 Target&& target) {
    const Groth16Srs& srs = bt.srs;
    const size_t count = bt.circuits.size();
    if (split.dense) {
        timed(msm_ms, [&] {
            for_chunks(srs, bt.bus, bases, split.len, [&](const DeviceArray& part, uint64_t first, uint64_t len) {
                for (size_t i = 0; i < count; i++) {
                    auto scalars = dense_scalars(up, srs.device, split, bt.circuits[i], i, first, len);
                    add_msm<F>(pending, target(i), part, *scalars);
                }
            });
        });
        return;
    }
    timed(batch_ms, [&] {
        if (bases.device) {
            // The circuits' bitmaps in as few calls as the device's 32-bit
            // ranks allow (ten PoRep partitions of 2^27 bases take three).
            const DeviceArray all = view(*bases.device, 0, split.len);
            const uint64_t most_bits = (uint64_t(1) << 32) - 1;
            const size_t group = size_t(std::max<uint64_t>(1, most_bits / std::max<uint64_t>(1, split.len)));
            for (size_t g0 = 0; g0 < count; g0 += group) {
                const size_t k = std::min(group, count - g0);
                const auto sums = bitmap_sums<F>(all, split.ones.data() + g0 * split.words, k);
                for (size_t j = 0; j < k; j++) target(g0 + j) = target(g0 + j).add(sums[j]);
            }
            return;
        }
        for_chunks(srs, bt.bus, bases, split.len, [&](const DeviceArray& part, uint64_t first, uint64_t) {
            for (size_t i = 0; i < count; i++)
                target(i) = target(i).add(bitmap_sums<F>(part, split.ones.data() + i * split.words + first / 64, 1)[0]);
        });
    });
    if (split.tail.empty()) return;
    timed(msm_ms, [&] {
        std::unique_ptr<DeviceArray> tail;
        if (bases.device) {
            tail = gather(*bases.device, split.tail.data(), split.tail.size());
        } else {
            tail = allocate(srs.device, bases.kind, split.tail.size());
            bt.bus.count(host_tail.size() * 8, [&] { up.upload(*tail, host_tail.data()); });
        }
        for (size_t i = 0; i < count; i++) {
            auto scalars = upload_scalars(up, srs.device, split.scalars[i].data(), split.tail.size());
            add_msm<F>(pending, target(i), *tail, *scalars);
        }
    });
}

/// Whether a dense query's scalars are built from the aux assignment on the
/// device: L's are nothing else; A's and B's are their inputs, then every
/// aux (aux_direct) or the aux their density selects (aux_compacted).
bool reads_aux(query q, const query_split& split) {
    return split.dense && (q == query::l || split.aux_direct || split.aux_compacted);
}

/// One dense query that reads the aux assignment on the device: its query
/// and split, and the MSM that adds circuit i's sum over its scalars into
/// its target.
struct aux_reader {
    query q;
    const query_split* split;
    double* ms;
    std::function<void(size_t, const DeviceArray&)> prove;
};

/// The window of prove_reading_aux over the last circuit's aux where the
/// device has it already: when H came from its witness (a recorded shape),
/// the quotient engine still holds it, inputs then aux, and the heads fit
/// over the inputs' end. Saves that circuit's aux upload (~32 MB per 2^20
/// variables); null when there is no such witness.
std::unique_ptr<DeviceArray> aux_in_witness(const quotient_engine& up, const circuit_view& c, uint64_t room) {
    const std::unique_ptr<DeviceArray> w = up.recorded_witness();
    if (!w || w->len() < c.num_aux || w->len() - c.num_aux < room) return nullptr;
    return std::make_unique<DeviceArray>(view(*w, w->len() - c.num_aux - room, room + c.num_aux));
}

/// The dense queries of a resident SRS that read the aux assignment,
/// circuit by circuit: the circuit's aux goes to the device once, behind
/// room for the longest head, and each query writes its head (its inputs)
/// just before the aux and runs its MSM over that window, or for a
/// compacted query over its head and the aux its density selects, compacted
/// into an array of its own (once for B's two queries). Uploading the aux
/// once per query instead moved it four times per proof (L, A, B in G1 and
/// in G2), the same ~32 MB per 2^20 variables each time.
///
/// One window serves every circuit: with a recorded shape it is the
/// quotient engine's witness buffer, which holds the last circuit's aux
/// already (aux_in_witness), so that circuit goes first and the others'
/// aux overwrite it; else one array of its size. A window per circuit
/// besides the witness cost 4.2 GB of device memory at 2^27, which an
/// 80 GB card does not have beside a mostly resident 32 GiB SRS.
void prove_reading_aux(const batch& bt, quotient_engine& up, const std::vector<aux_reader>& readers) {
    if (readers.empty()) return;
    uint64_t room = 0;
    for (const aux_reader& r : readers)
        if (!r.split->aux_compacted) room = std::max(room, r.split->len - bt.circuits[0].num_aux);
    const size_t count = bt.circuits.size();
    const uint64_t num_aux = bt.circuits[0].num_aux;
    std::unique_ptr<DeviceArray> scalars;
    timed(readers[0].ms, [&] { scalars = aux_in_witness(up, bt.circuits[count - 1], room); });
    const bool last_in_place = scalars != nullptr;
    if (!scalars) timed(readers[0].ms, [&] { scalars = allocate(bt.srs.device, ArrayKind::Scalar, room + num_aux); });
    for (size_t k = 0; k < count; k++) {
        // The last circuit first when its aux is in place, then the others.
        const size_t i = last_in_place ? (k + count - 1) % count : k;
        const circuit_view& c = bt.circuits[i];
        if (!(last_in_place && k == 0)) timed(readers[0].ms, [&] { up.upload(view(*scalars, room, c.num_aux), c.aux); });
        // The compacted scalars of each split, made by its first reader.
        std::vector<std::pair<const query_split*, std::unique_ptr<DeviceArray>>> compacted;
        for (const aux_reader& r : readers) {
            timed(r.ms, [&] {
                if (!r.split->aux_compacted) {
                    const uint64_t head = r.split->len - c.num_aux;
                    if (head > 0) up.upload(view(*scalars, room - head, head), r.split->scalars[i].data());
                    r.prove(i, view(*scalars, room - head, r.split->len));
                    return;
                }
                auto made = std::find_if(compacted.begin(), compacted.end(), [&](const auto& m) { return m.first == r.split; });
                if (made == compacted.end()) {
                    const uint64_t head = r.split->scalars[i].size();
                    auto out = allocate(bt.srs.device, ArrayKind::Scalar, r.split->len);
                    if (head > 0) up.upload(view(*out, 0, head), r.split->scalars[i].data());
                    compact(view(*scalars, room, c.num_aux), aux_density(r.q, c), view(*out, head, r.split->len - head));
                    made = compacted.emplace(compacted.end(), r.split, std::move(out));
                }
                r.prove(i, *made->second);
            });
        }
    }
}

fr_t scalar_of(const std::array<uint64_t, 4>& limbs) {
    fr_t x;
    std::memcpy(&x, limbs.data(), sizeof(x));
    return x;
}

/// The CPU prep thread's work: the three splits and, when streaming, the
/// host gathers of the tail bases.
void prepare(const batch& bt, host_temporaries& tmp, Groth16Timings& tm) {
    const unsigned threads = cpu_threads();
    double alloc_ms = 0;
    const auto start = steady::now();
    tmp.blindings.resize(bt.inputs.size());
    parallel_for(bt.inputs.size(), threads, [&](size_t i) {
        tmp.blindings[i] = blind(bt.srs.vk, scalar_of(bt.inputs[i]->r), scalar_of(bt.inputs[i]->s));
    });
    const std::vector<aux_classes> classes = classify_aux(bt.circuits, threads, &alloc_ms);
    // A dense query over resident bases reads the aux assignment on the
    // device (prove_reading_aux), which compacts it there where the query's
    // density leaves variables out; B's two queries must both be resident.
    const Groth16Srs& srs = bt.srs;
    tmp.l = split_query(query::l, bt.circuits, classes, threads, &alloc_ms, false);
    tmp.a = split_query(query::a, bt.circuits, classes, threads, &alloc_ms, bool(srs.a.device));
    tmp.b = split_query(query::b, bt.circuits, classes, threads, &alloc_ms, srs.b_g1.device && srs.b_g2.device);
    // Streamed queries gather their tail bases here, from pinned memory.
    if (!tmp.l.dense && !srs.l.device) tmp.tail_msm_l_bases = host_gather(srs.l, tmp.l.tail);
    if (!tmp.a.dense && !srs.a.device) tmp.tail_msm_a_bases = host_gather(srs.a, tmp.a.tail);
    if (!tmp.b.dense && !srs.b_g1.device) tmp.tail_msm_b_g1_bases = host_gather(srs.b_g1, tmp.b.tail);
    if (!tmp.b.dense && !srs.b_g2.device) tmp.tail_msm_b_g2_bases = host_gather(srs.b_g2, tmp.b.tail);
    tm.split_alloc_ms = alloc_ms;
    tm.prep_msm_ms = ms_between(start, steady::now()) - alloc_ms;
}

void expect(uint64_t have, uint64_t need, size_t circuit, const char* what) {
    if (have != need)
        throw_invalid("circuit " + std::to_string(circuit) + ": the SRS has " + std::to_string(have) + " " + what +
                      " but the assignment needs " + std::to_string(need));
}

/// The number of constraints of circuit i: its a and b evaluations, or
/// with a recorded shape (which computes them), the shape's rows.
uint64_t constraints_of(const Groth16Circuit& c, size_t i, const DeviceR1cs* shape) {
    const uint64_t m = scalars_in(span_of(c.a), i, "a");
    if (scalars_in(span_of(c.b), i, "b") != m) throw_invalid("circuit " + std::to_string(i) + ": a and b differ in length");
    if (!shape) return m;
    if (m != 0) throw_invalid("circuit " + std::to_string(i) + ": a and b must be empty when the shape computes them");
    if (c.input.size() != 4 * shape->num_inputs() || c.aux.size() != 4 * shape->num_aux())
        throw_invalid("circuit " + std::to_string(i) + ": the shape has " + std::to_string(shape->num_inputs()) +
                      " inputs and " + std::to_string(shape->num_aux()) + " aux variables, the witness " +
                      std::to_string(c.input.size() / 4) + " and " + std::to_string(c.aux.size() / 4));
    return shape->rows();
}

/// Checks every circuit against the SRS (and the shape, if any) and builds its view.
batch make_batch(const Groth16Srs& srs, rust::Slice<const Groth16Circuit> circuits, const DeviceR1cs* shape) {
    batch bt{srs, {}, {}, srs.h.len + 1, 0, {}};
    if (srs.log_domain() < 0) throw_invalid("the SRS has " + std::to_string(srs.h.len) + " h bases: not 2^k - 1");
    bt.log_n = uint32_t(srs.log_domain());
    if (shape && shape->device() != srs.device)
        throw_invalid("the shape is on device " + std::to_string(shape->device()) + ", the SRS on device " +
                      std::to_string(srs.device));
    for (size_t i = 0; i < circuits.size(); i++) {
        const Groth16Circuit& c = circuits[i];
        const uint64_t m = constraints_of(c, i, shape);
        uint64_t domain = 1;
        while (domain < m) domain *= 2;
        expect(srs.h.len, domain - 1, i, "h bases (domain size - 1)");
        const circuit_view v = view_of(c, i);
        expect(srs.l.len, query_len(query::l, v), i, "l bases (private variables)");
        expect(srs.a.len, query_len(query::a, v), i, "a bases (inputs + private variables used in A)");
        expect(srs.b_g1.len, query_len(query::b, v), i, "b_g1 bases (variables used in B)");
        expect(srs.b_g2.len, query_len(query::b, v), i, "b_g2 bases (variables used in B)");
        bt.circuits.push_back(v);
        bt.inputs.push_back(&c);
    }
    return bt;
}

Groth16Timings prove_batch(int32_t device, const Groth16Srs& srs, const DeviceR1cs* shape,
                           rust::Slice<const Groth16Circuit> circuits, bool timing, rust::Slice<uint8_t> proofs) {
    const auto t0 = steady::now();
    const call_in_flight counted;
    Groth16Timings tm{};
    if (device != srs.device)
        throw_invalid("the SRS is on device " + std::to_string(srs.device) + ", not device " + std::to_string(device));
    if (proofs.size() != 192 * circuits.size())
        throw_invalid("proofs: " + std::to_string(proofs.size()) + " bytes for " + std::to_string(circuits.size()) +
                      " proofs of 192");
    const batch bt = make_batch(srs, circuits, shape);
    const size_t count = bt.circuits.size();
    if (count == 0) return tm;

    // The split runs on the CPU while the device computes H. It starts once
    // the first circuit's uploads (a and b, or its witness) have left host
    // memory: nothing hides that upload, and the split's threads slowed it.
    auto tmp = std::make_shared<host_temporaries>();
    std::exception_ptr prep_error;
    std::thread prep;
    auto start_prep = [&] {
        prep = std::thread([&] {
            try {
                tm.pre_prep_ms = ms_between(t0, steady::now());
                prepare(bt, *tmp, tm);
            } catch (...) {
                prep_error = std::current_exception();
            }
        });
    };
    struct joiner {
        std::thread& t;
        ~joiner() {
            if (t.joinable()) t.join();
        }
    } join_prep{prep};

    std::vector<circuit_sums> sums(count);
    deferred_sums pending;
    // The engine outlives H: the later uploads use its staging buffers.
    std::optional<quotient_engine> held;
    timed(&tm.ntt_msm_h_ms, [&] {
        quotient_engine& engine = held.emplace(device, bt.log_n, srs.quotient);
        auto quotient = [&](size_t i, const std::function<void()>& host_read) -> const DeviceArray* {
            const Groth16Circuit& c = *bt.inputs[i];
            return shape ? &engine.run_recorded(*shape, c.input.data(), c.input.size() / 4, c.aux.data(),
                                                c.aux.size() / 4, host_read)
                         : &engine.run(c.a.data(), c.b.data(), c.a.size() / 4, host_read);
        };
        // Circuit i + 1's quotient (its uploads and NTTs) runs
        // on a thread of its own while circuit i's H MSM runs here: the
        // device fills the MSM's gaps (its sort, its host round trips, its
        // last wave) with the quotient's kernels. The engine alternates two
        // result arrays, so circuit i's h stays valid meanwhile. Declared
        // after the engine, the future is waited for before the engine goes.
        // A lean engine holds one h: its quotients run here, one after the
        // other MSM. Every run that returns has called start_prep.
        const bool overlap = !engine.lean();
        const DeviceArray* h = quotient(0, start_prep);
        std::future<const DeviceArray*> next;
        // Null while the SRS's table is still being built (srs.hpp).
        const std::shared_ptr<const DeviceArray> h_table = srs.h_table.get();
        for (size_t i = 0; i < count; i++) {
            if (i > 0) h = overlap ? next.get() : quotient(i, std::function<void()>());
            if (overlap && i + 1 < count)
                next = std::async(std::launch::async, quotient, i + 1, std::function<void()>());
            if (h_table) {
                add_windows(pending, sums[i].h,
                            msm_windows_table(*h_table, srs.h.len, srs.h_table.copies(), view(*h, 0, bt.n - 1)));
                continue;
            }
            for_chunks(srs, bt.bus, srs.h, bt.n - 1, [&](const DeviceArray& part, uint64_t first, uint64_t len) {
                add_msm<fp_t>(pending, sums[i].h, part, view(*h, first, len));
            });
        }
        // A lean engine's last h goes: the aux readers need its memory.
        engine.release();
    });
    timed(&tm.prep_wait_ms, [&] { prep.join(); });
    if (prep_error) std::rethrow_exception(prep_error);

    // A dense query whose scalars come from the aux assignment (as it is,
    // or compacted by its density) joins the readers, whose MSMs share one
    // upload of it per circuit; the others (sparse, or streamed bases) are
    // proved on their own.
    std::vector<aux_reader> readers;
    auto query_sums = [&](auto field, query q, const query_bases& bases, const query_split& split,
                          const host_vector<uint64_t>& host_tail, double* batch_ms, double* msm_ms, auto target) {
        using F = decltype(field);
        if (!reads_aux(q, split) || !bases.device) {
            prove_query<F>(bt, *held, pending, bases, split, host_tail, batch_ms, msm_ms, target);
            return;
        }
        readers.push_back({q, &split, msm_ms, [&pending, &bases, &split, target](size_t i, const DeviceArray& scalars) {
                               add_msm<F>(pending, target(i), view(*bases.device, 0, split.len), scalars);
                           }});
    };
    query_sums(fp_t{}, query::l, srs.l, tmp->l, tmp->tail_msm_l_bases, &tm.batch_add_ms, &tm.tail_msm_ms,
               [&](size_t i) -> g1& { return sums[i].l; });
    query_sums(fp_t{}, query::a, srs.a, tmp->a, tmp->tail_msm_a_bases, &tm.batch_add_ms, &tm.tail_msm_ms,
               [&](size_t i) -> g1& { return sums[i].a; });
    query_sums(fp_t{}, query::b, srs.b_g1, tmp->b, tmp->tail_msm_b_g1_bases, &tm.batch_add_ms, &tm.tail_msm_ms,
               [&](size_t i) -> g1& { return sums[i].b_g1; });
    query_sums(fp2_t{}, query::b, srs.b_g2, tmp->b, tmp->tail_msm_b_g2_bases, &tm.b_g2_msm_ms, &tm.b_g2_msm_ms,
               [&](size_t i) -> g2& { return sums[i].b_g2; });
    prove_reading_aux(bt, *held, readers);

    timed(&tm.epilogue_ms, [&] {
        // The last MSM's combination may still run: its wait is the epilogue's.
        pending.finish();
        std::vector<g1> products(2 * count);
        parallel_for(2 * count, cpu_threads(), [&](size_t k) {
            products[k] = sum_product(tmp->blindings[k / 2], sums[k / 2], int(k % 2));
        });
        parallel_for(count, cpu_threads(), [&](size_t i) {
            epilogue(tmp->blindings[i], sums[i], products[2 * i], products[2 * i + 1], proofs.data() + 192 * i);
        });
    });

    tm.h2d_ms = bt.bus.ms;
    tm.h2d_mb = bt.bus.bytes / 1e6;
    tm.pre_destructor_ms = ms_between(t0, steady::now());
    free_later(std::move(tmp));
    if (timing) {
        std::fprintf(stderr, "%s\n", timing_line(tm).c_str());
    }
    return tm;
}

/// cxx turns std::exceptions into Rust errors; anything else would abort.
Groth16Timings guarded(int32_t device, const Groth16Srs& srs, const DeviceR1cs* shape,
                       rust::Slice<const Groth16Circuit> circuits, bool timing, rust::Slice<uint8_t> proofs) {
    try {
        return prove_batch(device, srs, shape, circuits, timing, proofs);
    } catch (const std::exception&) {
        throw;
    } catch (...) {
        throw error("host_error: a non-standard C++ exception in the Groth16 host function");
    }
}

}  // namespace

Groth16Timings generate_groth16_proofs_c(int32_t device, const Groth16Srs& srs,
                                         rust::Slice<const Groth16Circuit> circuits, bool timing,
                                         rust::Slice<uint8_t> proofs) {
    return guarded(device, srs, nullptr, circuits, timing, proofs);
}

Groth16Timings generate_groth16_proofs_recorded_c(int32_t device, const Groth16Srs& srs, const DeviceR1cs& shape,
                                                  rust::Slice<const Groth16Circuit> circuits, bool timing,
                                                  rust::Slice<uint8_t> proofs) {
    return guarded(device, srs, &shape, circuits, timing, proofs);
}

}  // namespace cuzk
