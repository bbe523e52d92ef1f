#include "bootstrap.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstring>
#include <list>
#include <mutex>
#include <system_error>
#include <thread>

#include "env.h"
#include "log.h"

namespace hcomm_ref {
namespace {

constexpr char kMagic[8] = "HCTSREF";
constexpr uint32_t kVersion = 1;

using namespace bootstrap_wire;

template <typename T>
std::optional<T> decode(const std::vector<uint8_t> &payload)
{
    if (payload.size() != sizeof(T)) {
        return std::nullopt;
    }
    T value;
    std::memcpy(&value, payload.data(), sizeof(T));
    return value;
}

bool same_token(const uint8_t *a, const uint8_t *b)
{
    uint8_t diff = 0;
    for (size_t i = 0; i < kTokenBytes; ++i) {
        diff |= static_cast<uint8_t>(a[i] ^ b[i]);
    }
    return diff == 0;
}

void reject(const Fd &fd, HcclResult code)
{
    const uint32_t value = code;
    send_message(fd, kReject, bytes_of(value));
}

// The rendezvous: collects one join per rank, then hands every rank the table of
// listeners. Runs on its own thread until done, the deadline, or process exit.
class RootService {
  public:
    // `stop` is a valid eventfd; the thread's creation throws std::system_error when no
    // thread can be made (create_root_info refuses then).
    RootService(Fd listener, Fd stop, const uint8_t *token) : listener_(std::move(listener)), stop_(std::move(stop))
    {
        std::memcpy(token_, token, kTokenBytes);
        thread_ = std::thread([this] {
            pthread_setname_np(pthread_self(), "href-rendezvous");
            // An exception leaving a thread ends the process: the job's ranks time out instead.
            if (!run_quietly("the bootstrap rendezvous", [this] { run(); })) {
                listener_.reset(); // ranks still connecting fail now, not at the bootstrap deadline
                std::lock_guard lock(mutex_);
                finished_ = true;
            }
        });
    }
    ~RootService()
    {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = write(stop_.get(), &one, sizeof(one));
        join_quietly(thread_, "the bootstrap rendezvous");
    }
    RootService(const RootService &) = delete;
    RootService &operator=(const RootService &) = delete;
    // In a forked child: the service is the parent's (its thread runs there, not here).
    // Closes this process's copies of its sockets, never signalling the parent's thread
    // through the shared stop event; the object is then left alone for good.
    void disown()
    {
        listener_.reset();
        stop_.reset();
    }
    bool finished() const
    {
        std::lock_guard lock(mutex_);
        return finished_;
    }
    bool serves(const uint8_t *token) const { return same_token(token_, token); }

  private:
    // Connections accepted but not yet joined: each gets kPreAuth to send its join, and
    // at most kMaxPending wait at once (the oldest is dropped), so idle connections can
    // neither stall the rendezvous nor pile up (three idle ones made it fail).
    static constexpr auto kPreAuth = std::chrono::seconds(2);
    static constexpr size_t kMaxPending = 64;
    struct Pending {
        Fd fd;
        Deadline until;
    };

    // Waits for the listener, a pending connection or the stop event. False when
    // stopped or past `deadline`.
    bool wait(Deadline deadline, std::vector<Pending> &pending, bool &listener_ready, std::vector<bool> &ready) const
    {
        Deadline next = deadline;
        for (const Pending &p : pending)
            next = std::min(next, p.until);
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
        if (deadline <= Clock::now())
            return false;
        std::vector<pollfd> fds{{listener_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
        for (const Pending &p : pending)
            fds.push_back({p.fd.get(), POLLIN, 0});
        const int rc = poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(left, 0)));
        if (rc < 0 || (fds[1].revents & POLLIN) != 0)
            return false;
        listener_ready = (fds[0].revents & POLLIN) != 0;
        ready.assign(pending.size(), false);
        for (size_t i = 0; i < pending.size(); ++i)
            ready[i] = fds[i + 2].revents != 0;
        return true;
    }

    // The next connection that sent a message (its type and payload), or nullopt when
    // nothing did this round; `alive` false when stopped or past the deadline.
    std::optional<Fd> next_message(Deadline deadline, std::vector<Pending> &pending, uint32_t &type,
                                   std::vector<uint8_t> &payload, bool &alive)
    {
        bool listener_ready = false;
        std::vector<bool> ready;
        alive = wait(deadline, pending, listener_ready, ready);
        if (!alive)
            return std::nullopt;
        const Deadline now = Clock::now();
        std::optional<Fd> found;
        std::vector<Pending> kept;
        for (size_t i = 0; i < pending.size(); ++i) {
            if (!found && ready[i]) {
                Fd fd = std::move(pending[i].fd);
                if (recv_message(fd, std::min(deadline, pending[i].until), type, payload, 4096))
                    found = std::move(fd);
            } else if (pending[i].until > now) {
                kept.push_back(std::move(pending[i]));
            }
        }
        pending = std::move(kept);
        if (listener_ready) {
            if (auto fd = accept_until(listener_, now)) {
                if (pending.size() >= kMaxPending)
                    pending.erase(pending.begin());
                pending.push_back({std::move(*fd), Clock::now() + kPreAuth});
            }
        }
        return found;
    }

    void run()
    {
        const Deadline deadline = Clock::now() + env::bootstrap_timeout();
        uint32_t n_ranks = 0;
        std::vector<Fd> joined;
        std::vector<SockAddr> table;
        std::vector<Pending> pending;
        size_t count = 0;
        while (n_ranks == 0 || count < n_ranks) {
            uint32_t type = 0;
            std::vector<uint8_t> payload;
            bool alive = true;
            auto fd = next_message(deadline, pending, type, payload, alive);
            if (!alive) {
                if (Clock::now() >= deadline) // else stopped: its comm is gone, or the process exits
                    HREF_LOG_WARN(-1, "bootstrap root gave up: ", count, " of ", n_ranks, " ranks joined in time");
                break;
            }
            if (!fd)
                continue;
            const auto join = type == kJoin ? decode<JoinMessage>(payload) : std::nullopt;
            if (!join || !same_token(join->token, token_)) {
                HREF_LOG_WARN(-1, "bootstrap root refused a peer without the job token");
                reject(*fd, HCCL_E_PARA);
                continue;
            }
            // The job's size comes from its first join: bounded as HcclCommInitRootInfo bounds
            // nRanks, since the tables below are sized by it (found by fuzz_bootstrap: a join
            // claiming 2^32-1 ranks made the root allocate 23 GB).
            if (join->n_ranks == 0 || join->n_ranks > kMaxJobRanks) {
                HREF_LOG_ERROR(-1, "bootstrap root refused a join for a job of ", join->n_ranks, " ranks: at most ",
                               kMaxJobRanks);
                reject(*fd, HCCL_E_PARA);
                continue;
            }
            if (n_ranks == 0) {
                n_ranks = join->n_ranks;
                joined.resize(n_ranks);
                table.resize(n_ranks);
            }
            if (join->n_ranks != n_ranks || join->rank >= n_ranks || joined[join->rank].valid()) {
                HREF_LOG_ERROR(-1, "bootstrap root refused rank ", join->rank, " of ", join->n_ranks, ": the job has ",
                               n_ranks, " ranks and each rank joins once");
                reject(*fd, HCCL_E_PARA);
                continue;
            }
            table[join->rank] = join->listener;
            joined[join->rank] = std::move(*fd);
            ++count;
        }
        if (n_ranks != 0 && count == n_ranks) {
            const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t *>(table.data()),
                                                 table.size() * sizeof(SockAddr));
            for (const Fd &fd : joined) {
                send_message(fd, kTable, bytes);
            }
        }
        std::lock_guard lock(mutex_);
        finished_ = true;
    }

    Fd listener_;
    Fd stop_;
    uint8_t token_[kTokenBytes];
    mutable std::mutex mutex_;
    bool finished_ = false;
    std::thread thread_;
};

// Every service of the process; finished ones are reaped when a new one starts or
// a comm is destroyed, a comm's own job's service when that comm is destroyed, the
// rest are stopped and joined at exit.
// Each unfinished one holds a thread and 2 fds until its job joins or the bootstrap
// timeout: at most kMaxUnjoined at once, beyond that HcclGetRootInfo is refused.
class RootServices {
  public:
    // At fork, in the child (the lock is held across the fork): the services so far are the
    // parent's. Disowned and moved to `inherited`, never joined or freed (their threads are not
    // in this process, and it must not signal them); the child's list starts empty.
    void after_fork_in_child(std::list<std::unique_ptr<RootService>> &inherited)
    {
        for (const auto &s : services_)
            s->disown();
        inherited.splice(inherited.end(), services_);
        mutex_.unlock();
    }
    void lock() { mutex_.lock(); }
    void unlock() { mutex_.unlock(); }
    static constexpr size_t kMaxUnjoined = 256;
    // False (nothing started) when kMaxUnjoined services are still waiting for their job.
    bool has_room()
    {
        std::lock_guard lock(mutex_);
        services_.remove_if([](const auto &s) { return s->finished(); });
        return services_.size() < kMaxUnjoined;
    }
    void add(std::unique_ptr<RootService> service)
    {
        std::lock_guard lock(mutex_);
        services_.push_back(std::move(service));
    }
    // Outside the lock: joining may wait for the last tables to be sent.
    void end(const uint8_t *token)
    {
        std::list<std::unique_ptr<RootService>> ended;
        {
            std::lock_guard lock(mutex_);
            for (auto it = services_.begin(); it != services_.end();)
                if ((*it)->serves(token) || (*it)->finished())
                    ended.splice(ended.end(), services_, it++);
                else
                    ++it;
        }
    }

  private:
    std::mutex mutex_;
    std::list<std::unique_ptr<RootService>> services_;
};

// In a forked child: the services of the processes it was forked from, kept (never freed,
// joined or signalled). Allocated at the first fork only.
std::list<std::unique_ptr<RootService>> *g_inherited = nullptr;

// The process's services: stopped and joined at exit or when the library is unloaded,
// by the process that started them only (a forked child moves its parent's aside).
RootServices &root_services()
{
    static RootServices services;
    static const bool registered = [] {
        pthread_atfork([] { root_services().lock(); }, [] { root_services().unlock(); },
                       [] {
                           if (g_inherited == nullptr)
                               g_inherited = new std::list<std::unique_ptr<RootService>>;
                           root_services().after_fork_in_child(*g_inherited);
                       });
        return true;
    }();
    (void)registered;
    return services;
}

} // namespace

void end_root_service(const uint8_t *token) { root_services().end(token); }

HcclResult create_root_info(HcclRootInfo &out)
{
    const auto address = bootstrap_address();
    if (!address) {
        return HCCL_E_PARA;
    }
    if (!root_services().has_room()) {
        HREF_LOG_ERROR(-1, "HcclGetRootInfo: ", RootServices::kMaxUnjoined,
                       " root infos are still waiting for their ranks; join or let them time out first");
        return HCCL_E_UNAVAIL;
    }
    RootInfoWire wire{};
    std::memcpy(wire.magic, kMagic, sizeof(kMagic));
    wire.version = kVersion;
    if (getrandom(wire.token, sizeof(wire.token), 0) != static_cast<ssize_t>(sizeof(wire.token))) {
        HREF_LOG_ERROR(-1, "getrandom failed for the job token");
        return HCCL_E_SYSCALL;
    }
    SockAddr bound;
    Fd listener = listen_on(*address, bound);
    if (!listener.valid()) {
        return HCCL_E_TCP_CONNECT;
    }
    wire.ipv4 = bound.ipv4;
    wire.port = bound.port;
    // Without its stop event the service could not be ended before its deadline.
    Fd stop(eventfd(0, EFD_CLOEXEC));
    if (!stop.valid()) {
        HREF_LOG_ERROR(-1,
                       "HcclGetRootInfo: cannot create the rendezvous' stop event (eventfd): ", std::strerror(errno));
        return HCCL_E_UNAVAIL;
    }
    try {
        root_services().add(std::make_unique<RootService>(std::move(listener), std::move(stop), wire.token));
    } catch (const std::system_error &e) { // no more threads (RLIMIT_NPROC, memory)
        HREF_LOG_ERROR(-1, "HcclGetRootInfo: cannot start the rendezvous thread: ", e.code().message());
        return HCCL_E_UNAVAIL;
    }
    std::memset(&out, 0, sizeof(out));
    std::memcpy(out.internal, &wire, sizeof(wire));
    HREF_LOG_INFO(-1, "bootstrap root listening on ", to_string(bound));
    return HCCL_SUCCESS;
}

std::optional<RootInfoWire> parse_root_info(const HcclRootInfo &info)
{
    RootInfoWire wire;
    std::memcpy(&wire, info.internal, sizeof(wire));
    if (std::memcmp(wire.magic, kMagic, sizeof(kMagic)) != 0 || wire.version != kVersion || wire.port == 0) {
        return std::nullopt;
    }
    return wire;
}

HcclResult join_job(const RootInfoWire &root, uint32_t n_ranks, uint32_t rank, Mesh &mesh)
{
    const Deadline deadline = Clock::now() + env::bootstrap_timeout();
    const auto address = bootstrap_address();
    if (!address) {
        return HCCL_E_PARA;
    }
    SockAddr own;
    Fd listener = listen_on(*address, own);
    if (!listener.valid()) {
        return HCCL_E_TCP_CONNECT;
    }
    // 1. Join the rendezvous and get the table of listeners.
    auto root_link = connect_until({root.ipv4, root.port}, deadline);
    if (!root_link) {
        HREF_LOG_ERROR(rank, "cannot reach the bootstrap root at ", to_string({root.ipv4, root.port}));
        return HCCL_E_TCP_CONNECT;
    }
    JoinMessage join{};
    std::memcpy(join.token, root.token, kTokenBytes);
    join.n_ranks = n_ranks;
    join.rank = rank;
    join.listener = own;
    uint32_t type = 0;
    std::vector<uint8_t> payload;
    if (!send_message(*root_link, kJoin, bytes_of(join)) || !recv_message(*root_link, deadline, type, payload)) {
        HREF_LOG_ERROR(rank, "bootstrap root did not answer before the deadline (",
                       env::bootstrap_timeout().count() / 1000, " s)");
        return HCCL_E_TIMEOUT;
    }
    if (type != kTable || payload.size() != n_ranks * sizeof(SockAddr)) {
        HREF_LOG_ERROR(rank, "bootstrap root refused rank ", rank, " of ", n_ranks);
        return HCCL_E_PARA;
    }
    std::vector<SockAddr> table(n_ranks);
    std::memcpy(table.data(), payload.data(), payload.size());
    root_link->reset();

    // 2. Full mesh: connect to every lower rank, accept every higher one. Lower
    // ranks never wait on higher ones, so this cannot deadlock.
    mesh.links.clear();
    mesh.links.resize(n_ranks);
    for (uint32_t peer = 0; peer < rank; ++peer) {
        auto link = connect_until(table[peer], deadline);
        HelloMessage hello{};
        std::memcpy(hello.token, root.token, kTokenBytes);
        hello.from = rank;
        hello.to = peer;
        hello.n_ranks = n_ranks;
        if (!link || !send_message(*link, kHello, bytes_of(hello)) || !recv_message(*link, deadline, type, payload) ||
            type != kAck) {
            HREF_LOG_ERROR(rank, "cannot link to rank ", peer, " at ", to_string(table[peer]));
            return HCCL_E_TCP_CONNECT;
        }
        mesh.links[peer] = std::move(*link);
    }
    for (uint32_t pending = n_ranks - 1 - rank; pending > 0;) {
        auto link = accept_until(listener, deadline);
        if (!link) {
            HREF_LOG_ERROR(rank, pending, " higher ranks did not link in time");
            return HCCL_E_TIMEOUT;
        }
        if (!recv_message(*link, std::min(deadline, Clock::now() + std::chrono::seconds(10)), type, payload)) {
            continue;
        }
        const auto hello = type == kHello ? decode<HelloMessage>(payload) : std::nullopt;
        if (!hello || !same_token(hello->token, root.token) || hello->to != rank || hello->from <= rank ||
            hello->from >= n_ranks || hello->n_ranks != n_ranks || mesh.links[hello->from].valid()) {
            HREF_LOG_WARN(rank, "refused a bootstrap peer without the job token or with a bad rank");
            reject(*link, HCCL_E_PARA);
            continue;
        }
        const uint32_t ok = 0;
        if (!send_message(*link, kAck, bytes_of(ok))) {
            return HCCL_E_TCP_TRANSFER;
        }
        mesh.links[hello->from] = std::move(*link);
        --pending;
    }
    HREF_LOG_INFO(rank, "bootstrap mesh of ", n_ranks, " ranks ready");
    return HCCL_SUCCESS;
}

} // namespace hcomm_ref
