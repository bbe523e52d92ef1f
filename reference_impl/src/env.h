// The environment variables the reference reads, parsed and checked in one place.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace hcomm_ref::env {

// HCCL_BUFFSIZE in MB (default HCCL_COMM_DEFAULT_BUFFSIZE = 200). nullopt when the
// value is set but not a whole number in [1, 1048576]; read at every comm creation.
std::optional<uint64_t> hccl_buffsize_mb();

// HCOMM_REF_TIMEOUT_UNIT = s (default) | ms: the unit of every timeOut argument.
// Read once per process.
std::chrono::milliseconds timeout_to_duration(uint64_t timeout);
bool timeout_unit_is_ms();

// HCOMM_REF_BOOTSTRAP_IF: an interface name or IPv4 address; empty = loopback.
std::string bootstrap_interface();

// HCOMM_REF_BOOTSTRAP_TIMEOUT_S: how long bootstrap steps wait for peers (default 120 s).
std::chrono::milliseconds bootstrap_timeout();

// HCOMM_REF_MAX_WRITE: optional cap (bytes) on one RDMA WRITE below the device's
// max_msg_sz, so tests reach the segmentation boundary with small buffers. 0 = none.
uint64_t max_write_cap();

// HCOMM_REF_IB_DEV: name of the verbs device to use (default: the first one).
std::string ib_device_name();

// HCOMM_REF_WWN_REFUSAL = not_support (default) | ptr: the code of a refused
// HcommWriteWithNotifyOnThread where the vendor's path finds no stream for the
// thread (host side, products without the call). Read once per process.
bool wwn_refusal_is_ptr();

} // namespace hcomm_ref::env
