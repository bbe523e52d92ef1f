#include "wait_report.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pthread.h>

#include <chrono>
#include <mutex>
#include <string>

#include "env.h"
#include "log.h"

namespace hcomm_ref::wait_report {
namespace {

// The process's file, mapped at the first use; nullptr when the report is off or
// the file could not be made (said once). A forked child makes its own file
// (waits.<its pid>) and drops its mapping of the parent's, which it must not write.
File *make_file()
{
    const std::string dir = env::wait_report_dir();
    if (dir.empty())
        return nullptr;
    const std::string path = dir + "/waits." + std::to_string(::getpid());
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::ftruncate(fd, sizeof(File)) != 0) {
        HREF_LOG_WARN(-1, "HCOMM_REF_WAIT_REPORT: cannot create ", path, "; no wait report");
        if (fd >= 0)
            ::close(fd);
        return nullptr;
    }
    void *p = ::mmap(nullptr, sizeof(File), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
        HREF_LOG_WARN(-1, "HCOMM_REF_WAIT_REPORT: cannot map ", path, "; no wait report");
        return nullptr;
    }
    auto *f = static_cast<File *>(p); // zero-filled by ftruncate: every slot free
    f->version = kVersion;
    f->pid = static_cast<uint32_t>(::getpid());
    f->wait_slots = kWaitSlots;
    f->channel_slots = kChannelSlots;
    f->magic.store(kMagic, std::memory_order_release);
    return f;
}

struct Mapped {
    std::mutex mutex; // held across fork (pthread_atfork), so a child finds it free
    bool made = false;
    File *file = nullptr;
};

Mapped &mapped()
{
    static Mapped &m = *[] {
        auto *made = new Mapped;
        pthread_atfork([] { mapped().mutex.lock(); }, [] { mapped().mutex.unlock(); },
                       [] {
                           Mapped &own = mapped();
                           if (own.file != nullptr)
                               ::munmap(own.file, sizeof(File));
                           own.file = nullptr;
                           own.made = false;
                           own.mutex.unlock();
                       });
        return made;
    }();
    return m;
}

File *file()
{
    if (env::wait_report_dir().empty())
        return nullptr;
    Mapped &m = mapped();
    std::lock_guard lock(m.mutex);
    if (!m.made) {
        m.made = true;
        m.file = make_file();
    }
    return m.file;
}

uint64_t now_ns()
{
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

constexpr auto relaxed = std::memory_order_relaxed;

} // namespace

WaitScope::WaitScope(Kind kind, uint32_t rank, uint32_t peer, uint32_t index, uint32_t notify_num, uint32_t timeout,
                     uint64_t thread, uint64_t channel, const void *channel_key)
{
    File *f = file();
    if (f == nullptr)
        return;
    for (WaitSlot &s : f->waits) {
        uint32_t expected = kFree;
        if (!s.state.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire))
            continue;
        s.kind.store(static_cast<uint32_t>(kind), relaxed);
        s.tid.store(static_cast<int32_t>(::syscall(SYS_gettid)), relaxed);
        s.rank.store(rank, relaxed);
        s.peer.store(peer, relaxed);
        s.index.store(index, relaxed);
        s.notify_num.store(notify_num, relaxed);
        s.timeout.store(timeout, relaxed);
        s.thread.store(thread, relaxed);
        s.channel.store(channel, relaxed);
        s.channel_key.store(reinterpret_cast<uint64_t>(channel_key), relaxed);
        s.start_ns.store(now_ns(), relaxed);
        s.state.store(kPublished, std::memory_order_release);
        slot_ = &s;
        return;
    }
    f->dropped.fetch_add(1, relaxed);
}

WaitScope::~WaitScope()
{
    if (slot_ != nullptr)
        slot_->state.store(kFree, std::memory_order_release);
}

bool enabled() { return file() != nullptr; }

void notify_received(const void *channel_key, uint32_t rank, uint32_t peer, uint32_t index)
{
    File *f = file();
    const auto channel = reinterpret_cast<uint64_t>(channel_key);
    if (f == nullptr || channel == 0)
        return;
    for (ChannelSlot &s : f->channels) {
        uint64_t key = s.key.load(std::memory_order_acquire);
        if (key == 0) {
            if (!s.key.compare_exchange_strong(key, channel, std::memory_order_acq_rel))
                if (key != channel)
                    continue; // another channel took it
            s.rank.store(rank, relaxed);
            s.peer.store(peer, relaxed);
        } else if (key != channel) {
            continue;
        }
        s.last_index.store(index, relaxed);
        s.last_ns.store(now_ns(), relaxed);
        s.received.fetch_add(1, std::memory_order_release);
        return;
    }
    f->dropped.fetch_add(1, relaxed);
}

} // namespace hcomm_ref::wait_report
