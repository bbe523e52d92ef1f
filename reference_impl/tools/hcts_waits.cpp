// hcts-waits DIR: prints who waits for what from the wait reports a job's processes
// keep in DIR (HCOMM_REF_WAIT_REPORT, src/wait_report.h): per rank, every blocked
// notify wait (thread, channel, peer rank, notify index) and the last notify the
// peer's record delivered on that channel. hcts launch runs it when its deadline
// expires. The files are untrusted input: sizes, magic and every field are checked.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "wait_report.h"

namespace fs = std::filesystem;
namespace wr = hcomm_ref::wait_report;

namespace {

struct Wait {
    uint32_t pid;
    wr::Kind kind;
    int32_t tid;
    uint32_t rank, peer, index, notify_num, timeout;
    uint64_t thread, channel, channel_key, start_ns;
    const wr::File *file;
};

uint64_t now_ns()
{
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

std::string ago(uint64_t then, uint64_t now)
{
    char text[64];
    const double s = then > now ? 0.0 : static_cast<double>(now - then) / 1e9;
    std::snprintf(text, sizeof text, "%.3f s", s);
    return text;
}

// The file as a snapshot, or nullptr (with the reason) when it is not a wait report.
std::unique_ptr<wr::File> load(const fs::path &path, std::string &why)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || size != sizeof(wr::File)) {
        why = "its size is " + (ec ? std::string("unknown") : std::to_string(size)) + ", not " +
              std::to_string(sizeof(wr::File));
        return nullptr;
    }
    auto file = std::make_unique<wr::File>();
    std::ifstream in(path, std::ios::binary);
    if (!in.read(reinterpret_cast<char *>(file.get()), sizeof(wr::File))) {
        why = "it could not be read";
        return nullptr;
    }
    if (file->magic.load() != wr::kMagic || file->version != wr::kVersion || file->wait_slots != wr::kWaitSlots ||
        file->channel_slots != wr::kChannelSlots) {
        why = "its header is not a version " + std::to_string(wr::kVersion) + " wait report";
        return nullptr;
    }
    return file;
}

const wr::ChannelSlot *received_on(const wr::File &file, uint64_t key)
{
    for (const auto &c : file.channels)
        if (key != 0 && c.key.load() == key && c.received.load() > 0)
            return &c;
    return nullptr;
}

std::string ms_timeout(uint32_t timeout)
{
    return timeout == 0 ? std::string("no timeout") : "timeout " + std::to_string(timeout) + " ms";
}

// A wait in the hcts ACL runtime (HcommRefAclWaitBegin): a host thread in a synchronisation
// or a stream's worker in a stream wait, and for an event or notify its last record.
void print_acl_wait(const Wait &w, uint64_t now)
{
    const auto stream = static_cast<unsigned long long>(w.thread);
    const auto object = static_cast<unsigned long long>(w.channel);
    const std::string waited = ago(w.start_ns, now);
    switch (w.kind) {
    case wr::Kind::acl_stream_sync:
        std::printf("  host thread (tid %d) waits in aclrtSynchronizeStream for stream 0x%llx of device %u: %u "
                    "task(s) queued or running, for %s (%s)\n",
                    w.tid, stream, w.peer, w.index, waited.c_str(), ms_timeout(w.timeout).c_str());
        return;
    case wr::Kind::acl_stream_destroy:
        std::printf("  host thread (tid %d) waits in aclrtDestroyStream/aclrtResetDevice for stream 0x%llx of device "
                    "%u to finish %u task(s), for %s\n",
                    w.tid, stream, w.peer, w.index, waited.c_str());
        return;
    case wr::Kind::acl_event_sync:
        std::printf("  host thread (tid %d) waits in aclrtSynchronizeEvent on event 0x%llx of device %u, for its "
                    "record %u, for %s (%s)\n",
                    w.tid, object, w.peer, w.index, waited.c_str(), ms_timeout(w.timeout).c_str());
        break;
    case wr::Kind::acl_stream_event:
        std::printf("  stream 0x%llx of device %u (worker tid %d) waits (aclrtStreamWaitEvent) on event 0x%llx, for "
                    "its record %u, for %s\n",
                    stream, w.peer, w.tid, object, w.index, waited.c_str());
        break;
    case wr::Kind::acl_stream_notify:
        std::printf("  stream 0x%llx of device %u (worker tid %d) waits (aclrtWaitAndResetNotify) on notify 0x%llx, "
                    "for %s (%s)\n",
                    stream, w.peer, w.tid, object, waited.c_str(), ms_timeout(w.timeout).c_str());
        break;
    default: return;
    }
    const char *what = w.kind == wr::Kind::acl_stream_notify ? "notify" : "event";
    if (const wr::ChannelSlot *c = received_on(*w.file, w.channel_key))
        std::printf("    last record of %s 0x%llx: record %u, %s ago\n", what, object, c->last_index.load(),
                    ago(c->last_ns.load(), now).c_str());
    else
        std::printf("    last record of %s 0x%llx: none (never recorded on a stream that ran it)\n", what, object);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        std::printf("usage: hcts-waits DIR\n\n"
                    "Prints who waits for what in a job whose processes ran with HCOMM_REF_WAIT_REPORT=DIR (the\n"
                    "reference hcomm keeps one file per process there, waits.<pid>): per rank, every notify wait\n"
                    "blocked now, with its thread, channel, peer rank and notify index, and the last notify the\n"
                    "peer recorded on that channel; and every wait in the hcts ACL runtime (stream and event\n"
                    "synchronisations, streams waiting on an event or notify, with its last record).\n"
                    "hcts launch runs it when its deadline expires.\n"
                    "Exit status: 0 report printed, 2 bad usage or DIR unreadable.\n");
        return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("hcts-waits (wait report version %u)\n", wr::kVersion);
        return 0;
    }
    if (argc != 2) {
        std::fprintf(stderr, "hcts-waits: expected one argument, the report directory (hcts-waits --help)\n");
        return 2;
    }
    const fs::path dir = argv[1];
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        std::fprintf(stderr, "hcts-waits: cannot read the directory '%s': %s\n", argv[1], ec.message().c_str());
        return 2;
    }
    std::vector<std::unique_ptr<wr::File>> files;
    std::vector<Wait> waits;
    uint64_t dropped = 0;
    for (const auto &entry : it) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("waits.", 0) != 0)
            continue;
        std::string why;
        auto file = load(entry.path(), why);
        if (!file) {
            std::printf("hcts-waits: skipped %s: %s\n", entry.path().c_str(), why.c_str());
            continue;
        }
        dropped += file->dropped.load();
        for (const auto &s : file->waits) {
            if (s.state.load() != wr::kPublished)
                continue;
            const auto kind = static_cast<wr::Kind>(s.kind.load());
            if (kind == wr::Kind::none || kind > wr::Kind::acl_stream_notify)
                continue;
            waits.push_back({file->pid, kind, s.tid.load(), s.rank.load(), s.peer.load(), s.index.load(),
                             s.notify_num.load(), s.timeout.load(), s.thread.load(), s.channel.load(),
                             s.channel_key.load(), s.start_ns.load(), file.get()});
        }
        files.push_back(std::move(file));
    }
    if (files.empty()) {
        std::printf("hcts-waits: no wait reports in %s (did the processes load the reference hcomm?)\n", argv[1]);
        return 0;
    }
    std::sort(waits.begin(), waits.end(), [](const Wait &a, const Wait &b) {
        return std::tie(a.rank, a.pid, a.tid, a.start_ns) < std::tie(b.rank, b.pid, b.tid, b.start_ns);
    });
    const uint64_t now = now_ns();
    std::printf("who waits for what (%zu process(es), %zu blocked wait(s)):\n", files.size(), waits.size());
    for (const auto &f : files) {
        const bool alive = ::kill(static_cast<pid_t>(f->pid), 0) == 0;
        const auto n = std::count_if(waits.begin(), waits.end(), [&](const Wait &w) { return w.file == f.get(); });
        if (n == 0)
            std::printf("  pid %u: no blocked wait%s\n", f->pid, alive ? "" : " (process ended)");
    }
    // Grouped by rank, then process; ACL waits outside any communicator's streams last, per process.
    uint32_t last_rank = UINT32_MAX - 1;
    uint32_t last_pid = 0;
    for (const Wait &w : waits) {
        if (w.rank != last_rank || (w.rank == UINT32_MAX && w.pid != last_pid)) {
            if (w.rank == UINT32_MAX)
                std::printf("no communicator (pid %u):\n", w.pid);
            else
                std::printf("rank %u (pid %u):\n", w.rank, w.pid);
            last_rank = w.rank;
            last_pid = w.pid;
        }
        if (w.kind >= wr::Kind::acl_stream_sync) {
            print_acl_wait(w, now);
            continue;
        }
        char timeout[32];
        if (w.timeout == 0)
            std::snprintf(timeout, sizeof timeout, "no timeout");
        else
            std::snprintf(timeout, sizeof timeout, "timeOut %u", w.timeout);
        const std::string range = w.index < w.notify_num ? "" : " (outside the bank!)";
        if (w.kind == wr::Kind::thread) {
            std::printf("  thread 0x%llx (tid %d) waits on its thread notify %u of %u%s, for %s (%s)\n",
                        static_cast<unsigned long long>(w.thread), w.tid, w.index, w.notify_num, range.c_str(),
                        ago(w.start_ns, now).c_str(), timeout);
            continue;
        }
        std::printf(
            "  thread 0x%llx (tid %d) waits on channel 0x%llx to peer rank %u, notify %u of %u%s, for %s (%s)\n",
            static_cast<unsigned long long>(w.thread), w.tid, static_cast<unsigned long long>(w.channel), w.peer,
            w.index, w.notify_num, range.c_str(), ago(w.start_ns, now).c_str(), timeout);
        if (const wr::ChannelSlot *c = received_on(*w.file, w.channel_key))
            std::printf(
                "    last record by peer rank %u on this channel: notify %u, %s ago (%llu notify(s) received)\n",
                w.peer, c->last_index.load(), ago(c->last_ns.load(), now).c_str(),
                static_cast<unsigned long long>(c->received.load()));
        else
            std::printf("    last record by peer rank %u on this channel: none (no notify received)\n", w.peer);
    }
    if (dropped != 0)
        std::printf("hcts-waits: %llu wait(s) or channel(s) found no free slot and are not shown\n",
                    static_cast<unsigned long long>(dropped));
    return 0;
}
