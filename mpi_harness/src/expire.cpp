// The end of a job whose case missed its deadline: each rank leaves its
// diagnostics, rank 0 records the TIMEOUT, and the job is aborted so that no
// mpirun is left hanging.
#include "backtrace.h"
#include "format.h"
#include "runtime.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace hcts::mpi::detail {
namespace {

struct Providers {
    std::mutex mu;
    std::map<int, std::pair<std::string, DiagnosticsProvider>> by_id;
    int next = 1;
};

Providers &providers()
{
    static Providers p;
    return p;
}

} // namespace

std::string Runtime::diagnostics_path() const
{
    return options_.log_dir + "/rank-" + std::to_string(rank_) + ".diagnostics.txt";
}

void Runtime::write_diagnostics(const std::string &reason, const CaseState &cs)
{
    const std::string path = diagnostics_path();
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "hcts-mpi: rank %d: cannot write diagnostics to '%s'\n", rank_, path.c_str());
        return;
    }
    std::fprintf(f, "=== hcts-mpi diagnostics: rank %d of %d, host %s, pid %d ===\n", rank_, size_, host_.c_str(),
                 static_cast<int>(::getpid()));
    std::fprintf(f, "reason: %s\n", reason.c_str());
    if (cs.open) {
        const auto now = Clock::now();
        std::fprintf(f, "case: %s (%d of %d), started %.0f ms ago, deadline %.0f ms after start\n", cs.name.c_str(),
                     cs.index, cs.total, std::chrono::duration<double, std::milli>(now - cs.start).count(),
                     std::chrono::duration<double, std::milli>(cs.deadline - cs.start).count());
        for (const auto &m : cs.own_messages)
            std::fprintf(f, "message so far: %s\n", m.text.c_str());
    } else {
        std::fprintf(f, "case: none running (between cases)\n");
    }
    std::vector<std::pair<std::string, DiagnosticsProvider>> registered;
    {
        std::lock_guard lk(providers().mu);
        for (const auto &[id, p] : providers().by_id)
            registered.push_back(p);
    }
    for (const auto &[title, provide] : registered) {
        std::ostringstream os;
        try {
            provide(os);
        } catch (const std::exception &e) {
            os << "(provider threw: " << e.what() << ")";
        } catch (...) {
            os << "(provider threw a non-standard exception)";
        }
        std::fprintf(f, "--- %s ---\n%s\n", title.c_str(), os.str().c_str());
    }
    std::fprintf(f, "--- backtraces of all threads ---\n");
    std::fflush(f);
    dump_all_backtraces(::fileno(f));
    std::fclose(f);
    std::fprintf(stderr, "hcts-mpi: rank %d on %s: %s in case '%s'; diagnostics in %s\n", rank_, host_.c_str(),
                 reason.c_str(), cs.open ? cs.name.c_str() : "(none)", path.c_str());
    log("TIMEOUT: " + reason + "; diagnostics in " + path);
}

void Runtime::record_end(const std::string &reason, const CaseState &cs, Verdict verdict, int exit_status)
{
    if (rank_ == 0) {
        if (cs.open) {
            double ms = std::chrono::duration<double, std::milli>(Clock::now() - cs.start).count();
            CaseResult r = make_result(cs, verdict, ms);
            r.messages.insert(r.messages.begin(), RankMessage{0, reason});
            say(format_case_end(r));
            if (options_.on_case) {
                try {
                    options_.on_case(r);
                } catch (...) {
                    log("on_case callback threw while recording a TIMEOUT");
                }
            }
        }
        const std::string why = reason + (cs.open ? " in case " + cs.name : std::string(" between cases"));
        if (options_.on_abort) {
            try {
                options_.on_abort(why);
            } catch (...) {
                log("on_abort callback threw");
            }
        }
        say("hcts-mpi: ending the job with exit status " + std::to_string(exit_status) + "; per-rank diagnostics in " +
            options_.log_dir + "/rank-*.diagnostics.txt");
    }
}

void Runtime::expire(const std::string &reason, int exit_status)
{
    claim_end();
    finish_expired(reason, exit_status);
}

void Runtime::finish_expired(const std::string &reason, int exit_status)
{
    const CaseState cs = snapshot();
    write_diagnostics(reason, cs);
    record_end(reason, cs, Verdict::Timeout, exit_status);
    if (rank_ != 0) {
        // Rank 0 records the verdict; abort ourselves only if it cannot.
        std::this_thread::sleep_for(options_.abort_grace);
    }
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, exit_status);
    ::_exit(exit_status);
}

void Runtime::terminated(int sig)
{
    claim_end();
    const CaseState cs = snapshot();
    const std::string reason = std::string("terminated by signal ") + std::to_string(sig) + " (" + ::strsignal(sig) +
                               "): the launcher ends the job (a rank died, or the run was interrupted)";
    // Rank 0 records first: the launcher follows up with SIGKILL after
    // odls_base_sigkill_timeout (1 s by default).
    record_end(reason, cs, Verdict::Crash, 128 + sig);
    write_diagnostics(reason, cs);
    std::fflush(nullptr);
    ::_exit(128 + sig);
}

void Runtime::crashed(int sig) noexcept
{
    if (expired_.exchange(true))
        return; // the job is already ending
    // Whatever follows may find the heap or a lock broken: never hang here.
    ::alarm(5);
    char line[256];
    const int fd = ::open(crash_path_, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int n = std::snprintf(line, sizeof line, "=== hcts-mpi: rank %d, pid %d: fatal signal %d (%s) ===\n", rank_,
                                static_cast<int>(::getpid()), sig, ::strsignal(sig));
    if (fd >= 0) {
        (void)!::write(fd, line, static_cast<size_t>(n));
        dump_own_backtrace(fd);
        ::close(fd);
    }
    (void)!::write(STDERR_FILENO, line, static_cast<size_t>(n));
    if (rank_ == 0 && mu_.try_lock()) {
        CaseState cs = case_;
        mu_.unlock();
        try {
            const std::string reason =
                std::string("fatal signal ") + std::to_string(sig) + " (" + ::strsignal(sig) + ") on rank 0";
            record_end(reason, cs, Verdict::Crash, 128 + sig);
        } catch (...) {
        }
    }
    std::fflush(nullptr);
    ::alarm(0);
}

int Runtime::add_provider(std::string title, DiagnosticsProvider provider)
{
    std::lock_guard lk(providers().mu);
    int id = providers().next++;
    providers().by_id.emplace(id, std::make_pair(std::move(title), std::move(provider)));
    return id;
}

void Runtime::remove_provider(int id)
{
    std::lock_guard lk(providers().mu);
    providers().by_id.erase(id);
}

} // namespace hcts::mpi::detail
