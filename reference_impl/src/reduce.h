// Element-wise reductions for the *Reduce* calls: dst[i] = dst[i] (op) src[i].
// Integers wrap (two's complement); fp16/bf16 are computed in float and rounded
// to nearest even. INT128 and the 8-bit float formats are not supported.
#pragma once

#include <cstdint>

#include "hcomm/hcomm_primitives.h"

namespace hcomm_ref {

// Bytes per element, 0 for an unknown or unsupported type.
uint64_t reduce_type_size(int32_t data_type);
bool reduce_op_is_valid(int32_t op);
void reduce_into(void *dst, const void *src, uint64_t count, HcommDataType data_type, HcommReduceOp op);

// Exposed for tests.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

} // namespace hcomm_ref
