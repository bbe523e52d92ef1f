// Handle tables: every handle the library gives out is looked up here before use,
// so a zero, stale, foreign or made-up handle is refused instead of dereferenced.
// A forked child starts with empty tables: its parent's handles are foreign to it.
#pragma once

#include <memory>
#include <utility>

#include "comm.h"

namespace hcomm_ref::registry {

// A call's hold on a live comm: while one exists, HcclCommDestroy does not free
// the comm (it waits, see api_comm.cpp). Made only by the lookups below, under the
// table lock, so a destroy that unregistered the comm first then sees every
// holder it has to wait for, and no new one comes.
class CommRef {
  public:
    CommRef() = default;
    ~CommRef() { release(); }
    CommRef(CommRef &&other) noexcept : comm_(std::exchange(other.comm_, nullptr)) {}
    CommRef &operator=(CommRef &&other) noexcept
    {
        if (this != &other) {
            release();
            comm_ = std::exchange(other.comm_, nullptr);
        }
        return *this;
    }
    CommRef(const CommRef &) = delete;
    CommRef &operator=(const CommRef &) = delete;

    Comm *get() const { return comm_; }
    Comm *operator->() const { return comm_; }
    // The checks and refusals take the plain pointer; it is valid while this lives.
    operator Comm *() const { return comm_; } // NOLINT(google-explicit-constructor)

  private:
    friend CommRef pin_comm(const void *handle);
    // Whether `handle` (a comm, thread or channel) was live in the process this one was
    // forked from: a child inherits its parent's handles but none of them is live here.
    bool inherited(const void *handle);
    explicit CommRef(Comm *comm) : comm_(comm) {}
    void release();
    Comm *comm_ = nullptr;
};

// A comm's handle (the HcclComm handed out) is a serial number, never its
// address: an address is reused by the allocator, so a stale handle of a
// destroyed comm would name a newer comm there (and a second destroy destroy it).
// Serial numbers are never reused within the process.
void *add_comm(Comm *comm);
// HcclCommDestroy's first step: unregisters the comm behind `handle` and returns
// it (now owned by the caller), or null when it is not live (stale, made up, or a
// concurrent destroy took it first). Later lookups of it fail; holders remain.
Comm *take_comm(const void *handle);
// Counts a refused call on the comm behind `handle` if it is still live, under the
// table lock; returns its rank, or -1 when the handle is null or gone.
int64_t count_rejection(const void *handle);
// The live comm behind `handle` (an HcclComm, or the comm_id of a thread or
// channel), held for the caller; empty for a stale, foreign or made-up handle and
// for a comm being destroyed.
CommRef pin_comm(const void *handle);
// Whether `handle` (a comm, thread or channel) was live in the process this one was
// forked from: a child inherits its parent's handles but none of them is live here.
bool inherited(const void *handle);

ThreadHandle add_thread(const std::shared_ptr<ThreadObj> &thread);
std::shared_ptr<ThreadObj> thread(ThreadHandle handle);
void remove_thread(ThreadHandle handle);

ChannelHandle add_channel(const std::shared_ptr<ChannelObj> &channel);
std::shared_ptr<ChannelObj> channel(ChannelHandle handle);
void remove_channel(ChannelHandle handle);

} // namespace hcomm_ref::registry
