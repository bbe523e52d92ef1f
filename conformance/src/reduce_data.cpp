#include "reduce_data.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "hcomm/hcomm_primitives.h"
#include "transfer.h"

namespace hcts {
namespace {

using K = ReduceType::Kind;

// Exact for the small integers used here (no rounding is ever needed).
uint16_t to_half(float f)
{
    const uint32_t b = std::bit_cast<uint32_t>(f);
    const uint32_t sign = (b >> 16) & 0x8000U;
    if ((b & 0x7FFFFFFFU) == 0)
        return static_cast<uint16_t>(sign);
    const uint32_t exponent = ((b >> 23) & 0xFFU) - 127U + 15U;
    return static_cast<uint16_t>(sign | (exponent << 10) | ((b >> 13) & 0x3FFU));
}

uint16_t to_bf16(float f) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16); }

template <typename T>
void put(std::vector<std::byte> &out, T v)
{
    const auto *p = reinterpret_cast<const std::byte *>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

} // namespace

const std::vector<ReduceType> &reduce_types()
{
    static const std::vector<ReduceType> kTypes{
        {HCOMM_DATA_TYPE_INT8, "INT8", 1, K::Signed},       {HCOMM_DATA_TYPE_INT16, "INT16", 2, K::Signed},
        {HCOMM_DATA_TYPE_INT32, "INT32", 4, K::Signed},     {HCOMM_DATA_TYPE_INT64, "INT64", 8, K::Signed},
        {HCOMM_DATA_TYPE_UINT8, "UINT8", 1, K::Unsigned},   {HCOMM_DATA_TYPE_UINT16, "UINT16", 2, K::Unsigned},
        {HCOMM_DATA_TYPE_UINT32, "UINT32", 4, K::Unsigned}, {HCOMM_DATA_TYPE_UINT64, "UINT64", 8, K::Unsigned},
        {HCOMM_DATA_TYPE_FP32, "FP32", 4, K::Float},        {HCOMM_DATA_TYPE_FP64, "FP64", 8, K::Float},
        {HCOMM_DATA_TYPE_FP16, "FP16", 2, K::Half},         {HCOMM_DATA_TYPE_BFP16, "BFP16", 2, K::BFloat},
    };
    return kTypes;
}

const std::vector<uint32_t> &reduce_ops()
{
    static const std::vector<uint32_t> kOps{HCOMM_REDUCE_SUM, HCOMM_REDUCE_PROD, HCOMM_REDUCE_MAX, HCOMM_REDUCE_MIN};
    return kOps;
}

std::string reduce_op_name(uint32_t op)
{
    switch (op) {
    case HCOMM_REDUCE_SUM: return "SUM";
    case HCOMM_REDUCE_PROD: return "PROD";
    case HCOMM_REDUCE_MAX: return "MAX";
    case HCOMM_REDUCE_MIN: return "MIN";
    default: return "op " + std::to_string(op);
    }
}

double reduce_operand(const ReduceType &t, uint32_t combo, uint32_t which, uint64_t i)
{
    // A cheap hash of (combo, operand, element): varied signs and orders, so MAX
    // and MIN differ from either operand alone and from each other.
    const uint64_t h = (i * 2654435761ULL + combo * 40503ULL + which * 977ULL + 12345ULL) >> 7;
    return t.kind == K::Unsigned ? static_cast<double>(h % 16) : static_cast<double>(static_cast<int64_t>(h % 23) - 11);
}

double reduce_result(uint32_t op, double a, double b)
{
    switch (op) {
    case HCOMM_REDUCE_SUM: return a + b;
    case HCOMM_REDUCE_PROD: return a * b;
    case HCOMM_REDUCE_MAX: return std::max(a, b);
    default: return std::min(a, b);
    }
}

std::vector<std::byte> reduce_encode(const ReduceType &t, std::span<const double> values)
{
    std::vector<std::byte> out;
    out.reserve(values.size() * t.size);
    for (const double v : values) {
        switch (t.kind) {
        case K::Signed:
            if (t.size == 1)
                put(out, static_cast<int8_t>(v));
            else if (t.size == 2)
                put(out, static_cast<int16_t>(v));
            else if (t.size == 4)
                put(out, static_cast<int32_t>(v));
            else
                put(out, static_cast<int64_t>(v));
            break;
        case K::Unsigned:
            if (t.size == 1)
                put(out, static_cast<uint8_t>(v));
            else if (t.size == 2)
                put(out, static_cast<uint16_t>(v));
            else if (t.size == 4)
                put(out, static_cast<uint32_t>(v));
            else
                put(out, static_cast<uint64_t>(v));
            break;
        case K::Float:
            if (t.size == 4)
                put(out, static_cast<float>(v));
            else
                put(out, v);
            break;
        case K::Half: put(out, to_half(static_cast<float>(v))); break;
        case K::BFloat: put(out, to_bf16(static_cast<float>(v))); break;
        }
    }
    return out;
}

ReduceCase reduce_case(const ReduceType &t, uint32_t op, uint32_t combo, uint64_t count, uint64_t extra)
{
    std::vector<double> a(count + extra), b(count + extra), r(count + extra);
    for (uint64_t i = 0; i < count + extra; ++i) {
        a[i] = reduce_operand(t, combo, 0, i);
        b[i] = reduce_operand(t, combo, 1, i);
        r[i] = i < count ? reduce_result(op, a[i], b[i]) : a[i];
    }
    return {reduce_encode(t, a), reduce_encode(t, b), reduce_encode(t, r)};
}

std::string reduce_mismatch(const ReduceType &t, std::span<const std::byte> got, std::span<const std::byte> want)
{
    const size_t n = std::min(got.size(), want.size()) / t.size;
    for (size_t i = 0; i < n; ++i)
        if (std::memcmp(got.data() + i * t.size, want.data() + i * t.size, t.size) != 0) {
            uint64_t g = 0, w = 0;
            std::memcpy(&g, got.data() + i * t.size, t.size);
            std::memcpy(&w, want.data() + i * t.size, t.size);
            return "element " + std::to_string(i) + " is " + hex(g) + ", expected " + hex(w);
        }
    return {};
}

} // namespace hcts
