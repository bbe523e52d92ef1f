// Operands and expected results of the *Reduce* calls (dst[i] = dst[i] op src[i],
// api §5): small integers, so every sum, product, maximum and minimum is exact in
// every data type (int8 products stay within 127, fp16/bf16 hold them exactly),
// and the expected bytes do not depend on how an implementation rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hcts {

struct ReduceType {
    uint32_t type; // HcommDataType
    const char *name;
    uint32_t size; // bytes per element
    enum class Kind { Signed, Unsigned, Float, Half, BFloat } kind;
};

// The types the reference reduces: INT8..UINT64, FP16, FP32, FP64, BFP16.
const std::vector<ReduceType> &reduce_types();
// SUM, PROD, MAX, MIN.
const std::vector<uint32_t> &reduce_ops();
std::string reduce_op_name(uint32_t op);

// Element i of operand `which` (0: dst, 1: src) of combination `combo`.
double reduce_operand(const ReduceType &t, uint32_t combo, uint32_t which, uint64_t i);
double reduce_result(uint32_t op, double a, double b);
// `values` encoded as elements of `t`.
std::vector<std::byte> reduce_encode(const ReduceType &t, std::span<const double> values);

// One combination's three buffers: dst before, src, and dst after reducing the
// first `count` elements (the `extra` elements after them are left as they were).
struct ReduceCase {
    std::vector<std::byte> dst, src, want;
};
ReduceCase reduce_case(const ReduceType &t, uint32_t op, uint32_t combo, uint64_t count, uint64_t extra);

// Operands that make every op round (API.RED.8): for the floating types, sums of
// operands whose exponents differ by up to a little more than the precision (ties
// to even among them), products that overflow to infinity or fall to subnormals,
// maxima and minima of any finite values; for the integer types, sums and products
// of full-range values that wrap. `want` is an exact model that shares no code with
// any implementation: each result is computed in double and rounded once into the
// type, to nearest with ties to even (double has 53 >= 2p + 2 bits for FP32, FP16
// and BFP16, so the double result rounds as the exact one would; FP64's double op is
// itself correctly rounded); integers wrap modulo 2^bits. No NaN, infinity or zero
// operand: their MAX/MIN and NaN payloads are not what is judged here.
ReduceCase rounding_case(const ReduceType &t, uint32_t op, uint64_t count, uint64_t seed);

// "" unless an element whose exact result (dst op src) the type holds differs from it in
// `got`; then that element. For an integer type, a result that fits the type (computed
// without overflow); for a floating type, a normal number with no more significant bits
// than the type has. Such a result has one right answer whatever an implementation chose
// for rounding, overflow or subnormals, so its miss is a MUST's (API.RED.1/2), not the
// STRICT rounding clause's.
std::string exact_result_mismatch(const ReduceType &t, uint32_t op, const ReduceCase &c,
                                  std::span<const std::byte> got);

// "" when `got` equals `want`, else the first differing element of `t`, with both values.
std::string reduce_mismatch(const ReduceType &t, std::span<const std::byte> got, std::span<const std::byte> want);

} // namespace hcts
