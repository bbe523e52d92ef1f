// hcts-launch (`hcts launch`): a user's hcomm / custom-operator program on softverbs with the
// ACL runtime (libascendcl.so) and the reference hcomm in place (docs/custom-ops.md), under
// mpirun (mpi_harness/launch) or as one process that sees N devices. The job runs in a process
// group of its own; at its deadline, or when this program is interrupted, it prints who waits
// for what (hcts-waits reads the reference's wait reports, HCOMM_REF_WAIT_REPORT) and ends the
// job. ./hcts knows where the build tree or the installation is and says so with the internal
// options; run alone, this program finds them beside itself (hcts/core/locate.h).
//
// The options are parsed by hand, as ./hcts parsed them: its messages (the value and what is
// allowed) and its exit statuses stay what users and the ctests (launch_test.sh) see.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "hcts/core/locate.h"

extern char **environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int bad_input_status = 2, deadline_status = 124;

// Every message as ./hcts prints its own (say): "hcts: launch: ...", on standard error.
void say(const std::string &text) { std::fprintf(stderr, "hcts: launch: %s\n", text.c_str()); }

// Bad input: the message names the value and what is allowed; exit status 2.
struct BadInput {
    std::string message;
};

struct Options {
    std::string name = "hcts-launch";                 // how usage and messages name this command (./hcts launch)
    std::string np, nodes, devices, seed, timeout_ms; // as given; empty: not given
    bool adversarial = false;
    std::vector<std::string> program; // the program as given, then its arguments
    fs::path lib_dir, softverbs_dir, launcher, waits;
};

void usage(const std::string &name)
{
    std::printf(
        "usage: %s [options] [--] program [args...]\n\n"
        "Runs your own hcomm / custom-operator program on softverbs with the ACL runtime (libascendcl.so)\n"
        "and the reference hcomm in place (docs/custom-ops.md): the caller's environment, LD_LIBRARY_PATH\n"
        "with softverbs and the build tree's (or the installation's) libraries first. Standard input is\n"
        "not passed to the program.\n\n"
        "  --np N                 N processes under mpirun, one device each (default 2)\n"
        "  --nodes K              the processes on K simulated nodes on this host (mpi_harness/cluster; root)\n"
        "  --devices N            one process (no mpirun) that sees N devices (HCTS_ACL_DEVICES=N, 1..64);\n"
        "                         excludes --np and --nodes\n"
        "  --adversarial          softverbs' adversarial mode (SOFTVERBS_SEED=S, else a random seed, printed)\n"
        "  --seed S               the adversary's seed (with --adversarial)\n"
        "  --timeout-ms T         the job's deadline in milliseconds (default none); at it, who waits for what:\n"
        "                         every blocked notify wait (thread, channel, peer rank, notify index) and the\n"
        "                         last notify each peer recorded on that channel, and every blocked ACL wait\n"
        "                         (stream/event synchronisation, a stream waiting on an event or notify and\n"
        "                         its last record) (hcts-waits, from the reference's HCOMM_REF_WAIT_REPORT),\n"
        "                         then the job is ended; an interrupt (Ctrl-C, SIGTERM) prints the same\n"
        "  -h, --help             this text\n"
        "  --version              the suite's version\n\n"
        "Internal (hcts launch passes them: it knows the build tree or the installation; without them,\n"
        "what lies beside this program):\n"
        "  --name NAME            how usage and messages name this command (hcts launch)\n"
        "  --lib-dir DIR          libhcomm.so and libascendcl.so (default: the installation's lib/hcts)\n"
        "  --softverbs-dir DIR    softverbs' libibverbs (default: lib/hcts/softverbs)\n"
        "  --launcher PATH        mpi_harness/launch (default: libexec/hcts/mpi_harness/launch)\n"
        "  --waits PATH           hcts-waits (default: beside this program)\n\n"
        "Exit status: the program's (under mpirun, mpirun's), 124 at the deadline, 128 + the signal when\n"
        "interrupted, 2 for bad options.\n",
        name.c_str());
}

// `text` is a whole number of 1 to `digits` digits without a sign or a leading zero.
bool whole(std::string_view text, std::size_t digits)
{
    return !text.empty() && text.size() <= digits && text[0] != '0' &&
           text.find_first_not_of("0123456789") == std::string_view::npos;
}

// The command line; nullopt when it asked for --help or --version (printed).
std::optional<Options> parse(int argc, char **argv)
{
    Options o;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&](const char *what) -> std::string {
            if (i + 1 >= argc)
                throw BadInput{a + " needs " + what};
            return argv[++i];
        };
        if (a == "--np") {
            o.np = value("a number");
        } else if (a == "--nodes") {
            o.nodes = value("a number");
        } else if (a == "--devices") {
            o.devices = value("a number");
        } else if (a == "--adversarial") {
            o.adversarial = true;
        } else if (a == "--seed") {
            o.seed = value("a number");
        } else if (a == "--timeout-ms") {
            o.timeout_ms = value("milliseconds");
        } else if (a == "--name") {
            o.name = value("a name");
        } else if (a == "--lib-dir") {
            o.lib_dir = value("a directory");
        } else if (a == "--softverbs-dir") {
            o.softverbs_dir = value("a directory");
        } else if (a == "--launcher") {
            o.launcher = value("a path");
        } else if (a == "--waits") {
            o.waits = value("a path");
        } else if (a == "-h" || a == "--help") {
            usage(o.name);
            return std::nullopt;
        } else if (a == "--version") {
            std::printf("hcts-launch %s\n", HCTS_SUITE_VERSION);
            return std::nullopt;
        } else if (a == "--") {
            ++i;
            break;
        } else if (a.starts_with('-')) {
            throw BadInput{"unknown option '" + a +
                           "'; allowed: --np N, --nodes K, --devices N, --adversarial, --seed S, --timeout-ms T, "
                           "then [--] program [args...]"};
        } else {
            break;
        }
    }
    o.program.assign(argv + i, argv + argc);

    if (o.program.empty())
        throw BadInput{"no program given; usage: " + o.name + " [options] [--] program [args...]"};
    if (!o.np.empty() && !whole(o.np, 4))
        throw BadInput{"--np must be a whole number in [1, 9999], got '" + o.np + "'"};
    if (!o.nodes.empty() && !whole(o.nodes, 3))
        throw BadInput{"--nodes must be a whole number in [1, 999], got '" + o.nodes + "'"};
    if (!o.devices.empty() && !(whole(o.devices, 2) && std::stoi(o.devices) <= 64))
        throw BadInput{"--devices must be a whole number in [1, 64], got '" + o.devices + "'"};
    if (!o.seed.empty() && !whole(o.seed, 19))
        throw BadInput{"--seed must be a positive integer (softverbs: 0 is not adversarial), got '" + o.seed + "'"};
    if (!o.seed.empty() && !o.adversarial)
        throw BadInput{"--seed " + o.seed + " needs --adversarial"};
    if (!o.timeout_ms.empty() && !whole(o.timeout_ms, 9))
        throw BadInput{"--timeout-ms must be a positive number of milliseconds below 10^9, got '" + o.timeout_ms + "'"};
    if (!o.devices.empty() && (!o.np.empty() || !o.nodes.empty()))
        throw BadInput{"--devices N (one process that sees N devices) excludes --np and --nodes (one device per "
                       "process)"};
    if (!o.nodes.empty() && geteuid() != 0)
        throw BadInput{"--nodes needs root (network namespaces)"};
    if (o.np.empty() && o.devices.empty())
        o.np = "2";
    if (!o.nodes.empty() && std::stoi(o.np) < std::stoi(o.nodes))
        throw BadInput{"--nodes " + o.nodes + " needs at least as many ranks; --np is " + o.np};

    // Run alone: the libraries and helpers beside this program, as every hcts program finds them.
    namespace locate = hcts::locate;
    if (o.lib_dir.empty())
        o.lib_dir = locate::library("libhcomm.so").parent_path();
    if (o.softverbs_dir.empty())
        o.softverbs_dir = locate::library("softverbs");
    if (o.launcher.empty())
        o.launcher = locate::helper("mpi_harness/launch", "mpi_harness/launch").value_or("mpi_harness/launch");
    if (o.waits.empty())
        o.waits = locate::bin_dir() / "hcts-waits";
    return o;
}

bool executable_file(const fs::path &p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The program's real path: a name without '/' is looked up on PATH, as execvp does.
fs::path find_program(const std::string &given)
{
    fs::path program = given;
    if (given.find('/') == std::string::npos) {
        const char *path = std::getenv("PATH");
        const std::string_view dirs = path != nullptr ? path : "";
        std::optional<fs::path> found;
        for (std::size_t at = 0; !found && at <= dirs.size();) {
            const std::size_t end = std::min(dirs.find(':', at), dirs.size());
            const fs::path dir = end == at ? fs::path(".") : fs::path(dirs.substr(at, end - at));
            if (executable_file(dir / given))
                found = dir / given;
            at = end + 1;
        }
        if (!found)
            throw BadInput{"program '" + given + "' not found on PATH"};
        program = *found;
    }
    if (!executable_file(program))
        throw BadInput{"program '" + program.string() + "' is not an executable file"};
    return fs::canonical(program);
}

// The wait-report directory (HCOMM_REF_WAIT_REPORT): fresh, readable by every rank, removed
// with what the ranks left in it.
class ReportDir {
  public:
    ReportDir()
    {
        const char *tmp = std::getenv("TMPDIR");
        std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/hcts-launch.XXXXXX";
        if (mkdtemp(path.data()) == nullptr)
            throw std::system_error(errno, std::generic_category(), "cannot make the wait-report directory " + path);
        path_ = path;
        chmod(path_.c_str(), 0755);
    }
    ~ReportDir()
    {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    ReportDir(const ReportDir &) = delete;
    ReportDir &operator=(const ReportDir &) = delete;
    const fs::path &path() const { return path_; }

  private:
    fs::path path_;
};

// The caller's environment for the simulated cluster, which forwards only its own settings:
// " -x NAME" for each exported variable but MPI's own, shell functions and the shell's own.
std::string forwarded_environment()
{
    constexpr std::string_view skipped_prefixes[] = {"OMPI_", "PMIX_", "PRTE_", "BASH_FUNC_"};
    constexpr std::string_view skipped[] = {"_", "SHLVL", "PWD", "OLDPWD"};
    std::vector<std::string> names;
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string name(*e, std::strcspn(*e, "="));
        const bool identifier =
            !name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) == 0 &&
            name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
                std::string::npos;
        if (identifier && std::ranges::none_of(skipped_prefixes, [&](auto p) { return name.starts_with(p); }) &&
            std::ranges::find(skipped, name) == std::end(skipped))
            names.push_back(name);
    }
    std::ranges::sort(names);
    std::string out;
    for (const auto &name : names)
        out += " -x " + name;
    return out;
}

// Starts argv[0] (a path). A job gets a process group of its own and /dev/null as standard
// input; a helper writes its standard output to standard error. Either gets `mask`, the
// signal mask this program started with.
pid_t start(const std::vector<std::string> &argv, bool job, const sigset_t &mask)
{
    std::vector<char *> args;
    for (const auto &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
        throw std::system_error(errno, std::generic_category(), "cannot start " + argv[0]);
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &mask, nullptr);
        if (job) {
            setpgid(0, 0);
            const int null = open("/dev/null", O_RDONLY);
            if (null >= 0 && null != 0) {
                dup2(null, 0);
                close(null);
            }
        } else {
            dup2(2, 1);
        }
        execv(args[0], args.data());
        const int error = errno;
        say("cannot run " + argv[0] + ": " + std::strerror(error));
        _exit(error == ENOENT ? 127 : 126);
    }
    if (job)
        setpgid(pid, pid);
    return pid;
}

// Waits for `pid` to end, until `deadline` (none: no limit). SIGCHLD, SIGINT and SIGTERM are
// blocked in this program and taken here; with `interrupt`, SIGINT or SIGTERM ends the wait
// (*interrupt is the signal), else they are dropped. Returns the status as a shell reports it
// (128 + the signal that killed it), nullopt while the process still runs.
std::optional<int> wait_for(pid_t pid, std::optional<Clock::time_point> deadline, int *interrupt)
{
    sigset_t taken;
    sigemptyset(&taken);
    for (const int s : {SIGCHLD, SIGINT, SIGTERM})
        sigaddset(&taken, s);
    for (;;) {
        int status = 0;
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (r < 0 && errno == ECHILD)
            return 127; // not ours to wait for: cannot happen for what start() made
        timespec left{}, *timeout = nullptr;
        if (deadline) {
            const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(*deadline - Clock::now()).count();
            if (ns <= 0)
                return std::nullopt;
            left = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
            timeout = &left;
        }
        const int signal = sigtimedwait(&taken, nullptr, timeout);
        if ((signal == SIGINT || signal == SIGTERM) && interrupt != nullptr) {
            *interrupt = signal;
            return std::nullopt;
        }
    }
}

// The pids of the job's rank processes that still run the program: each rank that loaded the
// reference named its report file waits.<pid>.
std::vector<pid_t> ranks_left(const fs::path &report, const fs::path &program)
{
    std::vector<pid_t> left;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(report, ec)) {
        const std::string name = entry.path().filename().string();
        const std::string pid = name.starts_with("waits.") ? name.substr(6) : "";
        std::error_code same_ec;
        if (whole(pid, 9) && fs::equivalent("/proc/" + pid + "/exe", program, same_ec))
            left.push_back(std::stoi(pid));
    }
    std::ranges::sort(left);
    return left;
}

// The job still runs at the deadline or after an interrupt: who waits for what, then SIGTERM
// to its group and SIGKILL after 3 s; ranks that outlived mpirun get 3 s more, then SIGKILL.
// Returns 124, or 128 + the signal.
int end_job(pid_t job, int signal, const Options &o, const fs::path &report, const fs::path &program,
            const sigset_t &mask)
{
    if (signal != 0)
        say("interrupted (signal " + std::to_string(signal) + ") while the job still runs. Who waits for what:");
    else
        say("the deadline (" + o.timeout_ms + " ms) passed; the job still runs. Who waits for what:");
    const pid_t waits = start({o.waits.string(), report.string()}, false, mask);
    if (wait_for(waits, std::nullopt, nullptr) != 0)
        say("hcts-waits could not read " + report.string());
    say("ending the job (SIGTERM, then SIGKILL after 3 s)");
    kill(-job, SIGTERM);
    wait_for(job, Clock::now() + 3s, nullptr);
    kill(-job, SIGKILL);
    wait_for(job, std::nullopt, nullptr);
    // mpirun may end before its ranks: wait for those still running the program, then kill them.
    std::vector<pid_t> left;
    for (int i = 0; i < 60; ++i) {
        left = ranks_left(report, program);
        if (left.empty())
            break;
        if (i < 59)
            std::this_thread::sleep_for(50ms);
    }
    if (!left.empty()) {
        std::string pids;
        for (const pid_t p : left)
            pids += (pids.empty() ? "" : " ") + std::to_string(p);
        say("rank process(es) " + pids + " still run after 3 s: SIGKILL");
        for (const pid_t p : left)
            kill(p, SIGKILL);
    }
    return signal != 0 ? 128 + signal : deadline_status;
}

// The job: its environment, its command (the program alone, or under mpi_harness/launch), then
// it runs to its end, its deadline or an interrupt. Returns the exit status.
int launch(const Options &o)
{
    const fs::path program = find_program(o.program.front());
    if (!executable_file(o.waits))
        throw BadInput{o.waits.string() + " is missing (build it: cmake --build ... --target hcts-waits)"};
    if (o.devices.empty() && !executable_file(o.launcher))
        throw BadInput{o.launcher.string() + " (mpi_harness/launch) is missing or not executable"};

    const char *library_path = std::getenv("LD_LIBRARY_PATH");
    setenv("LD_LIBRARY_PATH",
           (o.softverbs_dir.string() + ":" + o.lib_dir.string() +
            (library_path != nullptr && *library_path != '\0' ? ":" + std::string(library_path) : ""))
               .c_str(),
           1);
    const ReportDir report;
    setenv("HCOMM_REF_WAIT_REPORT", report.path().c_str(), 1);
    std::string forward = "-x HCOMM_REF_WAIT_REPORT";
    // Operators written for the device use their aclrtMalloc memory as the local side of reads
    // and writes without registering it (HCCL's examples/04_custom_ops_p2p reads into it): the
    // vendor's device code accepts that with a warning, and so does a launch, unless the caller
    // chose (HCOMM_REF_LOCAL_UNREGISTERED=refuse keeps the reference's own rule).
    if (std::getenv("HCOMM_REF_LOCAL_UNREGISTERED") == nullptr) {
        setenv("HCOMM_REF_LOCAL_UNREGISTERED", "warn", 1);
        say("unregistered user memory as the local side of a transfer is accepted with a warning, as on the "
            "device (HCOMM_REF_LOCAL_UNREGISTERED=refuse refuses it)");
    }
    forward += " -x HCOMM_REF_LOCAL_UNREGISTERED";
    if (o.adversarial) {
        std::string seed = o.seed;
        if (seed.empty()) {
            std::random_device entropy;
            seed = std::to_string(std::uniform_int_distribution<long>(1, 1L << 30)(entropy));
        }
        setenv("SOFTVERBS_SEED", seed.c_str(), 1);
        forward += " -x SOFTVERBS_SEED";
        say("softverbs adversarial mode, SOFTVERBS_SEED=" + seed + " (--seed " + seed + " reruns it)");
    }

    std::vector<std::string> run;
    if (!o.devices.empty()) {
        setenv("HCTS_ACL_DEVICES", o.devices.c_str(), 1);
        run.push_back(program.string());
        run.insert(run.end(), o.program.begin() + 1, o.program.end());
        std::string words;
        for (const auto &w : run)
            words += (words.empty() ? "" : " ") + w;
        say("one process that sees " + o.devices + " device(s) (HCTS_ACL_DEVICES=" + o.devices + "): " + words);
    } else {
        run = {o.launcher.string(), "--np", o.np};
        if (!o.nodes.empty()) {
            run.insert(run.end(), {"--nodes", o.nodes});
            // The simulated cluster forwards only its own settings: the caller's environment
            // goes along variable by variable.
            const char *extra = std::getenv("HCTS_MPIRUN_ARGS");
            forward += forwarded_environment();
            setenv("HCTS_MPIRUN_ARGS",
                   ((extra != nullptr && *extra != '\0' ? std::string(extra) + " " : "") + forward).c_str(), 1);
        }
        run.insert(run.end(), {"--", program.string()});
        run.insert(run.end(), o.program.begin() + 1, o.program.end());
    }
    if (!o.timeout_ms.empty())
        say("deadline " + o.timeout_ms + " ms; at it, who waits for what, then the job ends (status 124)");

    // SIGCHLD, SIGINT and SIGTERM are taken in wait_for: an interrupt ends the job as the deadline
    // does, with the report first, so a hang without --timeout-ms explains itself too.
    sigset_t taken, mask;
    sigemptyset(&taken);
    for (const int s : {SIGCHLD, SIGINT, SIGTERM})
        sigaddset(&taken, s);
    sigprocmask(SIG_BLOCK, &taken, &mask);
    const auto begin = Clock::now();
    const pid_t job = start(run, true, mask);
    std::optional<Clock::time_point> deadline;
    if (!o.timeout_ms.empty())
        deadline = begin + std::chrono::milliseconds(std::stol(o.timeout_ms));
    int signal = 0;
    const std::optional<int> ended = wait_for(job, deadline, &signal);
    const int status = ended ? *ended : end_job(job, signal, o, report.path(), program, mask);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin).count();
    say("finished after " + std::to_string(ms) + " ms with status " + std::to_string(status));
    return status;
}

} // namespace

int main(int argc, char **argv)
{
    try {
        const std::optional<Options> options = parse(argc, argv);
        return options ? launch(*options) : 0;
    } catch (const BadInput &e) {
        say(e.message);
        return bad_input_status;
    } catch (const std::exception &e) {
        say(e.what());
        return 1;
    }
}
