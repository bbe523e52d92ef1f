#include "device.h"

#include <cstring>
#include <stdexcept>

#include "case.h"
#include "hcts/core/adapter.h"
#include "hcts/core/library.h"
#include "hcts/core/stamp.h"

namespace hcts {

namespace {

uint64_t addr(const void *p) { return reinterpret_cast<uint64_t>(p); }

// The feature a case must declare to issue an op.
Feature feature_of(uint32_t kind)
{
    switch (kind) {
    case HCTS_OP_WWN: return Feature::WriteWithNotify;
    case HCTS_OP_WRITE: return Feature::Write;
    case HCTS_OP_READ: return Feature::Read;
    case HCTS_OP_RECORD: return Feature::NotifyRecord;
    case HCTS_OP_WAIT: return Feature::NotifyWait;
    case HCTS_OP_LOCAL_COPY: return Feature::LocalCopy;
    case HCTS_OP_FENCE: return Feature::ChannelFence;
    case HCTS_OP_WAIT_DEFAULT: return Feature::DefaultTimeoutWait;
    case HCTS_OP_SET_WAIT_TIMEOUT: return Feature::SetWaitTimeout;
    case HCTS_OP_THREAD_RECORD:
    case HCTS_OP_THREAD_WAIT: return Feature::ThreadNotify;
    case HCTS_OP_THREAD_WAIT_DEFAULT: return Feature::ThreadDefaultWait;
    case HCTS_OP_ACLRT_RECORD:
    case HCTS_OP_ACLRT_WAIT: return Feature::AclrtNotify;
    case HCTS_OP_CHANNEL_RECORD:
    case HCTS_OP_CHANNEL_WAIT:
    case HCTS_OP_FENCE_ON_THREAD:
    case HCTS_OP_CHANNEL_FENCE: return Feature::HostOnlyCalls;
    case HCTS_OP_DRAIN: return Feature::Drain;
    case HCTS_OP_BATCH_TRANSFER:
    case HCTS_OP_REUSE_ARGS: return Feature::BatchTransfer; // no call: it refills a batch's array
    case HCTS_OP_BATCH_START:
    case HCTS_OP_BATCH_END: return Feature::BatchMode;
    case HCTS_OP_ACQUIRE_COMM:
    case HCTS_OP_RELEASE_COMM: return Feature::CommAccess;
    case HCTS_OP_TC_LOOKUP:
    case HCTS_OP_TC_START:
    case HCTS_OP_TC_END:
    case HCTS_OP_TC_EXECUTE:
    case HCTS_OP_TC_CLEAR: return Feature::TaskCache;
    case HCTS_OP_THREAD_JOIN: return Feature::ThreadJoin;
    case HCTS_OP_LOCAL_REDUCE: return Feature::LocalReduce;
    case HCTS_OP_WRITE_REDUCE: return Feature::WriteReduce;
    case HCTS_OP_WRITE_REDUCE_WITH_NOTIFY: return Feature::WriteReduceWithNotify;
    case HCTS_OP_READ_REDUCE: return Feature::ReadReduce;
    case HCTS_OP_WRITE_NBI_ON_THREAD:
    case HCTS_OP_WRITE_NBI:
    case HCTS_OP_WRITE_WITH_NOTIFY_NBI_ON_THREAD:
    case HCTS_OP_WRITE_WITH_NOTIFY_NBI:
    case HCTS_OP_READ_NBI_ON_THREAD:
    case HCTS_OP_READ_NBI: return Feature::Nbi;
    default: throw std::logic_error("hcts: op kind " + std::to_string(kind) + " has no feature");
    }
}

} // namespace

std::string LaunchResult::describe() const
{
    return "launch rc " + hccl_result_name(rc) + ", program returned " + std::to_string(status.program_return) +
           ", task error " + hccl_result_name(status.task_error) + (status.timed_out != 0 ? ", deadline passed" : "");
}

Trouble LaunchResult::trouble() const
{
    if (ok())
        return Trouble::None;
    if (status.program_return == HCTS_PROG_MISSING_API)
        return Trouble::Missing;
    if (status.program_return == HCTS_PROG_BAD_ARGS || (rc != 0 && rc != HCCL_E_TIMEOUT && status.task_error == 0))
        return Trouble::Harness;
    return Trouble::Iut;
}

Script::Script() : block_(std::make_unique<hcts_prog_ops_v2>())
{
    std::memset(block_.get(), 0, sizeof(*block_));
    block_->version = HCTS_PROG_OPS_V2;
    block_->size = sizeof(hcts_prog_ops_v2);
}

Script &Script::add(const hcts_op &op)
{
    if (block_->op_count >= HCTS_PROG_MAX_OPS)
        throw std::length_error("a device script holds at most " + std::to_string(HCTS_PROG_MAX_OPS) + " ops");
    block_->ops[block_->op_count++] = op;
    return *this;
}

Script &Script::wwn(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len, uint32_t idx)
{
    return add({HCTS_OP_WWN, idx, t, c, addr(dst), addr(src), len, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::write(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len)
{
    return add({HCTS_OP_WRITE, 0, t, c, addr(dst), addr(src), len, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::read(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len)
{
    return add({HCTS_OP_READ, 0, t, c, addr(dst), addr(src), len, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::record(ThreadHandle t, ChannelHandle c, uint32_t idx)
{
    return add({HCTS_OP_RECORD, idx, t, c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::wait(ThreadHandle t, ChannelHandle c, uint32_t idx, uint32_t timeout)
{
    return add({HCTS_OP_WAIT, idx, t, c, 0, 0, 0, timeout, 0, 0, 0, 0, 0, 0});
}
Script &Script::copy(ThreadHandle t, void *dst, const void *src, uint64_t len)
{
    return add({HCTS_OP_LOCAL_COPY, 0, t, 0, addr(dst), addr(src), len, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::fence(ThreadHandle t, ChannelHandle c)
{
    return add({HCTS_OP_FENCE, 0, t, c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::wait_default(ThreadHandle t, ChannelHandle c, uint32_t idx)
{
    return add({HCTS_OP_WAIT_DEFAULT, idx, t, c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::set_wait_timeout(float seconds)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &seconds, sizeof bits);
    return add({HCTS_OP_SET_WAIT_TIMEOUT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, bits});
}
uint64_t Script::pool(const void *data, size_t len)
{
    const size_t at = (pool_used_ + 7) & ~size_t{7};
    if (at + len > HCTS_PROG_POOL_BYTES)
        throw std::length_error("a device script's pool holds at most " + std::to_string(HCTS_PROG_POOL_BYTES) +
                                " bytes");
    if (len != 0)
        std::memcpy(&block_->pool[at], data, len);
    pool_used_ = at + len;
    return at;
}
uint64_t Script::pool_string(std::optional<std::string_view> s)
{
    if (!s)
        return HCTS_OP_POOL_NULL;
    const std::string z(*s); // with its NUL
    return pool(z.c_str(), z.size() + 1);
}
Script &Script::add_tagged(uint32_t kind, std::optional<std::string_view> tag)
{
    return add({kind, 0, 0, 0, HCTS_OP_POOL_NULL, HCTS_OP_POOL_NULL, 0, 0, 0, 0, 0, 0, 0, pool_string(tag)});
}
Script &Script::thread_record(ThreadHandle t, ThreadHandle dst_thread, uint32_t idx)
{
    return add({HCTS_OP_THREAD_RECORD, idx, t, dst_thread, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::thread_wait(ThreadHandle t, uint32_t idx, uint32_t timeout)
{
    return add({HCTS_OP_THREAD_WAIT, idx, t, 0, 0, 0, 0, timeout, 0, 0, 0, 0, 0, 0});
}
Script &Script::thread_join(ThreadHandle t, uint32_t timeout)
{
    return add({HCTS_OP_THREAD_JOIN, 0, t, 0, 0, 0, 0, timeout, 0, 0, 0, 0, 0, 0});
}
Script &Script::thread_wait_default(ThreadHandle t, uint32_t idx)
{
    return add({HCTS_OP_THREAD_WAIT_DEFAULT, idx, t, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::aclrt_record(ThreadHandle t, uint64_t notify_id)
{
    return add({HCTS_OP_ACLRT_RECORD, 0, t, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, notify_id});
}
Script &Script::aclrt_wait(ThreadHandle t, uint64_t notify_id, uint32_t timeout)
{
    return add({HCTS_OP_ACLRT_WAIT, 0, t, 0, 0, 0, 0, timeout, 0, 0, 0, 0, 0, notify_id});
}
Script &Script::channel_record(ChannelHandle c, uint32_t idx)
{
    return add({HCTS_OP_CHANNEL_RECORD, idx, 0, c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::channel_wait(ChannelHandle c, uint32_t idx, uint32_t timeout)
{
    return add({HCTS_OP_CHANNEL_WAIT, idx, 0, c, 0, 0, 0, timeout, 0, 0, 0, 0, 0, 0});
}
Script &Script::fence_on_thread(ThreadHandle t)
{
    return add({HCTS_OP_FENCE_ON_THREAD, 0, t, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::channel_fence(ChannelHandle c)
{
    return add({HCTS_OP_CHANNEL_FENCE, 0, 0, c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::drain(ThreadHandle t, ChannelHandle c)
{
    return add({HCTS_OP_DRAIN, 0, t, c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::batch(ThreadHandle t, ChannelHandle c, std::span<const HcommBatchTransferDesc> descs,
                      std::optional<uint32_t> count)
{
    const uint64_t at = descs.empty() ? HCTS_OP_POOL_NULL : pool(descs.data(), descs.size_bytes());
    return add({HCTS_OP_BATCH_TRANSFER, 0, t, c, 0, 0, count.value_or(static_cast<uint32_t>(descs.size())), 0, 0, 0, 0,
                0, 0, at});
}
Script &Script::reuse_last_batch_descs(std::span<const HcommBatchTransferDesc> with)
{
    for (size_t i = block_->op_count; i-- > 0;) {
        const hcts_op &b = block_->ops[i];
        if (b.kind != HCTS_OP_BATCH_TRANSFER)
            continue;
        if (b.aux == HCTS_OP_POOL_NULL || b.len != with.size())
            throw std::invalid_argument("reuse_last_batch_descs: the last batch has " + std::to_string(b.len) +
                                        " descriptors in the pool; " + std::to_string(with.size()) + " given");
        const uint64_t at = b.aux, from = pool(with.data(), with.size_bytes());
        return add({HCTS_OP_REUSE_ARGS, 0, 0, 0, 0, from, with.size_bytes(), 0, 0, 0, 0, 0, 0, at});
    }
    throw std::invalid_argument("reuse_last_batch_descs: the script has no batch");
}
Script &Script::batch_start(std::optional<std::string_view> tag) { return add_tagged(HCTS_OP_BATCH_START, tag); }
Script &Script::batch_end(std::optional<std::string_view> tag) { return add_tagged(HCTS_OP_BATCH_END, tag); }
Script &Script::acquire_comm(std::optional<std::string_view> id) { return add_tagged(HCTS_OP_ACQUIRE_COMM, id); }
Script &Script::release_comm(std::optional<std::string_view> id) { return add_tagged(HCTS_OP_RELEASE_COMM, id); }
Script &Script::tc_lookup(std::optional<std::string_view> tag, bool with_is_hit)
{
    add_tagged(HCTS_OP_TC_LOOKUP, tag);
    const bool unset = false;
    block_->ops[block_->op_count - 1].dst = with_is_hit ? pool(&unset, sizeof unset) : HCTS_OP_POOL_NULL;
    return *this;
}
bool Script::is_hit(size_t i) const
{
    const uint64_t at = block_->ops[i].dst;
    return at < HCTS_PROG_POOL_BYTES && block_->pool[at] != 0;
}
Script &Script::tc_start(std::optional<std::string_view> tag) { return add_tagged(HCTS_OP_TC_START, tag); }
Script &Script::tc_end(std::optional<std::string_view> tag) { return add_tagged(HCTS_OP_TC_END, tag); }
Script &Script::tc_execute(std::optional<std::string_view> tag) { return add_tagged(HCTS_OP_TC_EXECUTE, tag); }
Script &Script::tc_clear(std::optional<std::string_view> tag) { return add_tagged(HCTS_OP_TC_CLEAR, tag); }
Script &Script::local_reduce(ThreadHandle t, void *dst, const void *src, uint64_t count, uint32_t type, uint32_t op)
{
    return add({HCTS_OP_LOCAL_REDUCE, 0, t, 0, addr(dst), addr(src), count, 0, 0, 0, type, op, 0, 0});
}
Script &Script::write_reduce(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t count, uint32_t type,
                             uint32_t op)
{
    return add({HCTS_OP_WRITE_REDUCE, 0, t, c, addr(dst), addr(src), count, 0, 0, 0, type, op, 0, 0});
}
Script &Script::write_reduce_notify(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t count,
                                    uint32_t type, uint32_t op, uint32_t idx)
{
    return add({HCTS_OP_WRITE_REDUCE_WITH_NOTIFY, idx, t, c, addr(dst), addr(src), count, 0, 0, 0, type, op, 0, 0});
}
Script &Script::read_reduce(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t count, uint32_t type,
                            uint32_t op)
{
    return add({HCTS_OP_READ_REDUCE, 0, t, c, addr(dst), addr(src), count, 0, 0, 0, type, op, 0, 0});
}
Script &Script::nbi(uint32_t kind, ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len,
                    uint32_t idx)
{
    if (kind < HCTS_OP_WRITE_NBI_ON_THREAD || kind > HCTS_OP_READ_NBI)
        throw std::logic_error("hcts: op kind " + std::to_string(kind) + " is not an Nbi call");
    return add({kind, idx, t, c, addr(dst), addr(src), len, 0, 0, 0, 0, 0, 0, 0});
}
Script &Script::only_if_previous_ok()
{
    if (block_->op_count < 2)
        throw std::logic_error("hcts: only_if_previous_ok() needs two ops");
    block_->ops[block_->op_count - 1].flags |= HCTS_OP_F_IF_PREV_OK;
    return *this;
}

Script &Script::only_if_previous_failed()
{
    if (block_->op_count < 2)
        throw std::logic_error("hcts: only_if_previous_failed() needs two ops");
    block_->ops[block_->op_count - 1].flags |= HCTS_OP_F_IF_PREV_FAILED;
    return *this;
}

LaunchResult Device::run(Script &s, uint32_t timeout_ms, const CaseSpec *declared) const
{
    LaunchResult r;
    if (s.empty())
        return r;
    if (declared != nullptr)
        for (size_t i = 0; i < s.size(); ++i)
            if (const Feature f = feature_of(s.op(i).kind);
                !declared->has(f) && !(f == Feature::WriteWithNotify && declared->has(Feature::ProductRow)))
                throw std::logic_error("hcts: case " + declared->name + " issues an op of feature " +
                                       std::string(feature_name(feature_of(s.op(i).kind))) +
                                       " it does not declare in needs(...)");
    r.rc = adapter_.run(comm_, "ops", &s.block(), sizeof(hcts_prog_ops_v2),
                        timeout_ms != 0 ? timeout_ms : default_timeout_ms_, r.status);
    return r;
}

void Device::put(void *dev, std::span<const std::byte> host) const
{
    adapter_.to_device(dev, host.data(), host.size());
}

std::vector<std::byte> Device::get(const void *dev, size_t len) const
{
    std::vector<std::byte> out(len);
    adapter_.to_host(out.data(), dev, len);
    return out;
}

void Device::poison(void *dev, size_t len) const { stamp(dev, len, kPoisonWord); }

void Device::stamp(void *dev, size_t len, uint64_t pattern_word) const
{
    std::vector<std::byte> p(len);
    fill_pattern(p, pattern_word);
    put(dev, p);
}

} // namespace hcts

namespace hcts {

std::optional<bool> Device::peek_notify(ChannelHandle channel, uint32_t idx) const
{
    return use_peek_ ? adapter_.peek_notify(comm_, channel, idx) : std::nullopt;
}

bool Device::can_peek() const { return use_peek_ && adapter_.can_peek(); }

} // namespace hcts
