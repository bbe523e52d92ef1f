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

// HCOMM_REF_NOTIFY = binary (default) | counting: whether a channel or thread
// notify coalesces repeated records (the vendor's hardware) or counts them, one
// wait per record (a legal variant, WWN.PRF.1). Read once per process.
bool counting_notifies();

// HCOMM_REF_IB_DEV: name of the verbs device to use (default: the first one).
std::string ib_device_name();

// Legal variants of the data path (reference_impl/README.md, "Environment"); each
// read once, off (0) by default.
// HCOMM_REF_DOORBELL_COMPLETION=1: a write's task ends once its WRs are posted,
// not when they complete (the vendor's stream moves on at the doorbell).
bool doorbell_completion();
// HCOMM_REF_NOTIFY_DELAY_MS=N: the notify of a write with notify is sent N ms
// after its payload completed.
std::chrono::milliseconds notify_delay();
// HCOMM_REF_SPLIT_REORDERED=K (2..64): the payload of a write with notify goes as
// K pieces posted last piece first, then the notify.
uint32_t split_reordered();
// HCOMM_REF_BATCH_READS = ordered (default) | fenced: ordered performs a batch's
// READ entries in array order, each complete before the next entry; fenced lets
// the plain WRITE / WRITE_REDUCE entries after a READ overtake it, and completes
// every held READ before the next entry that notifies or reads and before the
// batch ends (a fence on the notify only, as the vendor's UB path: IBTA lets an
// unfenced later WRITE pass an earlier READ). A legal variant (API.BT.4 is STRICT).
bool batch_reads_fenced();
// HCOMM_REF_REDUCE_ORDER = forward (default) | reverse: the order in which a
// reduction combines its elements (a legal variant: each element is independent).
bool reduce_reverse();
// HCOMM_REF_POLL_US=N (≤ 10000, default 200): how long a channel wait polls the
// channel's CQ itself before it sleeps, at first (PollBudget learns it per channel, up
// to 1 ms; 0: it sleeps at once, woken by the progress thread), and how long a worker
// out of tasks lingers, polling, before it sleeps.
std::chrono::microseconds poll_budget();
// HCOMM_REF_WWN_REFUSAL = not_support (default) | ptr: the code of a refused
// HcommWriteWithNotifyOnThread where the vendor's path finds no stream for the
// thread (host side, products without the call). Read once per process.
bool wwn_refusal_is_ptr();
// HCOMM_REF_LOCAL_UNREGISTERED = refuse (default) | warn: whether the local side of a
// transfer may lie outside the communication memory and every memory registered with
// HcclCommMemReg. warn accepts such a range, when this process may access it, with a
// logged warning (the vendor's device path only warns); refuse answers HCCL_E_PARA.
// Read once per process.
bool local_unregistered_warn();
// HCOMM_REF_WAIT_REPORT: a directory where the process keeps its wait report
// (wait_report.h: blocked waits, last notify per channel) for hcts launch; empty =
// none. Read once per process.
std::string wait_report_dir();

} // namespace hcomm_ref::env
