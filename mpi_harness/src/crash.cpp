#include "crash.h"

#include "runtime.h"

#include <signal.h>

#include <array>
#include <vector>

namespace hcts::mpi::detail {
namespace {

constexpr std::array kFatal = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[65];

void on_fatal(int sig, siginfo_t *info, void *)
{
    if (auto *rt = Runtime::current())
        rt->crashed(sig);
    // Hand over to whoever handled the signal before us (Open MPI prints its own
    // stack trace, a sanitizer its report), else the default action: a fault
    // re-raises itself when the instruction is retried, a sent signal must be
    // raised again.
    ::sigaction(sig, &g_previous[sig], nullptr);
    if (info == nullptr || info->si_code <= 0)
        ::raise(sig);
}

} // namespace

void install_crash_handlers()
{
    static std::vector<char> alt_stack(1 << 16); // a stack overflow still leaves room to report
    stack_t ss{};
    ss.ss_sp = alt_stack.data();
    ss.ss_size = alt_stack.size();
    ::sigaltstack(&ss, nullptr);
    for (int sig : kFatal) {
        struct sigaction sa {};
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, &g_previous[sig]);
    }
}

} // namespace hcts::mpi::detail
