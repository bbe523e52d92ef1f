// The harness's own cases, each run by check.sh under mpirun with a filter and
// judged from the outside: exit status, rank 0's records, per-rank files.
#include "hcts/mpi_harness.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
namespace hm = hcts::mpi;

double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

TEST(SelfTest, AllPass)
{
    int sum = 0;
    const int mine = hm::rank();
    ASSERT_EQ(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, hm::comm()), MPI_SUCCESS);
    EXPECT_EQ(sum, hm::size() * (hm::size() - 1) / 2);
}

TEST(SelfTest, FailsOnRankOneOnly)
{
    if (hm::rank() == 1)
        ADD_FAILURE() << "deliberate failure on rank 1 only";
}

// Ranks arrive late by rank * 30 ms; nobody may leave before the last arrived.
// steady_clock is CLOCK_MONOTONIC, shared by all processes of one kernel.
TEST(SelfTest, PhaseBarrierHoldsEveryone)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(30 * hm::rank()));
    const double arrived = now_us();
    hm::phase_barrier("staggered arrival", 10s);
    const double left = now_us();
    double last_arrival = 0, first_departure = 0;
    MPI_Allreduce(&arrived, &last_arrival, 1, MPI_DOUBLE, MPI_MAX, hm::comm());
    MPI_Allreduce(&left, &first_departure, 1, MPI_DOUBLE, MPI_MIN, hm::comm());
    EXPECT_GE(first_departure, last_arrival) << "a rank left the barrier before the last one arrived";
}

// Rank 1 never finishes; the watchdog must end the case and the job.
TEST(SelfTest, Hangs)
{
    hm::set_case_deadline(2s);
    hm::DiagnosticsRegistration last_call("last hcomm call", [](std::ostream &os) {
        os << "HcommWriteWithNotifyOnThread(thread=0x1, channel=0x2, dst=0x1000, src=0x2000, len=64, "
              "remoteNotifyIdx=3) rank "
           << hm::rank();
    });
    if (hm::rank() == 1) {
        for (;;)
            std::this_thread::sleep_for(1h);
    }
}

// Rank 0 itself crashes: only its own handler can record the verdict.
TEST(SelfTest, RankZeroCrashes)
{
    hm::set_case_deadline(10s);
    hm::phase_barrier("before the crash", 5s);
    if (hm::rank() == 0) {
        // An unmapped address the compiler cannot reason about: a real SIGSEGV.
        volatile uintptr_t nowhere = 16;
        *reinterpret_cast<volatile int *>(nowhere) = 1;
    }
    std::this_thread::sleep_for(8s); // the others wait to be stopped by mpirun
}

// Only for launch_check.sh, which interrupts it: Open MPI passes the SIGTERM on
// after odls_base_sigkill_timeout, so the case must outlive that.
TEST(SelfTest, WaitsForInterrupt)
{
    hm::set_case_deadline(30s);
    std::this_thread::sleep_for(25s);
    ADD_FAILURE() << "was not interrupted within 25 s";
}

// Never runs when Hangs is selected before it: check.sh fails if it appears.
TEST(SelfTest, SentinelAfterHang) { SUCCEED(); }

// Rank 1 dies by SIGKILL while the others exchange messages with it; the
// survivors must notice within the case deadline and say so.
TEST(SelfTest, RankKilledMidTransfer)
{
    ASSERT_GE(hm::size(), 3) << "needs a victim and two survivors";
    hm::set_case_deadline(6s);
    MPI_Comm c;
    MPI_Comm_dup(hm::comm(), &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    const int me = hm::rank(), n = hm::size();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    std::vector<char> out(4096, static_cast<char>(me)), in(4096);
    const auto give_up = std::chrono::steady_clock::now() + 3s;
    for (int round = 0;; ++round) {
        if (me == 1 && round == 50)
            ::raise(SIGKILL);
        MPI_Request req[2];
        MPI_Irecv(in.data(), static_cast<int>(in.size()), MPI_CHAR, left, round, c, &req[0]);
        MPI_Isend(out.data(), static_cast<int>(out.size()), MPI_CHAR, right, round, c, &req[1]);
        int done = 0, rc = MPI_SUCCESS;
        while (!done && rc == MPI_SUCCESS) {
            rc = MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            if (!done && std::chrono::steady_clock::now() > give_up)
                break;
            if (!done)
                std::this_thread::sleep_for(200us);
        }
        if (rc != MPI_SUCCESS) {
            ADD_FAILURE() << "round " << round << ": MPI error " << rc << " exchanging with ranks " << left << "/"
                          << right;
            break;
        }
        if (!done) {
            ADD_FAILURE() << "round " << round << ": no answer from rank " << left << " or " << right
                          << " within 3 s (peer lost?)";
            break;
        }
        ASSERT_EQ(in[0], static_cast<char>(left));
        if (round >= 200)
            break; // rank 1 should have died long before
    }
    // The communicator with the dead peer is left as is: freeing it could block.
}

// With HCTS_SELFTEST_STALL_PAYLOAD set, rank 1's case_payload never returns for
// this case (see main): a rank stuck while results are merged.
TEST(SelfTest, StallsInPayload) { hm::set_case_deadline(3s); }

// Records what rank 0 decided, one line per case, for check.sh.
void append(const std::string &line)
{
    if (const char *path = std::getenv("HCTS_SELFTEST_RECORD")) {
        std::ofstream(path, std::ios::app) << line << std::endl;
    }
}

} // namespace

int main(int argc, char **argv)
{
    hm::Options opts;
    opts.on_case = [](const hm::CaseResult &r) {
        std::string ranks;
        for (const auto &m : r.messages)
            ranks += std::to_string(m.rank) + ",";
        std::string payloads;
        for (const auto &p : r.payloads)
            payloads += p + ",";
        append("CASE\t" + r.name + "\t" + std::string(hcts::verdict_name(r.verdict)) + "\tmessages-from=" + ranks +
               "\tpayloads=" + payloads);
    };
    opts.case_payload = [](const testing::TestInfo &info) {
        if (std::getenv("HCTS_SELFTEST_STALL_PAYLOAD") && hm::rank() == 1 &&
            std::string(info.name()) == "StallsInPayload") {
            for (;;)
                std::this_thread::sleep_for(1h);
        }
        return "r" + std::to_string(hm::rank()) + ":" + info.name();
    };
    opts.on_abort = [](std::string_view reason) { append("ABORT\t" + std::string(reason)); };
    opts.abort_grace = 1s;
    hm::Harness harness(argc, argv, std::move(opts));
    // As a program's own --case-timeout would: the console header shows it.
    hm::set_default_case_deadline(90s);
    return harness.run();
}
