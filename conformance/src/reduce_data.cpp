#include "reduce_data.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

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

namespace {

uint64_t next_random(uint64_t &x)
{
    x += 0x9E3779B97F4A7C15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The layout of a binary floating type: fraction bits, exponent bits.
struct FloatShape {
    int fraction, exponent;
};

FloatShape shape_of(const ReduceType &t)
{
    if (t.kind == K::Half)
        return {10, 5};
    if (t.kind == K::BFloat)
        return {7, 8};
    return t.size == 4 ? FloatShape{23, 8} : FloatShape{52, 11};
}

// Value of a finite element's bits (every type's value fits a double exactly).
double float_value(const ReduceType &t, uint64_t bits)
{
    const FloatShape f = shape_of(t);
    const int bias = (1 << (f.exponent - 1)) - 1;
    const bool negative = (bits >> (f.fraction + f.exponent)) & 1U;
    const int e = static_cast<int>((bits >> f.fraction) & ((1ULL << f.exponent) - 1));
    const uint64_t m = bits & ((1ULL << f.fraction) - 1);
    const double mag = e == 0 ? std::ldexp(static_cast<double>(m), 1 - bias - f.fraction)
                              : std::ldexp(static_cast<double>(m | (1ULL << f.fraction)), e - bias - f.fraction);
    return negative ? -mag : mag;
}

// x rounded once into the type, to nearest, ties to even (overflow to infinity),
// and encoded: the model of API.RED.8.
uint64_t float_round(const ReduceType &t, double x)
{
    const FloatShape f = shape_of(t);
    const int bias = (1 << (f.exponent - 1)) - 1;
    const uint64_t sign = std::signbit(x) ? 1ULL << (f.fraction + f.exponent) : 0;
    const uint64_t inf = ((1ULL << f.exponent) - 1) << f.fraction;
    if (std::isinf(x))
        return sign | inf;
    if (x == 0)
        return sign;
    // The quantum at x's binade (the subnormals' below the smallest normal).
    const int q = std::max(std::ilogb(x), 1 - bias) - f.fraction;
    const double units = std::nearbyint(std::ldexp(std::fabs(x), -q)); // ties to even: the default mode
    const double y = std::ldexp(units, q);
    if (y == 0)
        return sign;
    const int e = std::ilogb(y);
    if (e > bias)
        return sign | inf;
    if (e < 1 - bias) // subnormal
        return sign | static_cast<uint64_t>(std::ldexp(y, bias - 1 + f.fraction));
    const uint64_t m = static_cast<uint64_t>(std::ldexp(y, f.fraction - e)) - (1ULL << f.fraction);
    return sign | (static_cast<uint64_t>(e + bias) << f.fraction) | m;
}

// A finite, non-zero element with its exponent field in [lo, hi].
uint64_t float_operand(const ReduceType &t, uint64_t &x, int lo, int hi)
{
    const FloatShape f = shape_of(t);
    const int top = (1 << f.exponent) - 2;
    const int e = std::clamp(lo + static_cast<int>(next_random(x) % static_cast<uint64_t>(hi - lo + 1)), 0, top);
    uint64_t m = next_random(x) & ((1ULL << f.fraction) - 1);
    if (e == 0 && m == 0)
        m = 1;
    const uint64_t sign = (next_random(x) & 1U) << (f.fraction + f.exponent);
    return sign | (static_cast<uint64_t>(e) << f.fraction) | m;
}

int exponent_field(const ReduceType &t, uint64_t bits)
{
    const FloatShape f = shape_of(t);
    return static_cast<int>((bits >> f.fraction) & ((1ULL << f.exponent) - 1));
}

void put_bits(std::vector<std::byte> &out, uint64_t bits, uint32_t size)
{
    const auto *p = reinterpret_cast<const std::byte *>(&bits); // little-endian, as the device
    out.insert(out.end(), p, p + size);
}

} // namespace

ReduceCase rounding_case(const ReduceType &t, uint32_t op, uint64_t count, uint64_t seed)
{
    uint64_t x = seed ^ (uint64_t{t.type} << 40) ^ (uint64_t{op} << 32);
    ReduceCase out;
    const uint64_t mask = t.size == 8 ? ~0ULL : (1ULL << (8 * t.size)) - 1;
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t a = 0, b = 0, r = 0;
        if (t.kind == K::Signed || t.kind == K::Unsigned) {
            a = next_random(x) & mask;
            b = next_random(x) & mask;
            // Sign-extended values for the comparisons of a signed type.
            const auto value = [&](uint64_t v) {
                const int shift = 64 - 8 * static_cast<int>(t.size);
                return static_cast<int64_t>(v << shift) >> shift;
            };
            const bool less = t.kind == K::Signed ? value(a) < value(b) : a < b;
            switch (op) {
            case HCOMM_REDUCE_SUM: r = (a + b) & mask; break;
            case HCOMM_REDUCE_PROD: r = (a * b) & mask; break;
            case HCOMM_REDUCE_MAX: r = less ? b : a; break;
            default: r = less ? a : b; break;
            }
        } else {
            const FloatShape f = shape_of(t);
            const int top = (1 << f.exponent) - 2, bias = (1 << (f.exponent - 1)) - 1;
            if (op == HCOMM_REDUCE_SUM) {
                // Exponents apart by up to the precision and a little more: every
                // alignment of the smaller operand's bits against the rounding point.
                a = float_operand(t, x, 0, top);
                const int spread = f.fraction + 4;
                const int ea = exponent_field(t, a);
                b = float_operand(t, x, ea - spread, ea + spread);
            } else if (op == HCOMM_REDUCE_PROD) {
                // Products from below the smallest normal to beyond the largest finite.
                const int half = (bias + f.fraction / 2) / 2 + 2;
                a = float_operand(t, x, bias - half, bias + half);
                b = float_operand(t, x, bias - half, bias + half);
            } else {
                a = float_operand(t, x, 0, top);
                b = float_operand(t, x, 0, top);
            }
            if (i < 2) {
                // The first two elements sit at the type's extreme, the largest finite value
                // (negated in the second), whose results must stay finite: plus the smallest
                // subnormal, times one, against its own negation.
                const uint64_t sign = uint64_t{i} << (f.fraction + f.exponent);
                a = sign | (static_cast<uint64_t>(top) << f.fraction) | ((1ULL << f.fraction) - 1);
                b = op == HCOMM_REDUCE_SUM    ? (sign | 1U)
                    : op == HCOMM_REDUCE_PROD ? static_cast<uint64_t>(bias) << f.fraction
                                              : a ^ (1ULL << (f.fraction + f.exponent));
            }
            const double va = float_value(t, a), vb = float_value(t, b);
            switch (op) {
            case HCOMM_REDUCE_SUM:
                r = t.size == 8 && t.kind == K::Float ? std::bit_cast<uint64_t>(va + vb) : float_round(t, va + vb);
                break;
            case HCOMM_REDUCE_PROD:
                r = t.size == 8 && t.kind == K::Float ? std::bit_cast<uint64_t>(va * vb) : float_round(t, va * vb);
                break;
            case HCOMM_REDUCE_MAX: r = va < vb ? b : a; break;
            default: r = va < vb ? a : b; break;
            }
        }
        put_bits(out.dst, a, t.size);
        put_bits(out.src, b, t.size);
        put_bits(out.want, r, t.size);
    }
    return out;
}

namespace {

__extension__ typedef __int128 wide_int; // exact sums and products of 64-bit operands

// Element i of an integer buffer of `t`, sign- or zero-extended.
wide_int integer_at(const ReduceType &t, std::span<const std::byte> bytes, size_t i)
{
    uint64_t raw = 0;
    std::memcpy(&raw, bytes.data() + i * t.size, t.size);
    const unsigned bits = t.size * 8;
    if (t.kind == ReduceType::Kind::Signed && bits < 64 && (raw >> (bits - 1)) != 0)
        raw |= ~uint64_t{0} << bits; // sign-extend
    return t.kind == ReduceType::Kind::Signed ? wide_int{static_cast<int64_t>(raw)} : wide_int{raw};
}

} // namespace

namespace {

std::string integer_text(wide_int v)
{
    return v < 0 ? "-" + std::to_string(static_cast<uint64_t>(-v)) : std::to_string(static_cast<uint64_t>(v));
}

std::string exact_integer_mismatch(const ReduceType &t, uint32_t op, const ReduceCase &c,
                                   std::span<const std::byte> got)
{
    const unsigned bits = t.size * 8;
    const bool is_signed = t.kind == ReduceType::Kind::Signed;
    const wide_int lo = is_signed ? -(wide_int{1} << (bits - 1)) : 0;
    const wide_int hi = is_signed ? (wide_int{1} << (bits - 1)) - 1 : (wide_int{1} << bits) - 1;
    const size_t n = std::min({got.size(), c.dst.size(), c.src.size()}) / t.size;
    for (size_t i = 0; i < n; ++i) {
        const wide_int a = integer_at(t, c.dst, i), b = integer_at(t, c.src, i);
        wide_int r = 0;
        switch (op) {
        case HCOMM_REDUCE_SUM: r = a + b; break;
        case HCOMM_REDUCE_PROD:
            // Two unsigned 64-bit operands may reach 2^128, past the signed 128 bits: such a
            // product is out of every type's range anyway.
            if (__builtin_mul_overflow(a, b, &r))
                continue;
            break;
        case HCOMM_REDUCE_MAX: r = std::max(a, b); break;
        case HCOMM_REDUCE_MIN: r = std::min(a, b); break;
        default: return {};
        }
        if (r < lo || r > hi)
            continue; // overflowed: what it becomes is API.RED.8's (STRICT) business
        const wide_int g = integer_at(t, got, i);
        if (g != r)
            return "element " + std::to_string(i) + " is " + integer_text(g) + ", but " + integer_text(a) + " " +
                   reduce_op_name(op) + " " + integer_text(b) + " is " + integer_text(r) + ", which the type holds";
    }
    return {};
}

uint64_t bits_at(const ReduceType &t, std::span<const std::byte> bytes, size_t i)
{
    uint64_t raw = 0;
    std::memcpy(&raw, bytes.data() + i * t.size, t.size);
    return raw;
}

// The exact value of a op b when the floating type holds it as a normal number, else
// nothing: then the result depends on how an implementation rounds, flushes or
// overflows, which is API.RED.8's (STRICT). Every element of these types is a double,
// and a sum or product is exact in double when its rounding error (TwoSum, fma) is 0.
std::optional<double> exact_float_result(const ReduceType &t, uint32_t op, double a, double b)
{
    double r = 0;
    switch (op) {
    case HCOMM_REDUCE_SUM: {
        r = a + b;
        const double bb = r - a;
        if ((a - (r - bb)) + (b - bb) != 0)
            return std::nullopt;
        break;
    }
    case HCOMM_REDUCE_PROD:
        r = a * b;
        if (std::isfinite(r) && std::fma(a, b, -r) != 0)
            return std::nullopt;
        break;
    case HCOMM_REDUCE_MAX: r = std::max(a, b); break;
    case HCOMM_REDUCE_MIN: r = std::min(a, b); break;
    default: return std::nullopt;
    }
    if (!std::isfinite(r) || r == 0) // a zero's sign depends on the rounding direction
        return std::nullopt;
    const FloatShape f = shape_of(t);
    const int bias = (1 << (f.exponent - 1)) - 1;
    const int e = std::ilogb(r);
    if (e < 1 - bias || e > bias) // subnormal (an implementation may flush it) or beyond the type
        return std::nullopt;
    const double units = std::ldexp(std::fabs(r), f.fraction - e); // r in units of its last place
    if (units != std::floor(units))
        return std::nullopt; // more significant bits than the type has
    return r;
}

std::string exact_float_mismatch(const ReduceType &t, uint32_t op, const ReduceCase &c, std::span<const std::byte> got)
{
    const FloatShape f = shape_of(t);
    const size_t n = std::min({got.size(), c.dst.size(), c.src.size()}) / t.size;
    for (size_t i = 0; i < n; ++i) {
        const double a = float_value(t, bits_at(t, c.dst, i)), b = float_value(t, bits_at(t, c.src, i));
        const std::optional<double> r = exact_float_result(t, op, a, b);
        if (!r)
            continue;
        const uint64_t g = bits_at(t, got, i);
        const bool finite = exponent_field(t, g) != (1 << f.exponent) - 1;
        if (!finite || float_value(t, g) != *r) {
            char got_text[40] = "infinite or NaN", text[200];
            if (finite)
                std::snprintf(got_text, sizeof got_text, "%.17g", float_value(t, g));
            std::snprintf(text, sizeof text, "element %zu is %s, but %.17g %s %.17g is %.17g, which the type holds", i,
                          got_text, a, reduce_op_name(op).c_str(), b, *r);
            return text;
        }
    }
    return {};
}

} // namespace

std::string exact_result_mismatch(const ReduceType &t, uint32_t op, const ReduceCase &c, std::span<const std::byte> got)
{
    if (t.kind == ReduceType::Kind::Signed || t.kind == ReduceType::Kind::Unsigned)
        return exact_integer_mismatch(t, op, c, got);
    return exact_float_mismatch(t, op, c, got);
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
