// Bounded collectives for cases: every wait ends by a deadline, so a rank that
// never arrives turns into a TIMEOUT with diagnostics, never a hung job.
#include "hcts/mpi_harness.h"

#include "poll.h"
#include "runtime.h"

namespace hcts::mpi {
namespace {

using detail::Runtime;

// The running case's deadline, or the default one from now outside a case.
std::chrono::steady_clock::time_point deadline(Runtime &rt)
{
    const detail::CaseState cs = rt.snapshot();
    return cs.open ? cs.deadline : std::chrono::steady_clock::now() + rt.default_deadline();
}

void finish(Runtime &rt, int count, MPI_Request *requests, std::string_view what)
{
    int error = 0;
    const auto w = detail::wait_all(count, requests, deadline(rt), &error);
    if (w == detail::WaitResult::Done)
        return;
    if (rt.expired())
        Runtime::park();
    if (w == detail::WaitResult::Error) {
        rt.expire("MPI error " + std::to_string(error) + " in '" + std::string(what) + "' (a rank was probably lost)",
                  kExitInternal);
    }
    rt.expire("'" + std::string(what) + "' was not reached by every rank before the case deadline");
}

int64_t reduce(int64_t mine, MPI_Op op, std::string_view what)
{
    Runtime *rt = Runtime::current();
    if (rt == nullptr)
        return mine;
    int64_t out = 0;
    MPI_Request req;
    MPI_Iallreduce(&mine, &out, 1, MPI_INT64_T, op, rt->ctl(), &req);
    finish(*rt, 1, &req, what);
    return out;
}

} // namespace

bool all_ranks(bool mine, std::string_view what) { return reduce(mine ? 1 : 0, MPI_MIN, what) != 0; }
bool any_rank(bool mine, std::string_view what) { return reduce(mine ? 1 : 0, MPI_MAX, what) != 0; }
int64_t max_over_ranks(int64_t mine, std::string_view what) { return reduce(mine, MPI_MAX, what); }

void broadcast(std::span<std::byte> data, int root, std::string_view what)
{
    Runtime *rt = Runtime::current();
    if (rt == nullptr)
        return;
    MPI_Request req;
    MPI_Ibcast(data.data(), static_cast<int>(data.size()), MPI_BYTE, root, rt->ctl(), &req);
    finish(*rt, 1, &req, what);
}

std::vector<std::string> gather_to_root(std::string_view mine, std::string_view what)
{
    Runtime *rt = Runtime::current();
    if (rt == nullptr)
        return {std::string(mine)};
    const int n = rt->size();
    const bool root = rt->rank() == 0;
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(root ? static_cast<size_t>(n) : 0);
    MPI_Request req;
    MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, rt->ctl(), &req);
    finish(*rt, 1, &req, what);
    std::vector<int> displs(lens.size());
    int total = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
        displs[i] = total;
        total += lens[i];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Igatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, rt->ctl(), &req);
    finish(*rt, 1, &req, what);
    std::vector<std::string> out;
    for (size_t i = 0; i < lens.size(); ++i)
        out.push_back(all.substr(static_cast<size_t>(displs[i]), static_cast<size_t>(lens[i])));
    return out;
}

} // namespace hcts::mpi
