// Data movement: local copies and reductions, one-sided transfers over channels,
// with and without a notify, their Nbi forms and batches.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include <hcts/mutant.h>

#include "data_path.h"
#include "env.h"
#include "hcomm/hcomm_primitives.h"
#include "mem_probe.h"
#include "reduce.h"

using namespace hcomm_ref;

namespace {

bool overlap(const void *a, const void *b, uint64_t len)
{
    const auto x = reinterpret_cast<uint64_t>(a);
    const auto y = reinterpret_cast<uint64_t>(b);
    return x < y ? y - x < len : x - y < len;
}

// The most entries one batch may hold: a bound so that a garbage count is refused
// before the array is read (the documents name none; docs/security.md).
constexpr uint32_t kMaxBatchDescs = 1U << 16;

bool wraps(const void *addr, uint64_t len) { return reinterpret_cast<uint64_t>(addr) > UINT64_MAX - len; }

// Local copies run on the thread's worker: a range this process cannot read (src) or
// write (dst) would kill the process there, so it is refused here.
HcclResult check_process_range(const Target &t, const char *api, void *dst, const void *src, uint64_t len)
{
    if (!range_accessible(src, len, Access::read)) {
        return refuse(t.comm, api, HCCL_E_PARA, "src ", src, " over ", len,
                      " bytes is not readable memory of this process");
    }
    if (!range_accessible(dst, len, Access::write)) {
        return refuse(t.comm, api, HCCL_E_PARA, "dst ", dst, " over ", len,
                      " bytes is not writable memory of this process");
    }
    return HCCL_SUCCESS;
}

// Checks shared by every channel transfer of `bytes` from local memory to the peer
// (write) or back (read); `notify` when the call raises one.
HcclResult check_transfer(const char *api, const Target &t, void *dst, const void *src, uint64_t bytes, bool write,
                          std::optional<uint32_t> notify)
{
    if (bytes == 0) {
        return refuse(t.comm, api, HCCL_E_PARA, "len is 0: the reference requires len > 0");
    }
    // Mutant: a length beyond the whole communication memory refused as out of memory.
    if (hcts::mutant("ref_len_beyond_memory_e_memory") && bytes > t.comm->memory().size()) {
        return refuse(t.comm, api, HCCL_E_MEMORY, "len ", bytes, " exceeds the communication memory");
    }
    if (notify) {
        if (hcts::mutant("ref_index_signed_compare")) {
            // Mutant: the bound compared as int32_t, so UINT32_MAX (-1) passes.
            if (static_cast<int32_t>(*notify) >= static_cast<int32_t>(t.channel->notify_num)) {
                return refuse(t.comm, api, HCCL_E_PARA, "notify index ", static_cast<int32_t>(*notify),
                              " is outside the channel's notifies");
            }
        } else if (const HcclResult rc = check_notify_index(api, t, *notify); rc != HCCL_SUCCESS) {
            // Mutant: the refusal reported as the vendor's unchecked index access ends, an internal error.
            return hcts::mutant("ref_index_refused_as_internal") ? HCCL_E_INTERNAL : rc;
        }
    }
    if (write) {
        if (const HcclResult rc = check_local(api, t, src, bytes, "src"); rc != HCCL_SUCCESS)
            return rc;
        return check_remote(api, t, dst, bytes, "dst");
    }
    if (const HcclResult rc = check_local(api, t, dst, bytes, "dst", Access::write); rc != HCCL_SUCCESS)
        return rc;
    return check_remote(api, t, src, bytes, "src");
}

// Mutant ref_host_refusal_after_submit: a host-side call refused as unsupported
// has already queued its write (the support rule runs after the enqueue).
void host_refusal_after_submit(const char *api, ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                               uint64_t len, std::optional<uint32_t> notify)
{
    Target t{registry::thread(thread), registry::channel(channel), {}};
    if (!t.thread || !t.channel)
        return;
    t.comm = registry::pin_comm(t.thread->comm_id);
    if (t.comm == nullptr)
        return;
    if (check_transfer(api, t, dst, src, len, true, notify) == HCCL_SUCCESS)
        submit(t.thread, [c = t.channel, dst, src, len, notify] { return do_write(c, dst, src, len, notify); });
}

// The mutants of a transfer refused by check_transfer that still leave a trace.
void refused_transfer_mutants(const char *api, const Target &t, void *dst, const void *src, uint64_t len,
                              std::optional<uint32_t> notify)
{
    if (!notify)
        return;
    // Mutant: the index is checked only after the payload was queued (ranges checked first).
    if (hcts::mutant("ref_index_checked_after_payload") && *notify >= t.channel->notify_num &&
        check_local(api, t, src, len, "src") == HCCL_SUCCESS && check_remote(api, t, dst, len, "dst") == HCCL_SUCCESS)
        submit(t.thread, [c = t.channel, dst, src, len] { return do_write(c, dst, src, len, std::nullopt); });
    // Mutant: the notify is staged before the overflow check refuses the length.
    if (hcts::mutant("ref_overflow_refusal_raises_notify") && (wraps(dst, len) || wraps(src, len)) &&
        *notify < t.channel->notify_num) {
        submit(t.thread, [c = t.channel, index = *notify] {
            return do_write(c, reinterpret_cast<void *>(c->peer.addr), c->comm->memory().base(), 0, index);
        });
    }
}

int32_t write_on_thread(const char *api, Api family, ThreadHandle thread, ChannelHandle channel, void *dst,
                        const void *src, uint64_t len, std::optional<uint32_t> notify)
{
    // Mutant: the length is judged before the pointers (E_PARA where the vendor's order gives E_PTR).
    if (hcts::mutant("ref_len_zero_checked_first") && len == 0)
        return refuse(nullptr, api, HCCL_E_PARA, "len is 0: the reference requires len > 0");
    // Mutant: channel 0 is looked up like any handle instead of being a NULL handle.
    if (hcts::mutant("ref_channel_zero_para") && channel == 0 && dst != nullptr && src != nullptr && thread != 0)
        return refuse(nullptr, api, HCCL_E_PARA, "channel 0x0 is not a live channel handle");
    // Mutant: a NULL src is left to the range check (E_PARA, after len) instead of E_PTR.
    if (hcts::mutant("ref_src_null_left_to_range") && src == nullptr && dst != nullptr) {
        Target t;
        if (const HcclResult rc = resolve_operands(api, family, thread, channel, dst, &t, t); rc != HCCL_SUCCESS)
            return rc;
        return check_transfer(api, t, dst, src, len, true, notify);
    }
    Target t;
    if (const HcclResult rc = resolve_operands(api, family, thread, channel, dst, src, t); rc != HCCL_SUCCESS) {
        if (rc == HCCL_E_NOT_SUPPORT && family == Api::write_with_notify && !is_device_side()) {
            // Mutant: a host-side call is treated as a bad thread argument, not as unsupported.
            if (hcts::mutant("ref_host_refusal_para"))
                return HCCL_E_PARA;
            if (hcts::mutant("ref_host_refusal_after_submit"))
                host_refusal_after_submit(api, thread, channel, dst, src, len, notify);
        }
        // The vendor's path finds no stream for such a thread and returns HCCL_E_PTR
        // (api §9.1 step 5, §9.4); HCOMM_REF_WWN_REFUSAL=ptr gives that code.
        if (rc == HCCL_E_NOT_SUPPORT && family == Api::write_with_notify && env::wwn_refusal_is_ptr())
            return HCCL_E_PTR;
        return rc;
    }
    if (const HcclResult rc = check_transfer(api, t, dst, src, len, true, notify); rc != HCCL_SUCCESS) {
        refused_transfer_mutants(api, t, dst, src, len, notify);
        return rc;
    }
    // May run while the thread's earlier writes on this QP are in flight (RC keeps their order).
    auto task = [c = t.channel, dst, src, len, notify, pending = note_pending_write(channel, thread, len)] {
        // Mutant ref_record_overtakes_large_write: the worker is busy with a large write (its
        // record, posted at the call, goes first).
        if (pending && hcts::mutant("ref_record_overtakes_large_write"))
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return do_write(c, dst, src, len, notify);
    };
    static_assert(TaskQueue::Task::kFitsInline<decltype(task)>, "a write's task must not allocate");
    submit(t.thread, std::move(task), t.channel->link.get());
    return HCCL_SUCCESS;
}

int32_t read_on_thread(const char *api, Api family, ThreadHandle thread, ChannelHandle channel, void *dst,
                       const void *src, uint64_t len)
{
    // Mutant: a NULL dst of a read is left to the local range check (E_PARA) instead of E_PTR.
    if (hcts::mutant("ref_read_null_dst_left_to_range") && family == Api::on_thread && dst == nullptr &&
        src != nullptr) {
        Target t;
        if (const HcclResult rc = resolve_operands(api, family, thread, channel, src, src, t); rc != HCCL_SUCCESS)
            return rc;
        return check_transfer(api, t, dst, src, len, false, std::nullopt);
    }
    Target t;
    if (const HcclResult rc = resolve_operands(api, family, thread, channel, dst, src, t); rc != HCCL_SUCCESS) {
        return rc;
    }
    if (const HcclResult rc = check_transfer(api, t, dst, src, len, false, std::nullopt); rc != HCCL_SUCCESS) {
        return rc;
    }
    // Mutant: the read's length is taken as the last offset, so its last byte is never fetched.
    const uint64_t fetched =
        hcts::mutant("ref_read_drops_last_byte") && family == Api::on_thread && len > 1 ? len - 1 : len;
    submit(t.thread, [c = t.channel, dst, src, fetched] { return do_read(c, dst, src, fetched); });
    return HCCL_SUCCESS;
}

int32_t reduce_on_thread(const char *api, Api family, ThreadHandle thread, ChannelHandle channel, void *dst,
                         const void *src, uint64_t count, int32_t raw_type, int32_t raw_op, bool write,
                         std::optional<uint32_t> notify)
{
    Target t;
    if (const HcclResult rc = resolve_operands(api, family, thread, channel, dst, src, t); rc != HCCL_SUCCESS) {
        return rc;
    }
    uint64_t bytes = 0;
    if (const HcclResult rc = check_reduce(api, t.comm, count, raw_type, raw_op, bytes); rc != HCCL_SUCCESS)
        return rc;
    // In range now: the enum values are made only after check_reduce.
    const auto type = static_cast<HcommDataType>(raw_type);
    const auto op = static_cast<HcommReduceOp>(raw_op);
    if (const HcclResult rc = check_transfer(api, t, dst, src, bytes, write, notify); rc != HCCL_SUCCESS)
        return rc;
    auto core = t.thread->core;
    if (write && !notify && hcts::mutant("ref_write_reduce_overwrites")) {
        // Mutant: the transfer type WRITE_REDUCE dispatched as a plain WRITE: dst = src.
        submit(t.thread, [c = t.channel, dst, src, bytes] { return do_write(c, dst, src, bytes, std::nullopt); });
        return HCCL_SUCCESS;
    }
    if (!write && hcts::mutant("ref_read_reduce_count_as_bytes")) {
        // Mutant: count taken as a byte count, so only count / element size elements are reduced.
        count = std::max<uint64_t>(1, bytes / reduce_type_size(type) / reduce_type_size(type));
    }
    if (write) {
        submit(t.thread, [c = t.channel, core, dst, src, count, type, op, notify] {
            return do_write_reduce(c, *core, dst, src, count, type, op, notify);
        });
    } else {
        // Reading into local memory: dst is local, src is the peer's.
        submit(t.thread, [c = t.channel, core, dst, src, count, type, op] {
            return do_read_reduce(c, *core, dst, src, count, type, op);
        });
    }
    return HCCL_SUCCESS;
}

// The Nbi forms without a thread run in the caller (host CPU engine) and return
// when the transfer is complete, which is more than "submitted" promises.
int32_t nbi_now(const char *api, ChannelHandle channel, void *dst, const void *src, uint64_t len, bool write,
                std::optional<uint32_t> notify)
{
    if (dst == nullptr || src == nullptr || channel == 0) {
        return refuse(nullptr, api, HCCL_E_PTR,
                      dst == nullptr   ? "dst"
                      : src == nullptr ? "src"
                                       : "channel",
                      " is NULL/0");
    }
    Target t;
    if (const HcclResult rc = resolve_channel_only(api, Api::nbi, channel, t); rc != HCCL_SUCCESS)
        return rc;
    if (const HcclResult rc = check_transfer(api, t, dst, src, len, write, notify); rc != HCCL_SUCCESS)
        return rc;
    return write ? do_write(t.channel, dst, src, len, notify) : do_read(t.channel, dst, src, len);
}

// One entry of a checked batch, run by the thread's task.
HcclResult run_batch_entry(const std::shared_ptr<ChannelObj> &c, ThreadCore &core, const HcommBatchTransferDesc &d)
{
    const auto &info = d.transferInfo;
    HcclResult rc = HCCL_SUCCESS;
    switch (d.transType) {
    case HCOMM_TRANSFER_TYPE_WRITE: rc = do_write(c, info.write.dst, info.write.src, info.write.len, {}); break;
    case HCOMM_TRANSFER_TYPE_READ: rc = do_read(c, info.read.dst, info.read.src, info.read.len); break;
    case HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY:
        rc = do_write(c, info.writeWithNotify.dst, info.writeWithNotify.src, info.writeWithNotify.len,
                      info.writeWithNotify.notifyIdx);
        break;
    case HCOMM_TRANSFER_TYPE_WRITE_REDUCE:
        rc = do_write_reduce(c, core, info.reduce.dst, info.reduce.src, info.reduce.count, info.reduce.dataType,
                             info.reduce.reduceOp, {});
        break;
    case HCOMM_TRANSFER_TYPE_READ_REDUCE:
        rc = do_read_reduce(c, core, info.reduce.dst, info.reduce.src, info.reduce.count, info.reduce.dataType,
                            info.reduce.reduceOp);
        break;
    case HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY: {
        const auto &r = info.writeReduceWithNotify;
        rc = do_write_reduce(c, core, r.dst, r.src, r.count, r.dataType, r.reduceOp, r.notifyIdx);
        break;
    }
    case HCOMM_TRANSFER_TYPE_NOTIFY_RECORD: {
        Comm &comm = *c->comm;
        void *base = comm.memory().base();
        // Mutant: the index is read from the wrong member of the union (writeWithNotify's).
        const uint32_t idx = hcts::mutant("ref_batch_notify_record_wrong_member") ? info.writeWithNotify.notifyIdx
                                                                                  : info.notifyRecord.notifyIdx;
        rc = do_write(c, reinterpret_cast<void *>(c->peer.addr), base, 0, idx);
        break;
    }
    default: rc = HCCL_E_INTERNAL; break;
    }
    return rc;
}

} // namespace

HCOMM_EXPORT int32_t HcommLocalCopyOnThread(ThreadHandle thread, void *dst, const void *src, uint64_t len)
{
    return guarded("HcommLocalCopyOnThread", [&]() -> int32_t {
        const char *api = "HcommLocalCopyOnThread";
        Target t;
        if (const HcclResult rc = resolve_operands(api, Api::on_thread, thread, std::nullopt, dst, src, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        if (len == 0 || wraps(dst, len) || wraps(src, len) || overlap(dst, src, len)) {
            return refuse(t.comm, api, HCCL_E_PARA, "len ", len, " with dst ", dst, " and src ", src,
                          ": len must be > 0 and the ranges must neither wrap nor overlap");
        }
        if (const HcclResult rc = check_process_range(t, api, dst, src, len); rc != HCCL_SUCCESS)
            return rc;
        // Mutant: the copy runs in 64 KiB chunks and drops a final partial chunk.
        const uint64_t copied = hcts::mutant("ref_local_copy_chunk_tail_dropped") && len > (64U << 10)
                                    ? len & ~((uint64_t{64} << 10) - 1)
                                    : len;
        submit(t.thread, [dst, src, copied] {
            std::memcpy(dst, src, copied);
            return HCCL_SUCCESS;
        });
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommLocalReduceOnThread(ThreadHandle thread, void *dst, const void *src, uint64_t count,
                                              HcommDataType dataTypeIn, HcommReduceOp reduceOpIn)
{
    return guarded("HcommLocalReduceOnThread", [&]() -> int32_t {
        const char *api = "HcommLocalReduceOnThread";
        Target t;
        if (const HcclResult rc = resolve_operands(api, Api::on_thread, thread, std::nullopt, dst, src, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        uint64_t bytes = 0;
        if (const HcclResult rc = check_reduce(api, t.comm, count, raw_enum(dataTypeIn), raw_enum(reduceOpIn), bytes);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Enum values only once in range (an out-of-range enum load is undefined behaviour).
        const auto dataType = static_cast<HcommDataType>(raw_enum(dataTypeIn));
        const auto reduceOp = static_cast<HcommReduceOp>(raw_enum(reduceOpIn));
        if (wraps(dst, bytes) || wraps(src, bytes) || (dst != src && overlap(dst, src, bytes))) {
            return refuse(t.comm, api, HCCL_E_PARA, "dst ", dst, " and src ", src, " over ", bytes,
                          " bytes wrap or partly overlap");
        }
        if (const HcclResult rc = check_process_range(t, api, dst, src, bytes); rc != HCCL_SUCCESS)
            return rc;
        // Mutant: MAX and MIN swapped in the local path's op table.
        const HcommReduceOp op = !hcts::mutant("ref_local_reduce_max_min_swapped") ? reduceOp
                                 : reduceOp == HCOMM_REDUCE_MAX                    ? HCOMM_REDUCE_MIN
                                 : reduceOp == HCOMM_REDUCE_MIN                    ? HCOMM_REDUCE_MAX
                                                                                   : reduceOp;
        submit(t.thread, [dst, src, count, dataType, op] {
            reduce_into(dst, src, count, dataType, op);
            return HCCL_SUCCESS;
        });
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                        uint64_t len)
{
    return guarded("HcommWriteOnThread", [&]() -> int32_t {
        // Mutant (selftest/catalogue/survivors.yaml): the write moves whole 4-byte words only,
        // dropping a tail of 1-3 bytes (lengths that are multiples of 4 are right).
        const uint64_t moved = len > 4 && hcts::mutant("ref_write_drops_sub_word_tail") ? len & ~uint64_t{3} : len;
        return write_on_thread("HcommWriteOnThread", Api::on_thread, thread, channel, dst, src, moved, std::nullopt);
    });
}

HCOMM_EXPORT int32_t HcommWriteReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                              uint64_t count, HcommDataType dataType, HcommReduceOp reduceOp)
{
    return guarded("HcommWriteReduceOnThread", [&]() -> int32_t {
        return reduce_on_thread("HcommWriteReduceOnThread", Api::on_thread, thread, channel, dst, src, count,
                                raw_enum(dataType), raw_enum(reduceOp), true, std::nullopt);
    });
}

HCOMM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                  const void *src, uint64_t len, uint32_t remoteNotifyIdx)
{
    return guarded("HcommWriteWithNotifyOnThread", [&]() -> int32_t {
        if (hcts::mutant("ref_wwn_drops_last_byte") && len > 1) {
            // Mutant (selftest/catalogue/runner-demo.yaml): the last byte of the payload is
            // never written, while the call succeeds and the notify still comes.
            return write_on_thread("HcommWriteWithNotifyOnThread", Api::write_with_notify, thread, channel, dst, src,
                                   len - 1, remoteNotifyIdx);
        }
        const int32_t rc = write_on_thread("HcommWriteWithNotifyOnThread", Api::write_with_notify, thread, channel, dst,
                                           src, len, remoteNotifyIdx);
        // Mutant: a call refused for its parameters (a range outside the memories, an
        // overflowing length) still raises its notify, as the vendor's path that goes on
        // with the nearest buffer would, and reports success.
        if (rc == HCCL_E_PARA && len != 0 && hcts::mutant("ref_wwn_refused_range_notifies"))
            return HcommChannelNotifyRecordOnThread(thread, channel, remoteNotifyIdx);
        return rc;
    });
}

HCOMM_EXPORT int32_t HcommWriteReduceWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                        const void *src, uint64_t count, HcommDataType dataType,
                                                        HcommReduceOp reduceOp, uint32_t remoteNotifyIdx)
{
    return guarded("HcommWriteReduceWithNotifyOnThread", [&]() -> int32_t {
        return reduce_on_thread("HcommWriteReduceWithNotifyOnThread", Api::write_with_notify, thread, channel, dst, src,
                                count, raw_enum(dataType), raw_enum(reduceOp), true, remoteNotifyIdx);
    });
}

HCOMM_EXPORT int32_t HcommReadOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                       uint64_t len)
{
    return guarded("HcommReadOnThread", [&]() -> int32_t {
        return read_on_thread("HcommReadOnThread", Api::on_thread, thread, channel, dst, src, len);
    });
}

HCOMM_EXPORT int32_t HcommReadReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                             uint64_t count, HcommDataType dataType, HcommReduceOp reduceOp)
{
    return guarded("HcommReadReduceOnThread", [&]() -> int32_t {
        return reduce_on_thread("HcommReadReduceOnThread", Api::on_thread, thread, channel, dst, src, count,
                                raw_enum(dataType), raw_enum(reduceOp), false, std::nullopt);
    });
}

HCOMM_EXPORT int32_t HcommWriteNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                           uint64_t len)
{
    return guarded("HcommWriteNbiOnThread", [&]() -> int32_t {
        return write_on_thread("HcommWriteNbiOnThread", Api::nbi, thread, channel, dst, src, len, std::nullopt);
    });
}

HCOMM_EXPORT int32_t HcommWriteNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    return guarded("HcommWriteNbi",
                   [&]() -> int32_t { return nbi_now("HcommWriteNbi", channel, dst, src, len, true, std::nullopt); });
}

HCOMM_EXPORT int32_t HcommWriteWithNotifyNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                     const void *src, uint64_t len, uint32_t remoteNotifyIdx)
{
    return guarded("HcommWriteWithNotifyNbiOnThread", [&]() -> int32_t {
        // Mutant (selftest/catalogue/survivors.yaml): a payload above 64 KiB goes out as plain
        // writes and its notify is forgotten (the call still succeeds).
        const bool forget = len > (64U << 10) && hcts::mutant("ref_wwn_nbi_long_forgets_notify");
        return write_on_thread("HcommWriteWithNotifyNbiOnThread", Api::nbi, thread, channel, dst, src, len,
                               forget ? std::nullopt : std::optional<uint32_t>(remoteNotifyIdx));
    });
}

HCOMM_EXPORT int32_t HcommWriteWithNotifyNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len,
                                             uint32_t remoteNotifyIdx)
{
    return guarded("HcommWriteWithNotifyNbi", [&]() -> int32_t {
        return nbi_now("HcommWriteWithNotifyNbi", channel, dst, src, len, true, remoteNotifyIdx);
    });
}

HCOMM_EXPORT int32_t HcommReadNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                          uint64_t len)
{
    return guarded("HcommReadNbiOnThread", [&]() -> int32_t {
        return read_on_thread("HcommReadNbiOnThread", Api::nbi, thread, channel, dst, src, len);
    });
}

HCOMM_EXPORT int32_t HcommReadNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    return guarded("HcommReadNbi",
                   [&]() -> int32_t { return nbi_now("HcommReadNbi", channel, dst, src, len, false, std::nullopt); });
}

namespace {
// The batch call itself; the export guards it (no exception crosses the C ABI).
int32_t batch_transfer_on_thread(ThreadHandle thread, ChannelHandle channel,
                                 const HcommBatchTransferDesc *transferDescs, uint32_t transferDescNum)
{
    const char *api = "HcommBatchTransferOnThread";
    if (transferDescs == nullptr || channel == 0 || thread == 0) {
        return refuse(nullptr, api, HCCL_E_PTR,
                      transferDescs == nullptr ? "transferDescs"
                      : channel == 0           ? "channel"
                                               : "thread",
                      " is NULL/0");
    }
    // The count and the array are checked before any entry is read (a huge
    // count read past the caller's array).
    if (transferDescNum > kMaxBatchDescs ||
        (transferDescNum != 0 &&
         !range_accessible(transferDescs, uint64_t{transferDescNum} * sizeof(HcommBatchTransferDesc), Access::read))) {
        return refuse(nullptr, api, HCCL_E_PARA, "transferDescNum ", transferDescNum, " (allowed 1..", kMaxBatchDescs,
                      ") or transferDescs ", static_cast<const void *>(transferDescs),
                      " not readable for that many entries");
    }
    // Every entry is checked before anything is enqueued: a refused batch moves nothing.
    bool any_notify_write = false;
    for (uint32_t i = 0; i < transferDescNum; ++i) {
        const int32_t type = raw_enum(transferDescs[i].transType);
        any_notify_write |=
            type == HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY || type == HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY;
    }
    // A batch holding a write with notify is supported where that call is.
    Target t;
    if (const HcclResult rc =
            resolve(api, any_notify_write ? Api::write_with_notify : Api::on_thread, thread, channel, t);
        rc != HCCL_SUCCESS) {
        return rc;
    }
    if (transferDescNum == 0) {
        if (hcts::mutant("ref_batch_empty_accepted")) // Mutant: an empty batch succeeds.
            return HCCL_SUCCESS;
        return refuse(t.comm, api, HCCL_E_PARA, "transferDescNum is 0");
    }
    std::vector<HcommBatchTransferDesc> batch(transferDescs, transferDescs + transferDescNum);
    auto core = t.thread->core;
    // The task that performs `entries` in order, stopping at the first failure.
    const auto submit_entries = [&](std::vector<HcommBatchTransferDesc> entries) {
        submit(t.thread, [c = t.channel, core, entries = std::move(entries)]() -> HcclResult {
            if (!env::batch_reads_fenced()) {
                for (const HcommBatchTransferDesc &d : entries)
                    if (const HcclResult rc = run_batch_entry(c, *core, d); rc != HCCL_SUCCESS)
                        return rc;
                return HCCL_SUCCESS;
            }
            // HCOMM_REF_BATCH_READS=fenced (legal): a READ is held while plain writes
            // after it go first; the held READs complete before the next entry that
            // notifies or reads, and before the batch ends.
            std::vector<const HcommBatchTransferDesc *> held;
            const auto run_held = [&]() -> HcclResult {
                for (const HcommBatchTransferDesc *h : held)
                    if (const HcclResult rc = run_batch_entry(c, *core, *h); rc != HCCL_SUCCESS)
                        return rc;
                held.clear();
                return HCCL_SUCCESS;
            };
            for (const HcommBatchTransferDesc &d : entries) {
                if (d.transType == HCOMM_TRANSFER_TYPE_READ) {
                    held.push_back(&d);
                    continue;
                }
                if (d.transType != HCOMM_TRANSFER_TYPE_WRITE && d.transType != HCOMM_TRANSFER_TYPE_WRITE_REDUCE)
                    if (const HcclResult rc = run_held(); rc != HCCL_SUCCESS)
                        return rc;
                if (const HcclResult rc = run_batch_entry(c, *core, d); rc != HCCL_SUCCESS)
                    return rc;
            }
            return run_held();
        });
    };
    const auto check_entry = [&](uint32_t i) -> HcclResult {
        const HcommBatchTransferDesc &d = batch[i];
        const auto &info = d.transferInfo;
        HcclResult rc = HCCL_SUCCESS;
        uint64_t bytes = 0;
        const std::string where = std::string(api) + " entry " + std::to_string(i);
        const int32_t type = raw_enum(d.transType);
        switch (type) {
        case HCOMM_TRANSFER_TYPE_WRITE:
        case HCOMM_TRANSFER_TYPE_READ:
        case HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY: {
            const bool read = type == HCOMM_TRANSFER_TYPE_READ;
            const bool notify = type == HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
            void *dst = notify ? info.writeWithNotify.dst : info.write.dst;
            void *src = notify ? info.writeWithNotify.src : info.write.src;
            if (dst == nullptr || src == nullptr) {
                return refuse(t.comm, where.c_str(), HCCL_E_PTR, "dst or src is NULL");
            }
            rc = check_transfer(where.c_str(), t, dst, src, info.write.len, !read,
                                notify ? std::optional<uint32_t>(info.writeWithNotify.notifyIdx) : std::nullopt);
            break;
        }
        case HCOMM_TRANSFER_TYPE_WRITE_REDUCE:
        case HCOMM_TRANSFER_TYPE_READ_REDUCE:
        case HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY: {
            const bool notify = type == HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY;
            const auto &r = info.reduce;
            // Mutant: a NULL operand of a reduce entry left to the range checks (E_PARA).
            if ((r.dst == nullptr || r.src == nullptr) && !hcts::mutant("ref_batch_reduce_null_para")) {
                return refuse(t.comm, where.c_str(), HCCL_E_PTR, "dst or src is NULL");
            }
            rc = check_reduce(where.c_str(), t.comm, r.count,
                              raw_enum(notify ? info.writeReduceWithNotify.dataType : r.dataType),
                              raw_enum(notify ? info.writeReduceWithNotify.reduceOp : r.reduceOp), bytes);
            if (rc == HCCL_SUCCESS) {
                rc = check_transfer(where.c_str(), t, r.dst, r.src, bytes, type != HCOMM_TRANSFER_TYPE_READ_REDUCE,
                                    notify ? std::optional<uint32_t>(info.writeReduceWithNotify.notifyIdx)
                                           : std::nullopt);
            }
            break;
        }
        case HCOMM_TRANSFER_TYPE_NOTIFY_RECORD:
            rc = check_notify_index(where.c_str(), t, info.notifyRecord.notifyIdx);
            break;
        default:
            // Mutant: an unknown type falls to the catch-all internal error (neither the reference's
            // HCCL_E_PARA nor the vendor's HCCL_E_NOT_SUPPORT).
            return refuse(t.comm, where.c_str(),
                          hcts::mutant("ref_batch_unknown_type_internal") ? HCCL_E_INTERNAL : HCCL_E_PARA, "transType ",
                          type, " is not a HcommTransferType (0..6)");
        }
        return rc;
    };
    for (uint32_t i = 0; i < transferDescNum; ++i) {
        if (const HcclResult rc = check_entry(i); rc != HCCL_SUCCESS) {
            // Mutant: the entries before the bad one were already handed to the thread.
            if (hcts::mutant("ref_batch_partial_submit") && i > 0)
                submit_entries({batch.begin(), batch.begin() + i});
            return rc;
        }
    }
    // Mutant: in a batch of three or more, the entries after the first are performed last first.
    if (hcts::mutant("ref_batch_tail_reversed") && batch.size() >= 3)
        std::reverse(batch.begin() + 1, batch.end());
    // Mutant (selftest/catalogue/blind3.yaml): the batch is regrouped so every
    // entry that is not a read runs before the reads (a blind mutant).
    if (hcts::mutant("ref_batch_writes_before_reads"))
        std::stable_partition(batch.begin(), batch.end(), [](const HcommBatchTransferDesc &d) {
            return d.transType != HCOMM_TRANSFER_TYPE_READ && d.transType != HCOMM_TRANSFER_TYPE_READ_REDUCE;
        });
    // Mutant: the last descriptor is read from the caller's array when the thread runs it,
    // not copied at the call (the caller may have refilled the array by then).
    if (hcts::mutant("ref_batch_last_desc_read_late") && batch.size() >= 2) {
        batch.pop_back();
        submit_entries(std::move(batch));
        submit(t.thread, [c = t.channel, core, last = &transferDescs[transferDescNum - 1]] {
            return run_batch_entry(c, *core, *last);
        });
        return HCCL_SUCCESS;
    }
    submit_entries(std::move(batch));
    return HCCL_SUCCESS;
}
} // namespace

HCOMM_EXPORT int32_t HcommBatchTransferOnThread(ThreadHandle thread, ChannelHandle channel,
                                                const HcommBatchTransferDesc *transferDescs, uint32_t transferDescNum)
{
    return guarded("HcommBatchTransferOnThread", [&]() -> int32_t {
        return batch_transfer_on_thread(thread, channel, transferDescs, transferDescNum);
    });
}
