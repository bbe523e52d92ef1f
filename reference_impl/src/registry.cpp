#include "registry.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <hcts/mutant.h>

namespace hcomm_ref::registry {
namespace {

// Tags keep thread and channel handles apart (and bit 63, the vendor's plugin flag, clear).
constexpr uint64_t kThreadTag = 0x5448000000000000ULL;
constexpr uint64_t kChannelTag = 0x4348000000000000ULL;
// Comm handles: not an address any allocation can have (user space ends below 2^47).
constexpr uint64_t kCommTag = 0x434F000000000000ULL;

struct Tables {
    std::mutex mutex;
    std::map<const void *, Comm *> comms; // handle -> comm
    std::map<uint64_t, std::shared_ptr<ThreadObj>> threads;
    std::map<uint64_t, std::shared_ptr<ChannelObj>> channels;
    uint64_t next = 1;
    std::vector<uint64_t> freed_threads; // only under mutant ref_thread_handle_recycled
    // In a forked child: the parent's tables as they were at the fork (consistent, their
    // lock was held across it). Never used, changed or freed: their comms, threads and
    // channels are the parent's, and so are the threads and sockets behind them.
    const Tables *inherited = nullptr;
};

// The process's tables; a forked child gets new ones (after_fork_in_child), so the
// parent's are never destroyed there. At exit the process's own thread and channel
// entries are released, as when the tables were a static object (the comms nobody
// destroyed stay as they are).
std::atomic<Tables *> g_tables{nullptr};

struct ReleaseAtExit {
    ~ReleaseAtExit()
    {
        std::map<uint64_t, std::shared_ptr<ThreadObj>> threads;
        std::map<uint64_t, std::shared_ptr<ChannelObj>> channels;
        Tables &t = *g_tables.load();
        std::lock_guard lock(t.mutex);
        threads.swap(t.threads);
        channels.swap(t.channels);
    }
};

void before_fork() { g_tables.load()->mutex.lock(); }
void after_fork_in_parent() { g_tables.load()->mutex.unlock(); }
// The child's own tables; the parent's stay locked, so nothing here can reach them.
// Handle serials go on from the parent's, so no handle of the parent names the child's.
void after_fork_in_child()
{
    Tables *parent = g_tables.load();
    auto *own = new Tables;
    own->next = parent->next;
    own->inherited = parent;
    g_tables.store(own);
}

Tables &tables()
{
    static const ReleaseAtExit made = [] {
        g_tables.store(new Tables);
        pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
        return ReleaseAtExit{};
    }();
    (void)made;
    return *g_tables.load(std::memory_order_acquire);
}

// Thread and channel tables work alike; the tag in a handle keeps the kinds apart.
template <typename Obj>
using Table = std::map<uint64_t, std::shared_ptr<Obj>> Tables::*;

template <typename Obj>
uint64_t add(Table<Obj> table, uint64_t tag, const std::shared_ptr<Obj> &obj)
{
    std::lock_guard lock(tables().mutex);
    const uint64_t handle = tag | tables().next++;
    obj->handle = handle;
    (tables().*table)[handle] = obj;
    return handle;
}

template <typename Obj>
std::shared_ptr<Obj> find(Table<Obj> table, uint64_t handle)
{
    std::lock_guard lock(tables().mutex);
    const auto &entries = tables().*table;
    const auto it = entries.find(handle);
    return it == entries.end() ? nullptr : it->second;
}

template <typename Obj>
void remove(Table<Obj> table, uint64_t handle)
{
    std::lock_guard lock(tables().mutex);
    (tables().*table).erase(handle);
}

} // namespace

void CommRef::release()
{
    if (comm_ != nullptr)
        std::exchange(comm_, nullptr)->leave();
}

void *add_comm(Comm *comm)
{
    std::lock_guard lock(tables().mutex);
    void *handle = reinterpret_cast<void *>(static_cast<uintptr_t>(kCommTag | tables().next++));
    comm->set_handle(handle);
    tables().comms[handle] = comm;
    return handle;
}

Comm *take_comm(const void *handle)
{
    std::lock_guard lock(tables().mutex);
    const auto it = tables().comms.find(handle);
    if (it == tables().comms.end())
        return nullptr;
    Comm *comm = it->second;
    tables().comms.erase(it);
    return comm;
}

int64_t count_rejection(const void *handle)
{
    if (handle == nullptr)
        return -1;
    std::lock_guard lock(tables().mutex);
    const auto it = tables().comms.find(handle);
    if (it == tables().comms.end())
        return -1;
    ++it->second->stats().rejected_calls;
    return it->second->rank();
}

bool inherited(const void *handle)
{
    for (const Tables *t = tables().inherited; t != nullptr; t = t->inherited) {
        const auto h = reinterpret_cast<uintptr_t>(handle);
        if (t->comms.count(handle) != 0 || t->threads.count(h) != 0 || t->channels.count(h) != 0)
            return true;
    }
    return false;
}

CommRef pin_comm(const void *handle)
{
    std::lock_guard lock(tables().mutex);
    const auto it = tables().comms.find(handle);
    if (it == tables().comms.end())
        return {};
    it->second->enter();
    return CommRef(it->second);
}

ThreadHandle add_thread(const std::shared_ptr<ThreadObj> &thread)
{
    // Mutant: the handles of removed threads are handed out again, so a stale
    // handle of a destroyed comm names a live thread of another.
    if (hcts::mutant("ref_thread_handle_recycled")) {
        std::lock_guard lock(tables().mutex);
        if (!tables().freed_threads.empty()) {
            const uint64_t handle = tables().freed_threads.back();
            tables().freed_threads.pop_back();
            thread->handle = handle;
            tables().threads[handle] = thread;
            return handle;
        }
    }
    return add(&Tables::threads, kThreadTag, thread);
}
std::shared_ptr<ThreadObj> thread(ThreadHandle handle) { return find(&Tables::threads, handle); }
void remove_thread(ThreadHandle handle)
{
    remove(&Tables::threads, handle);
    if (hcts::mutant("ref_thread_handle_recycled")) {
        std::lock_guard lock(tables().mutex);
        tables().freed_threads.push_back(handle);
    }
}

ChannelHandle add_channel(const std::shared_ptr<ChannelObj> &channel)
{
    return add(&Tables::channels, kChannelTag, channel);
}
std::shared_ptr<ChannelObj> channel(ChannelHandle handle) { return find(&Tables::channels, handle); }
void remove_channel(ChannelHandle handle) { remove(&Tables::channels, handle); }

} // namespace hcomm_ref::registry
