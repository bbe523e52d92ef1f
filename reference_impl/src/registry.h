// Handle tables: every handle the library gives out is looked up here before use,
// so a zero, stale, foreign or made-up handle is refused instead of dereferenced.
#pragma once

#include <memory>

#include "comm.h"

namespace hcomm_ref::registry {

// A comm's handle (the HcclComm handed out) is a serial number, never its
// address: an address is reused by the allocator, so a stale handle of a
// destroyed comm would name a newer comm there (and a second destroy destroy it).
// Serial numbers are never reused within the process.
void *add_comm(Comm *comm);
void remove_comm(Comm *comm);
bool comm_is_live(const void *comm);
// Counts a refused call on `comm` if it is still live, under the table lock (a
// concurrent HcclCommDestroy unregisters first, so a dying comm is never touched);
// returns its rank, or -1 when the comm is null or gone.
int64_t count_rejection(Comm *comm);
// The live comm behind the handle `comm`, or null for a stale, foreign or made-up one.
Comm *comm_by_pointer(const void *comm);

ThreadHandle add_thread(const std::shared_ptr<ThreadObj> &thread);
std::shared_ptr<ThreadObj> thread(ThreadHandle handle);
void remove_thread(ThreadHandle handle);

ChannelHandle add_channel(const std::shared_ptr<ChannelObj> &channel);
std::shared_ptr<ChannelObj> channel(ChannelHandle handle);
void remove_channel(ChannelHandle handle);

} // namespace hcomm_ref::registry
