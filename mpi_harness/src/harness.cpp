#include "hcts/mpi_harness.h"

#include "crash.h"
#include "listener.h"
#include "poll.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace hcts::mpi {
namespace {

std::unique_ptr<detail::Runtime> g_runtime;
std::vector<std::string> g_hosts;

std::vector<std::string> gather_hosts(const std::string &mine, int n)
{
    constexpr int kLen = 256;
    std::vector<char> out(kLen, '\0'), all(static_cast<size_t>(kLen) * static_cast<size_t>(n));
    mine.copy(out.data(), kLen - 1);
    MPI_Allgather(out.data(), kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> names;
    for (int r = 0; r < n; ++r)
        names.emplace_back(all.data() + static_cast<size_t>(kLen) * static_cast<size_t>(r));
    return names;
}

} // namespace

Harness::Harness(int &argc, char **&argv, Options options)
{
    int provided = 0;
    detail::Runtime::block_termination_signals();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    testing::InitGoogleTest(&argc, argv);
    int r = 0, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    try {
        g_runtime = std::make_unique<detail::Runtime>(std::move(options), r, n);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-mpi: rank %d: %s\n", r, e.what());
        MPI_Abort(MPI_COMM_WORLD, kExitUsage);
    }
    g_hosts = gather_hosts(g_runtime->host(), n);
    detail::install_crash_handlers();
    if (provided < MPI_THREAD_MULTIPLE) {
        // The watchdog calls MPI_Abort from its own thread.
        g_runtime->log("warning: MPI provides thread level " + std::to_string(provided) +
                       ", not MPI_THREAD_MULTIPLE; the watchdog's abort may be unreliable");
    }
}

Harness::~Harness()
{
    g_runtime.reset();
    MPI_Finalize();
}

int Harness::rank() const { return g_runtime->rank(); }
int Harness::size() const { return g_runtime->size(); }

int Harness::run()
{
    testing::TestEventListeners &listeners = testing::UnitTest::GetInstance()->listeners();
    // Our listener prints instead of GoogleTest's, on rank 0 only.
    std::unique_ptr<testing::TestEventListener> printer(listeners.Release(listeners.default_result_printer()));
    auto listener = std::make_unique<detail::MpiListener>(*g_runtime);
    detail::MpiListener &l = *listener;
    listeners.Append(listener.release()); // GoogleTest owns appended listeners
    const int rc = RUN_ALL_TESTS();
    // Nobody finalises while a peer may still be reporting.
    phase_barrier("end of run", g_runtime->default_deadline());
    if (l.failed() > 0)
        return kExitFail;
    return rc == 0 ? kExitPass : kExitFail;
}

int run_main(int &argc, char **&argv, Options options)
{
    Harness h(argc, argv, std::move(options));
    return h.run();
}

namespace {

bool mpi_running()
{
    int init = 0, fini = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    return init && !fini;
}

// Outside a harness run: what `query` says of MPI_COMM_WORLD while MPI runs,
// else `alone` (this process on its own).
int world(int (*query)(MPI_Comm, int *), int alone)
{
    int value = alone;
    if (mpi_running())
        query(MPI_COMM_WORLD, &value);
    return value;
}

} // namespace

int rank() { return g_runtime ? g_runtime->rank() : world(MPI_Comm_rank, 0); }

int size() { return g_runtime ? g_runtime->size() : world(MPI_Comm_size, 1); }

MPI_Comm comm() { return MPI_COMM_WORLD; }

const std::vector<std::string> &hosts() { return g_hosts; }

void set_case_deadline(std::chrono::milliseconds deadline)
{
    if (g_runtime)
        g_runtime->set_deadline(deadline);
}

void set_default_case_deadline(std::chrono::milliseconds deadline)
{
    if (deadline.count() <= 0 || deadline > std::chrono::hours(24)) {
        throw std::invalid_argument("case deadline of " + std::to_string(deadline.count()) +
                                    " ms is outside (0, 24 h]");
    }
    if (g_runtime)
        g_runtime->set_default_deadline(deadline);
}

void phase_barrier(std::string_view phase, std::chrono::milliseconds timeout)
{
    if (!g_runtime)
        return;
    detail::Runtime &rt = *g_runtime;
    MPI_Request req;
    MPI_Ibarrier(rt.ctl(), &req);
    int error = 0;
    auto w = detail::wait_all(1, &req, std::chrono::steady_clock::now() + timeout, &error);
    if (w == detail::WaitResult::Done)
        return;
    if (rt.expired())
        detail::Runtime::park();
    if (w == detail::WaitResult::Error) {
        rt.expire("MPI error " + std::to_string(error) + " in phase barrier '" + std::string(phase) + "'",
                  kExitInternal);
    }
    rt.expire("phase barrier '" + std::string(phase) + "' not reached by every rank within " +
              std::to_string(timeout.count()) + " ms");
}

void phase_barrier(std::string_view phase)
{
    if (!g_runtime)
        return;
    const detail::CaseState cs = g_runtime->snapshot();
    const auto now = std::chrono::steady_clock::now();
    const auto until = cs.open ? cs.deadline : now + g_runtime->default_deadline();
    phase_barrier(phase, std::chrono::duration_cast<std::chrono::milliseconds>(until - now));
}

DiagnosticsRegistration::DiagnosticsRegistration(std::string title, DiagnosticsProvider provider)
    : id_(detail::Runtime::add_provider(std::move(title), std::move(provider)))
{
}

DiagnosticsRegistration::~DiagnosticsRegistration() { detail::Runtime::remove_provider(id_); }

} // namespace hcts::mpi
