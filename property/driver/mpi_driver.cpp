#include "driver/mpi_driver.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace hcts::prop {
namespace {

enum class Method : uint32_t { Reset, Call, Wait, PostWait, Join, WriteRegion, ReadRegion, Stop };

struct Header {
    Method method = Method::Stop;
    uint32_t rank = 0; // the rank that executes (all ranks for Reset)
    Geometry geometry;
    Op op;
    uint32_t off = 0;
    uint32_t len = 0; // payload bytes that follow (WriteRegion)
};
static_assert(std::is_trivially_copyable_v<Header>);

// A reply from the executing rank to rank 0.
struct Reply {
    int32_t ok = 1; // 0: the executing rank threw; `text` says why
    int32_t a = 0, b = 0, c = 0;
    std::vector<uint8_t> bytes;
    std::string text;
};

constexpr int kTag = 7301;

// A reply on the wire: this fixed part, then `bytes` bytes, then `text` bytes.
struct ReplyHead {
    int32_t ok, a, b, c;
    uint32_t bytes, text;
};
static_assert(std::is_trivially_copyable_v<ReplyHead> && sizeof(ReplyHead) == 24);

void send_reply(const Reply &r)
{
    const ReplyHead head{
        r.ok, r.a, r.b, r.c, static_cast<uint32_t>(r.bytes.size()), static_cast<uint32_t>(r.text.size())};
    std::vector<uint8_t> buf(sizeof head + head.bytes + head.text);
    std::memcpy(buf.data(), &head, sizeof head);
    std::copy(r.bytes.begin(), r.bytes.end(), buf.begin() + sizeof head);
    std::copy(r.text.begin(), r.text.end(), buf.begin() + sizeof head + head.bytes);
    MPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, kTag, MPI_COMM_WORLD);
}

Reply recv_reply(int from)
{
    MPI_Status st;
    MPI_Probe(from, kTag, MPI_COMM_WORLD, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::vector<uint8_t> buf(static_cast<size_t>(n));
    MPI_Recv(buf.data(), n, MPI_BYTE, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ReplyHead head;
    std::memcpy(&head, buf.data(), sizeof head);
    const uint8_t *bytes = buf.data() + sizeof head;
    const char *text = reinterpret_cast<const char *>(bytes + head.bytes);
    return {
        head.ok, head.a, head.b, head.c, std::vector<uint8_t>(bytes, bytes + head.bytes), std::string(text, head.text)};
}

void broadcast(Header &h, std::vector<uint8_t> &payload)
{
    MPI_Bcast(&h, sizeof h, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (h.len > 0) {
        payload.resize(h.len);
        MPI_Bcast(payload.data(), static_cast<int>(h.len), MPI_BYTE, 0, MPI_COMM_WORLD);
    }
}

// Executes one request on this process's driver.
Reply execute(Driver &d, const Header &h, const std::vector<uint8_t> &payload)
{
    Reply r;
    try {
        switch (h.method) {
        case Method::Reset: d.reset(h.geometry); break;
        case Method::Call: {
            const CallResult c = d.call(h.op);
            r.a = c.rc;
            r.b = c.task_error;
            break;
        }
        case Method::PostWait: r.a = d.post_wait(h.op); break;
        case Method::Wait:
        case Method::Join: {
            const WaitResult w = h.method == Method::Wait ? d.wait(h.op) : d.join(h.rank);
            r.a = w.rc;
            r.b = w.completed ? 1 : 0;
            r.bytes = w.snapshot;
            r.text = w.detail;
            break;
        }
        case Method::WriteRegion: d.write_region(h.rank, h.off, payload); break;
        case Method::ReadRegion: r.bytes = d.read_region(h.rank); break;
        case Method::Stop: break;
        }
    } catch (const std::exception &e) {
        r.ok = 0;
        r.text = e.what();
    }
    return r;
}

class MpiDriver final : public Driver {
  public:
    explicit MpiDriver(Driver &local) : local_(local) { MPI_Comm_size(MPI_COMM_WORLD, &size_); }
    std::string name() const override { return "mpi(" + std::to_string(size_) + " ranks, " + local_.name() + ")"; }

    void reset(const Geometry &g) override
    {
        if (g.ranks != static_cast<uint32_t>(size_))
            throw std::invalid_argument("MpiDriver: geometry has " + std::to_string(g.ranks) + " ranks, MPI started " +
                                        std::to_string(size_));
        Header h;
        h.method = Method::Reset;
        h.geometry = g;
        std::vector<uint8_t> none;
        broadcast(h, none);
        // Reset is collective: every process builds its rank, then reports.
        Reply mine = execute(local_, h, none);
        std::string errors = mine.ok ? "" : "rank 0: " + mine.text + "\n";
        for (int r = 1; r < size_; ++r) {
            const Reply rr = recv_reply(r);
            if (!rr.ok)
                errors += "rank " + std::to_string(r) + ": " + rr.text + "\n";
        }
        if (!errors.empty())
            throw std::runtime_error("reset failed on some ranks:\n" + errors);
    }
    CallResult call(const Op &op) override
    {
        const Reply r = request(Method::Call, op.rank, op);
        return {r.a, r.b};
    }
    WaitResult wait(const Op &op) override { return to_wait(request(Method::Wait, op.rank, op)); }
    int32_t post_wait(const Op &op) override { return request(Method::PostWait, op.rank, op).a; }
    WaitResult join(uint32_t rank) override { return to_wait(request(Method::Join, rank, Op{})); }
    void write_region(uint32_t rank, uint32_t off, std::span<const uint8_t> bytes) override
    {
        request(Method::WriteRegion, rank, Op{}, off, std::vector<uint8_t>(bytes.begin(), bytes.end()));
    }
    std::vector<uint8_t> read_region(uint32_t rank) override { return request(Method::ReadRegion, rank, Op{}).bytes; }

  private:
    static WaitResult to_wait(const Reply &r)
    {
        WaitResult w;
        w.rc = r.a;
        w.completed = r.b != 0;
        w.snapshot = r.bytes;
        w.detail = r.text;
        return w;
    }
    Reply request(Method m, uint32_t rank, const Op &op, uint32_t off = 0, std::vector<uint8_t> payload = {})
    {
        Header h;
        h.method = m;
        h.rank = rank;
        h.op = op;
        h.off = off;
        h.len = static_cast<uint32_t>(payload.size());
        broadcast(h, payload);
        Reply r = rank == 0 ? execute(local_, h, payload) : recv_reply(static_cast<int>(rank));
        if (!r.ok)
            throw std::runtime_error("rank " + std::to_string(rank) + ": " + r.text);
        return r;
    }

    Driver &local_;
    int size_ = 1;
};

} // namespace

std::unique_ptr<Driver> make_mpi_driver(Driver &local) { return std::make_unique<MpiDriver>(local); }

void serve_mpi_driver(Driver &local)
{
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (;;) {
        Header h;
        std::vector<uint8_t> payload;
        broadcast(h, payload);
        if (h.method == Method::Stop)
            return;
        if (h.method == Method::Reset || h.rank == static_cast<uint32_t>(me))
            send_reply(execute(local, h, payload));
    }
}

void stop_mpi_servers()
{
    Header h;
    h.method = Method::Stop;
    std::vector<uint8_t> none;
    broadcast(h, none);
}

} // namespace hcts::prop
