//! Entry points of the MSM and batch addition (declared in msm.hpp): argument
//! checks, resident arrays, streams and timing around cuda/msm/.
#include <cstring>
#include <string>
#include <vector>

#include "../msm/batch_add.cuh"
#include "../util/cuda_util.cuh"
#include "cuzk-ffi/src/lib.rs.h"
#include "msm.hpp"
#include "../util/timer.cuh"

namespace cuzk {
namespace {

using ec::affine;
using ec::jacobian;
using ff::fp2_t;
using ff::fp_t;
using ff::fr_t;

static_assert(sizeof(affine<fp_t>) == 96 && sizeof(affine<fp2_t>) == 192 && sizeof(fr_t) == 32,
              "array elements must have blstrs' sizes");

/// Device memory owned by a DeviceArray, freed on its own device.
struct owned_memory {
    int32_t device;
    cuda::buffer<uint8_t> mem;
};

std::shared_ptr<void> own(int32_t device, uint64_t bytes) {
    return std::shared_ptr<void>(new owned_memory{device, cuda::buffer<uint8_t>(bytes)}, [](void* p) {
        auto* o = static_cast<owned_memory*>(p);
        cudaSetDevice(o->device);
        delete o;
    });
}

uint8_t* data_of(const std::shared_ptr<void>& owner) { return static_cast<owned_memory*>(owner.get())->mem.get(); }

uint64_t whole_elements(ArrayKind kind, size_t limbs, const char* what) {
    const uint64_t bytes = uint64_t(limbs) * 8, elem = array_element_bytes(kind);
    if (bytes % elem != 0)
        throw_invalid(std::string(what) + ": " + std::to_string(limbs) + " limbs is not a whole number of " +
                      std::to_string(elem / 8) + "-limb elements");
    return bytes / elem;
}

template <class T>
void append_limbs(rust::Vec<uint64_t>& out, const T& value) {
    static_assert(sizeof(T) % 8 == 0, "limb-sized values only");
    uint64_t limbs[sizeof(T) / 8];
    std::memcpy(limbs, &value, sizeof(T));
    for (uint64_t l : limbs) out.push_back(l);
}

/// The MSM of `scalars` over bases, or over a table of `copies` copies of
/// table_n bases (msm_table).
template <class F>
MsmWindows run_msm(const DeviceArray& bases, uint64_t table_n, uint32_t copies, const DeviceArray& scalars) {
    const uint64_t n = scalars.len();
    MsmWindows result{0, {}, 0.0f};
    if (n == 0) return result;
    cuda::stream s;
    cuda::stream_timer timer(s);
    std::vector<jacobian<F>> sums;
    result.window_bits =
        msm::msm_windows<F>(static_cast<const affine<F>*>(bases.data()), uint32_t(table_n), copies,
                            static_cast<const fr_t*>(scalars.data()), uint32_t(n), s, sums);
    result.device_ms = timer.stop_ms();
    result.sums.reserve(sums.size() * sizeof(jacobian<F>) / 8);
    for (const auto& p : sums) append_limbs(result.sums, p);
    return result;
}

template <class F>
float run_batch_add(const DeviceArray& bases, span<const uint64_t> bitmaps, uint32_t count, span<uint64_t> out) {
    std::memset(out.data(), 0, out.size() * 8);
    if (bitmaps.empty()) return 0.0f;
    cuda::stream s;
    cuda::scratch<uint64_t> words(bitmaps.size(), s);
    cuda::stream_timer timer(s);
    CUZK_CUDA(cudaMemcpyAsync(words.get(), bitmaps.data(), bitmaps.size() * 8, cudaMemcpyHostToDevice, s));
    const std::vector<jacobian<F>> sums = msm::batch_add<F>(static_cast<const affine<F>*>(bases.data()),
                                                            words.get(), bitmaps.size() / count, count, s);
    const float ms = timer.stop_ms();
    std::memcpy(out.data(), sums.data(), sums.size() * sizeof(jacobian<F>));
    return ms;
}

template <class T>
std::unique_ptr<DeviceArray> tile_as(int32_t id, ArrayKind kind, rust::Slice<const uint64_t> pattern, uint64_t len) {
    const uint64_t period = pattern.size() * 8 / sizeof(T);
    auto owner = own(id, len * sizeof(T));
    if (len > 0) {
        cuda::stream s;
        cuda::buffer<T> src(period);
        CUZK_CUDA(cudaMemcpyAsync(src.get(), pattern.data(), period * sizeof(T), cudaMemcpyHostToDevice, s));
        msm::tile_kernel<T><<<cuda::blocks_for(len, msm::THREADS), msm::THREADS, 0, s>>>(
            src.get(), period, len, reinterpret_cast<T*>(data_of(owner)));
        CUZK_LAUNCHED();
        s.sync();
    }
    return std::make_unique<DeviceArray>(id, kind, len, data_of(owner), owner);
}

bool is_points(ArrayKind kind) { return kind == ArrayKind::G1Affine || kind == ArrayKind::G2Affine; }

void check_msm_inputs(const char* what, const DeviceArray& bases, uint64_t len, const DeviceArray& scalars) {
    if (!is_points(bases.kind())) throw_invalid(std::string(what) + ": bases must be an array of affine points");
    if (scalars.kind() != ArrayKind::Scalar) throw_invalid(std::string(what) + ": scalars must be an array of scalars");
    if (bases.device() != scalars.device())
        throw_invalid(std::string(what) + ": bases are on device " + std::to_string(bases.device()) +
                      ", scalars on device " + std::to_string(scalars.device()));
    if (scalars.len() > len)
        throw_invalid(std::string(what) + ": " + std::to_string(scalars.len()) + " scalars for " +
                      std::to_string(len) + " bases");
    if (scalars.len() >= (uint64_t(1) << 31))
        throw_invalid(std::string(what) + ": at most 2^31 - 1 points per MSM, got " + std::to_string(scalars.len()));
}

template <class F>
std::unique_ptr<DeviceArray> build_table(const DeviceArray& bases, uint32_t copies) {
    const uint64_t n = bases.len(), stored = msm::table_copies(n, copies);
    const uint32_t c = msm::window_bits_for(n, copies);
    auto owner = own(bases.device(), n * stored * sizeof(affine<F>));
    if (n > 0) {
        cuda::stream s;
        msm::table_kernel<F><<<cuda::blocks_for(n, msm::THREADS), msm::THREADS, 0, s>>>(
            static_cast<const affine<F>*>(bases.data()), n, c * msm::window_stride(c, copies), uint32_t(stored),
            reinterpret_cast<affine<F>*>(data_of(owner)));
        CUZK_LAUNCHED();
        s.sync();
    }
    return std::make_unique<DeviceArray>(bases.device(), bases.kind(), n * stored, data_of(owner), owner);
}

}  // namespace

std::unique_ptr<DeviceArray> device_array_upload(int32_t id, ArrayKind kind, rust::Slice<const uint64_t> data) {
    const uint64_t len = whole_elements(kind, data.size(), "device_array_upload");
    cuda::use_device(id);
    const uint64_t bytes = data.size() * 8;
    auto owner = own(id, bytes);
    if (bytes > 0) CUZK_CUDA(cudaMemcpy(data_of(owner), data.data(), bytes, cudaMemcpyHostToDevice));
    return std::make_unique<DeviceArray>(id, kind, len, data_of(owner), owner);
}

std::unique_ptr<DeviceArray> device_array_tile(int32_t id, ArrayKind kind, rust::Slice<const uint64_t> pattern,
                                               uint64_t len) {
    if (whole_elements(kind, pattern.size(), "device_array_tile") == 0 && len > 0)
        throw_invalid("device_array_tile: an empty pattern cannot fill a non-empty array");
    cuda::use_device(id);
    switch (kind) {
        case ArrayKind::G1Affine: return tile_as<affine<fp_t>>(id, kind, pattern, len);
        case ArrayKind::G2Affine: return tile_as<affine<fp2_t>>(id, kind, pattern, len);
        case ArrayKind::Scalar: return tile_as<fr_t>(id, kind, pattern, len);
    }
    throw_invalid("device_array_tile: unknown array kind");
}

MsmWindows msm_windows(const DeviceArray& bases, const DeviceArray& scalars) {
    check_msm_inputs("msm_windows", bases, bases.len(), scalars);
    cuda::use_device(bases.device());
    if (bases.kind() == ArrayKind::G1Affine) return run_msm<fp_t>(bases, bases.len(), 1, scalars);
    return run_msm<fp2_t>(bases, bases.len(), 1, scalars);
}

std::unique_ptr<DeviceArray> msm_table(const DeviceArray& bases, uint32_t copies) {
    if (!is_points(bases.kind())) throw_invalid("msm_table: bases must be an array of affine points");
    if (copies == 0) throw_invalid("msm_table: at least one copy");
    if (bases.len() * msm::table_copies(bases.len(), copies) >= (uint64_t(1) << 31))
        throw_invalid("msm_table: " + std::to_string(bases.len()) + " bases in " + std::to_string(copies) +
                      " copies exceed the 2^31 - 1 points a sort value can index");
    cuda::use_device(bases.device());
    if (bases.kind() == ArrayKind::G1Affine) return build_table<fp_t>(bases, copies);
    return build_table<fp2_t>(bases, copies);
}

MsmWindows msm_windows_table(const DeviceArray& table, uint64_t table_n, uint32_t copies, const DeviceArray& scalars) {
    if (copies == 0 || table.len() != table_n * msm::table_copies(table_n, copies))
        throw_invalid("msm_windows_table: " + std::to_string(table.len()) + " points are not a table of " +
                      std::to_string(table_n) + " bases in " + std::to_string(copies) + " copies");
    check_msm_inputs("msm_windows_table", table, table_n, scalars);
    cuda::use_device(table.device());
    if (table.kind() == ArrayKind::G1Affine) return run_msm<fp_t>(table, table_n, copies, scalars);
    return run_msm<fp2_t>(table, table_n, copies, scalars);
}

float batch_add_sums(const DeviceArray& bases, span<const uint64_t> bitmaps, span<uint64_t> out) {
    if (!is_points(bases.kind())) throw_invalid("batch_add: bases must be an array of affine points");
    const bool g1 = bases.kind() == ArrayKind::G1Affine;
    const size_t point = g1 ? sizeof(jacobian<fp_t>) : sizeof(jacobian<fp2_t>);
    if (out.empty() || (out.size() * 8) % point != 0)
        throw_invalid("batch_add: out must hold one or more Jacobian points of " + std::to_string(point / 8) +
                      " limbs");
    const uint64_t count = out.size() * 8 / point;
    const uint64_t len = bases.len(), per = (len + 63) / 64;
    if (bitmaps.size() != count * per)
        throw_invalid("batch_add: " + std::to_string(count) + " bitmaps of " + std::to_string(len) + " bases need " +
                      std::to_string(count * per) + " words, got " + std::to_string(bitmaps.size()));
    for (uint64_t k = 0; k < count && len % 64 != 0; k++) {
        if ((bitmaps[(k + 1) * per - 1] >> (len % 64)) != 0)
            throw_invalid("batch_add: bitmap " + std::to_string(k) + " has bits set at or past the " +
                          std::to_string(len) + " bases");
    }
    // Ranks of set bits are 32-bit on the device.
    if (count * len >= (uint64_t(1) << 32))
        throw_invalid("batch_add: " + std::to_string(count) + " bitmaps of " + std::to_string(len) +
                      " bases: at most 2^32 - 1 bits in one call");
    cuda::use_device(bases.device());
    return g1 ? run_batch_add<fp_t>(bases, bitmaps, uint32_t(count), out)
              : run_batch_add<fp2_t>(bases, bitmaps, uint32_t(count), out);
}

}  // namespace cuzk
