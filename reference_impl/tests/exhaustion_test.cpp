// Resource exhaustion: with few file descriptors, no more threads, memfd
// failing, or HCCL_BUFFSIZE beyond the machine's memory, a two-rank job on softverbs
// (root info, init, thread and channel acquisition, a write with notify, destroy) gets
// error codes with a message that names the cause: never a crash, never a hang.
// Each limit runs in a child process (a sweep of limits, so that each step meets it),
// under a deadline; the parent judges the child's exit and its stderr.
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "verbs_job.h"

using namespace hcts_test;
using namespace std::chrono_literals;

namespace {

// The calls of one rank, in order, and what each returned.
struct Steps {
    std::vector<std::pair<std::string, int>> done;
    void add(const std::string &what, int rc) { done.emplace_back(what, rc); }
    bool all_ok() const
    {
        for (const auto &d : done)
            if (d.second != HCCL_SUCCESS)
                return false;
        return true;
    }
};

// A barrier the main thread opens phase by phase.
struct Gate {
    std::mutex m;
    std::condition_variable cv;
    int phase = 0;
    int arrived = 0;
    void open(int p)
    {
        std::lock_guard lk(m);
        phase = p;
        cv.notify_all();
    }
    void wait_for(int p)
    {
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return phase >= p; });
    }
    void arrive()
    {
        std::lock_guard lk(m);
        ++arrived;
        cv.notify_all();
    }
    void wait_arrivals(int n)
    {
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return arrived >= n; });
    }
};

// Where a limit is applied: before anything (`start`), or once both ranks hold a comm
// (`after_init`, so that channels, queue pairs and rings meet it).
enum class When { start, after_init };

// In the child: the two ranks run on threads made before any limit, so that the limit
// meets only what the libraries do. Returns the exit status (0: every call returned).
int two_ranks(When when, const std::function<void()> &limit)
{
    Gate gate;
    HcclRootInfo root{};
    std::atomic<int> root_rc{HCCL_SUCCESS};
    Steps steps[2];
    HcclComm comms[2] = {nullptr, nullptr};
    ThreadHandle threads[2] = {0, 0};
    ChannelHandle channels[2] = {0, 0};
    std::vector<std::thread> ranks;
    for (uint32_t r = 0; r < 2; ++r)
        ranks.emplace_back([&, r] {
            gate.wait_for(1);
            if (root_rc != HCCL_SUCCESS)
                return gate.arrive();
            int rc = HcclCommInitRootInfo(2, &root, r, &comms[r]);
            steps[r].add("HcclCommInitRootInfo", rc);
            gate.arrive();
            gate.wait_for(2);
            if (rc != HCCL_SUCCESS)
                return;
            rc = HcclThreadAcquire(comms[r], COMM_ENGINE_AICPU_TS, 1, 4, &threads[r]);
            steps[r].add("HcclThreadAcquire", rc);
            if (rc == HCCL_SUCCESS) {
                HcclChannelDesc d;
                HcclChannelDescInit(&d, 1);
                d.remoteRank = 1 - r;
                d.channelProtocol = default_protocol();
                d.notifyNum = 4;
                rc = HcclChannelAcquire(comms[r], COMM_ENGINE_AICPU_TS, &d, 1, &channels[r]);
                steps[r].add("HcclChannelAcquire", rc);
            }
            if (rc == HCCL_SUCCESS) {
                void *base = nullptr;
                uint64_t size = 0;
                void *remote = nullptr;
                uint64_t rsize = 0;
                rc = HcclGetHcclBuffer(comms[r], &base, &size);
                steps[r].add("HcclGetHcclBuffer", rc);
                if (rc == HCCL_SUCCESS && r == 0) {
                    rc = HcclChannelGetHcclBuffer(comms[r], channels[r], &remote, &rsize);
                    steps[r].add("HcclChannelGetHcclBuffer", rc);
                }
                if (rc == HCCL_SUCCESS) {
                    // Rank 0 writes 4 KiB with notify 0 to rank 1, which waits for it (5 s).
                    HcclResult launched = HCCL_SUCCESS;
                    const HcommRefLaunchResult res = launch(
                        comms[r],
                        [&]() -> uint32_t {
                            if (r == 0)
                                return static_cast<uint32_t>(
                                    HcommWriteWithNotifyOnThread(threads[0], channels[0], remote, base, 4096, 0));
                            return static_cast<uint32_t>(HcommChannelNotifyWaitOnThread(threads[1], channels[1], 0, 5));
                        },
                        20000, &launched);
                    steps[r].add("HcommRefDeviceLaunch", launched);
                    steps[r].add("program", static_cast<int>(res.programReturn));
                    steps[r].add("tasks", res.taskError);
                }
            }
        });
    if (when == When::start)
        limit();
    root_rc = HcclGetRootInfo(&root);
    gate.open(1);
    gate.wait_arrivals(2);
    if (when == When::after_init)
        limit();
    gate.open(2);
    for (auto &t : ranks)
        t.join();
    std::vector<int> destroyed;
    for (HcclComm c : comms)
        if (c != nullptr)
            destroyed.push_back(HcclCommDestroy(c));
    // The report the parent prints: every call and its code.
    std::fprintf(stderr, "REPORT HcclGetRootInfo=%d", root_rc.load());
    for (int r = 0; r < 2; ++r)
        for (const auto &d : steps[r].done)
            std::fprintf(stderr, " r%d:%s=%d", r, d.first.c_str(), d.second);
    for (int rc : destroyed)
        std::fprintf(stderr, " HcclCommDestroy=%d", rc);
    bool all_ok = root_rc == HCCL_SUCCESS && steps[0].all_ok() && steps[1].all_ok() && steps[0].done.size() == 8 &&
                  steps[1].done.size() == 7;
    std::fprintf(stderr, " ALL_OK=%d\n", all_ok ? 1 : 0);
    return 0;
}

struct ChildResult {
    std::string failure; // "" when the child ended normally within the deadline
    std::string err;     // its stderr
    bool all_ok = false; // every call succeeded
};

ChildResult run_child(const std::function<int()> &body)
{
    char path[] = "/tmp/hcts-exhaustion-XXXXXX";
    const int out = mkstemp(path);
    unlink(path);
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out, 2);
        alarm(40); // a hang becomes SIGALRM, told apart from a crash by the parent
        const int status = body();
        std::fflush(nullptr);
        _exit(status);
    }
    ChildResult r;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + 50s;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.failure = "hung past 50 s";
            break;
        }
        std::this_thread::sleep_for(5ms);
    }
    if (r.failure.empty() && WIFSIGNALED(status))
        r.failure =
            WTERMSIG(status) == SIGALRM ? "hung past 40 s" : "crashed with signal " + std::to_string(WTERMSIG(status));
    else if (r.failure.empty() && WEXITSTATUS(status) != 0)
        r.failure = "exit status " + std::to_string(WEXITSTATUS(status));
    char buf[4096];
    lseek(out, 0, SEEK_SET);
    for (ssize_t n; (n = read(out, buf, sizeof buf)) > 0;)
        r.err.append(buf, static_cast<size_t>(n));
    close(out);
    r.all_ok = r.err.find("ALL_OK=1") != std::string::npos;
    return r;
}

int open_fds()
{
    int n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (dirent *e = readdir(d))
            n += e->d_name[0] != '.';
        closedir(d);
        --n; // the directory's own fd
    }
    return n;
}

// Judges a sweep: no child crashed or hung; where a call failed, stderr names `cause`;
// the tightest limit made some call fail (the limit bites) and, when `loosest_ok`, the
// loosest let everything succeed (the scenario works at all).
void judge(const std::string &what, const std::vector<std::pair<std::string, ChildResult>> &runs,
           const std::string &cause, size_t tightest, long loosest)
{
    const std::regex cause_re(cause, std::regex::icase);
    const bool verbose = std::getenv("HCTS_EXHAUSTION_VERBOSE") != nullptr; // every run's calls and log
    for (const auto &[label, r] : runs) {
        if (verbose)
            std::printf("--- %s, %s%s%s\n%s", what.c_str(), label.c_str(), r.failure.empty() ? "" : ": ",
                        r.failure.c_str(), r.err.c_str());
        SCOPED_TRACE(what + ", " + label);
        EXPECT_EQ(r.failure, "") << "stderr:\n" << r.err;
        if (r.failure.empty() && !r.all_ok) {
            EXPECT_TRUE(std::regex_search(r.err, cause_re))
                << "a call failed but nothing on stderr says why (/" << cause << "/):\n"
                << r.err;
        }
    }
    ASSERT_LT(tightest, runs.size());
    EXPECT_FALSE(runs[tightest].second.all_ok)
        << what << ": the tightest limit (" << runs[tightest].first << ") did not make any call fail:\n"
        << runs[tightest].second.err;
    if (loosest >= 0) {
        const auto &l = runs.at(static_cast<size_t>(loosest));
        EXPECT_TRUE(l.second.all_ok) << what << ": the loosest limit (" << l.first << ") still failed:\n"
                                     << l.second.err;
    }
}

TEST(Exhaustion, FewFileDescriptors)
{
#if defined(__SANITIZE_ADDRESS__)
    // UBSan's vptr check probes memory through a pipe (sanitizer_common's
    // IsAccessibleMemoryRange): with no fd left every virtual call is reported as a wrong
    // dynamic type, and suppressions cannot match a type it could not read. The default
    // build runs this case.
    GTEST_SKIP() << "not under the sanitizers: their own checks need file descriptors";
#endif
    std::vector<std::pair<std::string, ChildResult>> runs;
    for (When when : {When::start, When::after_init})
        for (int extra : {0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 96}) {
            if (when == When::after_init && extra > 32)
                continue;
            const std::string label = std::string(when == When::start ? "from the start" : "after init") +
                                      ", open fds + " + std::to_string(extra);
            runs.emplace_back(label, run_child([&] {
                                  return two_ranks(when, [&] {
                                      const rlim_t n = static_cast<rlim_t>(open_fds() + extra);
                                      rlimit rl{n, n};
                                      setrlimit(RLIMIT_NOFILE, &rl);
                                  });
                              }));
        }
    judge("few file descriptors", runs, "Too many open files|file descriptors", 0, 14); // start + 0, start + 96
}

// Threads: RLIMIT_NPROC counts the real user's tasks and does not bind root, so the
// child becomes the user nobody first (root only).
TEST(Exhaustion, NoMoreThreads)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to become another user (RLIMIT_NPROC binds no one with CAP_SYS_RESOURCE)";
    passwd *pw = getpwnam("nobody");
    if (pw == nullptr)
        GTEST_SKIP() << "no user nobody";
    const uid_t uid = pw->pw_uid;
    const gid_t gid = pw->pw_gid;
    std::vector<std::pair<std::string, ChildResult>> runs;
    for (When when : {When::start, When::after_init})
        for (int extra : {0, 1, 2, 3, 4, 5, 6, 8, 12, 64}) {
            const std::string label = std::string(when == When::start ? "from the start" : "after init") +
                                      ", tasks + " + std::to_string(extra);
            runs.emplace_back(label, run_child([&] {
                                  if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
                                      std::fprintf(stderr, "cannot become nobody\n");
                                      return 20;
                                  }
                                  return two_ranks(when, [&] {
                                      // Our own threads now (and whatever else nobody runs: the
                                      // limit only bites sooner).
                                      int tasks = 0;
                                      if (DIR *d = opendir("/proc/self/task")) {
                                          while (dirent *e = readdir(d))
                                              tasks += e->d_name[0] != '.';
                                          closedir(d);
                                      }
                                      const rlim_t n = static_cast<rlim_t>(tasks + extra);
                                      rlimit rl{n, n};
                                      setrlimit(RLIMIT_NPROC, &rl);
                                  });
                              }));
        }
    judge("no more threads", runs, "Resource temporarily unavailable|thread", 0, 9); // start + 0, start + 64
}

#if defined(__x86_64__)
// Makes system call `nr` fail with `err` in every thread of this process from now on.
bool fail_syscall(int nr, int err)
{
    sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<uint32_t>(err) & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof f / sizeof f[0]), f};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0;
}

// Shared memory: nothing of the reference or softverbs uses /dev/shm; their shared
// memory is memfds (communication memory, softverbs' MR table and rings). memfd_create
// failing (ENOMEM, EMFILE) and a full shmem (ftruncate: ENOSPC), from the start and after init.
TEST(Exhaustion, SharedMemoryFails)
{
    std::vector<std::pair<std::string, ChildResult>> runs;
    struct Case {
        const char *name;
        int nr, err;
    };
    for (When when : {When::start, When::after_init})
        for (Case c :
             {Case{"memfd_create ENOMEM", SYS_memfd_create, ENOMEM},
              Case{"memfd_create EMFILE", SYS_memfd_create, EMFILE}, Case{"ftruncate ENOSPC", SYS_ftruncate, ENOSPC}}) {
            const std::string label = std::string(c.name) + (when == When::start ? ", from the start" : ", after init");
            runs.emplace_back(label, run_child([&] {
                                  return two_ranks(when, [&] {
                                      if (!fail_syscall(c.nr, c.err))
                                          std::fprintf(stderr, "cannot install the seccomp filter: %s\n",
                                                       std::strerror(errno));
                                  });
                              }));
        }
    judge("shared memory", runs,
          "Cannot allocate memory|No space left on device|Too many open files|memfd|shared memory", 0, -1);
    // From the start the communication memory cannot be made: init must fail. After init,
    // softverbs may carry on without shared memory (its MR table in private memory, TCP
    // instead of rings): success is as good as an error there.
    for (const auto &[label, r] : runs) {
        if (label.find("from the start") != std::string::npos) {
            EXPECT_FALSE(r.all_ok) << label << ": every call succeeded although shared memory could not be made:\n"
                                   << r.err;
        }
    }
}
#endif

// HCCL_BUFFSIZE beyond the machine's memory (and swap) is refused at init with a message
// naming the setting, instead of an overcommitted buffer that kills the process later.
TEST(Exhaustion, BuffsizeLargerThanMemory)
{
    std::vector<std::pair<std::string, ChildResult>> runs;
    runs.emplace_back("HCCL_BUFFSIZE=1048576 (2 TiB of buffer)", run_child([] {
                          setenv("HCCL_BUFFSIZE", "1048576", 1);
                          return two_ranks(When::start, [] {});
                      }));
    runs.emplace_back("HCCL_BUFFSIZE=8", run_child([] {
                          setenv("HCCL_BUFFSIZE", "8", 1);
                          return two_ranks(When::start, [] {});
                      }));
    judge("HCCL_BUFFSIZE", runs, "HCCL_BUFFSIZE", 0, 1);
    EXPECT_NE(runs[0].second.err.find("r0:HcclCommInitRootInfo=" + std::to_string(HCCL_E_MEMORY)), std::string::npos)
        << runs[0].second.err;
}

} // namespace
