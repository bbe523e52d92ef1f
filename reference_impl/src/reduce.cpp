#include "reduce.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include <hcts/mutant.h>

#include "env.h"

namespace hcomm_ref {
namespace {

template <typename T>
T combine(T a, T b, HcommReduceOp op)
{
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        switch (op) {
        case HCOMM_REDUCE_SUM: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
        case HCOMM_REDUCE_PROD: {
            // Promote to at least unsigned int so the product cannot overflow a signed int.
            using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
            return static_cast<T>(
                static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
        }
        case HCOMM_REDUCE_MAX: return std::max(a, b);
        case HCOMM_REDUCE_MIN: return std::min(a, b);
        default: return a;
        }
    } else {
        switch (op) {
        case HCOMM_REDUCE_SUM: return a + b;
        case HCOMM_REDUCE_PROD: return a * b;
        case HCOMM_REDUCE_MAX: return std::fmax(a, b);
        case HCOMM_REDUCE_MIN: return std::fmin(a, b);
        default: return a;
        }
    }
}

// How an element is stored and what it is computed in: most types as themselves,
// fp16 and bf16 as their bits, widened to float and rounded back.
template <typename T>
struct Native {
    using Stored = T;
    static T widen(T v) { return v; }
    static T narrow(T v) { return v; }
};

template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
struct Float16 {
    using Stored = uint16_t;
    static float widen(uint16_t v) { return ToFloat(v); }
    static uint16_t narrow(float v) { return FromFloat(v); }
};

// Mutant codec: FP64 computed in float, as fp16 and bf16 are widened (blind set 7, M06).
struct DoubleInFloat {
    using Stored = double;
    static float widen(double v) { return static_cast<float>(v); }
    static double narrow(float v) { return static_cast<double>(v); }
};

template <typename Codec>
void reduce_elements(void *dst, const void *src, uint64_t count, HcommReduceOp op)
{
    using S = typename Codec::Stored;
    auto *d = static_cast<unsigned char *>(dst);
    const auto *s = static_cast<const unsigned char *>(src);
    const bool reverse = env::reduce_reverse();
    for (uint64_t k = 0; k < count; ++k) {
        const uint64_t i = reverse ? count - 1 - k : k;
        S a;
        S b;
        std::memcpy(&a, d + i * sizeof(S), sizeof(S)); // any alignment
        std::memcpy(&b, s + i * sizeof(S), sizeof(S));
        const S r = Codec::narrow(combine(Codec::widen(a), Codec::widen(b), op));
        std::memcpy(d + i * sizeof(S), &r, sizeof(S));
    }
}

template <typename T>
void reduce_typed(void *dst, const void *src, uint64_t count, HcommReduceOp op)
{
    reduce_elements<Native<T>>(dst, src, count, op);
}

} // namespace

float half_to_float(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    const uint32_t exponent = (h >> 10) & 0x1FU;
    uint32_t mantissa = h & 0x3FFU;
    uint32_t bits = 0;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000U | (mantissa << 13); // inf / nan
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112U) << 23) | (mantissa << 13);
    } else if (mantissa != 0) { // subnormal: normalise
        uint32_t e = 113;
        while ((mantissa & 0x400U) == 0) {
            mantissa <<= 1;
            --e;
        }
        bits = sign | (e << 23) | ((mantissa & 0x3FFU) << 13);
    } else {
        bits = sign;
    }
    return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f)
{
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
    const uint32_t abs = bits & 0x7FFFFFFFU;
    if (abs >= 0x7F800000U) { // inf or nan (keep nan quiet and non-zero)
        return static_cast<uint16_t>(sign | 0x7C00U | (abs > 0x7F800000U ? 0x200U : 0));
    }
    // Mutant: 65504, the largest half, already taken as overflow.
    if (abs >=
        (hcts::mutant("ref_half_max_overflows") ? 0x477FE000U : 0x477FF000U)) { // rounds to >= 65520: overflow to inf
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (abs < 0x38800000U) { // below the smallest normal half: subnormal or zero
        if (abs < 0x33000000U) {
            return sign; // rounds to zero
        }
        const uint32_t exponent = abs >> 23;
        const uint32_t mantissa = (abs & 0x7FFFFFU) | 0x800000U;
        const uint32_t shift = 126U - exponent; // 14..24
        uint32_t value = mantissa >> shift;
        const uint32_t rest = mantissa & ((1U << shift) - 1U);
        const uint32_t half = 1U << (shift - 1U);
        if (rest > half || (rest == half && (value & 1U) != 0)) {
            ++value;
        }
        return static_cast<uint16_t>(sign | value);
    }
    uint32_t value = ((abs >> 13) - (112U << 10));
    const uint32_t rest = abs & 0x1FFFU;
    if (rest > 0x1000U || (rest == 0x1000U && (value & 1U) != 0)) {
        ++value;
    }
    return static_cast<uint16_t>(sign | value);
}

float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bf16(float f)
{
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 0x7FFFFFFFU) > 0x7F800000U) {
        return static_cast<uint16_t>((bits >> 16) | 0x40U); // quiet nan
    }
    // Mutant (selftest/catalogue/blind3.yaml): the low half is cut off (round toward zero).
    if (hcts::mutant("ref_bf16_round_truncates"))
        return static_cast<uint16_t>(bits >> 16);
    const uint32_t rounding = 0x7FFFU + ((bits >> 16) & 1U);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

uint64_t reduce_type_size(int32_t data_type)
{
    switch (data_type) {
    case HCOMM_DATA_TYPE_INT8:
    case HCOMM_DATA_TYPE_UINT8: return 1;
    case HCOMM_DATA_TYPE_INT16:
    case HCOMM_DATA_TYPE_UINT16:
    case HCOMM_DATA_TYPE_FP16: return 2;
    // Mutant: bf16 missing from the type table, so every bf16 reduction is refused.
    case HCOMM_DATA_TYPE_BFP16: return hcts::mutant("ref_reduce_bf16_unsupported") ? 0 : 2;
    case HCOMM_DATA_TYPE_INT32:
    case HCOMM_DATA_TYPE_UINT32:
    case HCOMM_DATA_TYPE_FP32: return 4;
    case HCOMM_DATA_TYPE_INT64:
    case HCOMM_DATA_TYPE_UINT64:
    case HCOMM_DATA_TYPE_FP64: return 8;
    default: return 0; // INT128, HIF8, FP8*: not reducible here
    }
}

bool reduce_op_is_valid(int32_t op)
{
    // Mutant: the bound is the enum's last value (RESERVED), so 4..255 pass and reduce nothing.
    if (hcts::mutant("ref_reduce_op_bound_reserved"))
        return op >= HCOMM_REDUCE_SUM && op <= HCOMM_REDUCE_RESERVED;
    return op >= HCOMM_REDUCE_SUM && op <= HCOMM_REDUCE_MIN;
}

void reduce_into(void *dst, const void *src, uint64_t count, HcommDataType data_type, HcommReduceOp op)
{
    switch (data_type) {
    case HCOMM_DATA_TYPE_INT8: reduce_typed<int8_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_UINT8: reduce_typed<uint8_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_INT16: reduce_typed<int16_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_UINT16:
        // Mutant: UINT16 reduced as INT16 (a copy-paste in this switch): sums and products
        // agree, but MAX/MIN of values with the high bit set compare as negative.
        if (hcts::mutant("ref_reduce_uint16_as_int16"))
            reduce_typed<int16_t>(dst, src, count, op);
        else
            reduce_typed<uint16_t>(dst, src, count, op);
        break;
    case HCOMM_DATA_TYPE_INT32: reduce_typed<int32_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_UINT32: reduce_typed<uint32_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_INT64: reduce_typed<int64_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_UINT64: reduce_typed<uint64_t>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_FP32: reduce_typed<float>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_FP64:
        if (hcts::mutant("ref_fp64_reduced_in_float"))
            reduce_elements<DoubleInFloat>(dst, src, count, op);
        else
            reduce_typed<double>(dst, src, count, op);
        break;
    case HCOMM_DATA_TYPE_FP16: reduce_elements<Float16<half_to_float, float_to_half>>(dst, src, count, op); break;
    case HCOMM_DATA_TYPE_BFP16: reduce_elements<Float16<bf16_to_float, float_to_bf16>>(dst, src, count, op); break;
    default: break;
    }
}

} // namespace hcomm_ref
