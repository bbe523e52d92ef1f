#include "registry.h"

#include <map>
#include <mutex>
#include <set>

namespace hcomm_ref::registry {
namespace {

// Tags keep thread and channel handles apart (and bit 63, the vendor's plugin flag, clear).
constexpr uint64_t kThreadTag = 0x5448000000000000ULL;
constexpr uint64_t kChannelTag = 0x4348000000000000ULL;

struct Tables {
    std::mutex mutex;
    std::set<const void *> comms;
    std::map<uint64_t, std::shared_ptr<ThreadObj>> threads;
    std::map<uint64_t, std::shared_ptr<ChannelObj>> channels;
    uint64_t next = 1;
};

Tables &tables()
{
    static Tables t;
    return t;
}

}  // namespace

void add_comm(Comm *comm)
{
    std::lock_guard lock(tables().mutex);
    tables().comms.insert(comm);
}

void remove_comm(Comm *comm)
{
    std::lock_guard lock(tables().mutex);
    tables().comms.erase(comm);
}

bool comm_is_live(const void *comm)
{
    std::lock_guard lock(tables().mutex);
    return tables().comms.count(comm) != 0;
}

Comm *comm_by_pointer(const void *comm)
{
    std::lock_guard lock(tables().mutex);
    return tables().comms.count(comm) != 0 ? static_cast<Comm *>(const_cast<void *>(comm)) : nullptr;
}

ThreadHandle add_thread(const std::shared_ptr<ThreadObj> &thread)
{
    std::lock_guard lock(tables().mutex);
    const uint64_t handle = kThreadTag | tables().next++;
    thread->handle = handle;
    tables().threads[handle] = thread;
    return handle;
}

std::shared_ptr<ThreadObj> thread(ThreadHandle handle)
{
    std::lock_guard lock(tables().mutex);
    const auto it = tables().threads.find(handle);
    return it == tables().threads.end() ? nullptr : it->second;
}

void remove_thread(ThreadHandle handle)
{
    std::lock_guard lock(tables().mutex);
    tables().threads.erase(handle);
}

ChannelHandle add_channel(const std::shared_ptr<ChannelObj> &channel)
{
    std::lock_guard lock(tables().mutex);
    const uint64_t handle = kChannelTag | tables().next++;
    channel->handle = handle;
    tables().channels[handle] = channel;
    return handle;
}

std::shared_ptr<ChannelObj> channel(ChannelHandle handle)
{
    std::lock_guard lock(tables().mutex);
    const auto it = tables().channels.find(handle);
    return it == tables().channels.end() ? nullptr : it->second;
}

void remove_channel(ChannelHandle handle)
{
    std::lock_guard lock(tables().mutex);
    tables().channels.erase(handle);
}

}  // namespace hcomm_ref::registry
