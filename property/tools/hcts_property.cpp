// hcts-property: runs the property suite against an implementation and reports
// each counterexample with its RapidCheck reproduce string, softverbs seed and
// a one-line command. See property/README.md.
//
// The implementation is loaded by core's loader (hcts::Library), every device
// call goes through the platform adapter (hcts::Adapter) as the one device
// program hcts_prog_ops, and results.json is written by hcts::ResultsWriter.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// CLI11's string helpers trip GCC 12's -Wnull-dereference where they are
// inlined (a false positive inside libstdc++); the rest of the file keeps it.
#include "hcts/core/cli.h"
#include <nlohmann/json.hpp>

#include "driver/hcomm_driver.h"
#include "driver/sim_driver.h"
#include "hcts/core/adapter.h"
#include "hcts/core/catalogue.h"
#include "hcts/core/clause_kind.h"
#include "hcts/core/library.h"
#include "hcts/core/locate.h"
#include "hcts/core/products.h"
#include "hcts/core/results.h"
#include "hcts/core/verdict.h"
#include "hcts_property_resources.h"
#include "machine/properties.h"

#ifdef HCTS_PROPERTY_MPI
#include <mpi.h>

#include "driver/mpi_driver.h"
#endif

#ifndef HCTS_SUITE_COMMIT
#define HCTS_SUITE_COMMIT ""
#endif

using namespace hcts::prop;
using nlohmann::json;

namespace {

// The reference, its adapter and the device programs beside this program, built
// or installed (hcts/core/locate.h); --iut and --adapter override the first two.
std::string reference_lib() { return hcts::locate::library("libhcomm.so").string(); }
std::string reference_adapter() { return hcts::locate::library("libhcts_adapter_ref.so").string(); }
std::string programs_lib() { return hcts::locate::library("libhcts_programs.so").string(); }
// The launch script, as a reproducer names it.
std::string mpi_launch()
{
    const auto p = hcts::locate::helper("mpi_harness/launch", "mpi_harness/launch");
    return p ? p->string() : std::string("mpi_harness/launch");
}

// Exit statuses (as mpi_harness/launch reads them).
constexpr int kExitPass = 0, kExitFail = 1, kExitUsage = 2;

struct Options {
    std::string driver = "hcomm";
    std::string iut = reference_lib();
    std::string adapter = reference_adapter();
    std::string sim_fault = "none";
    std::string results;
    std::string timeout_unit; // "", "s" or "ms"
    std::string gate = "default";
    std::vector<std::string> only;
    int cases = 0; // 0: the driver's default
    bool long_run = false, expect_ce = false, mpi = false, list = false;
    bool adapter_given = false, wait_timeout_given = false; // on the command line or in the environment
    size_t max_commands = 5;
    uint64_t seed = 0;
    uint32_t wait_timeout_ms = 200;
};

std::string join(const std::vector<std::string> &v, const char *sep = ", ")
{
    std::string out;
    for (const auto &s : v)
        out += (out.empty() ? "" : sep) + s;
    return out;
}

// The clause catalogue this program was built with (conformance/spec/clauses.yaml).
const hcts::Catalogue &catalogue()
{
    static const hcts::Catalogue c =
        hcts::Catalogue::parse(hcts::property::clauses_yaml(), "conformance/spec/clauses.yaml");
    return c;
}

// MUST, STRICT or PROFILE; "" for a clause the catalogue does not have.
std::string kind_of(const std::string &clause)
{
    const hcts::Clause *c = catalogue().find(clause);
    return c ? c->kind : std::string();
}

// "--driver: 'x' is not allowed; allowed: sim, hcomm" (CLI11 prefixes the option).
CLI::Validator one_of(std::vector<std::string> allowed)
{
    const std::string desc = "{" + join(allowed, "|") + "}";
    return CLI::Validator(
        [allowed = std::move(allowed)](std::string &v) -> std::string {
            if (std::find(allowed.begin(), allowed.end(), v) != allowed.end())
                return {};
            return "'" + v + "' is not allowed; allowed: " + join(allowed);
        },
        desc);
}

CLI::Validator whole_number(unsigned long long min, unsigned long long max)
{
    return CLI::Validator(
        [min, max](std::string &v) -> std::string {
            size_t used = 0;
            unsigned long long n = 0;
            try {
                if (v.empty() || v[0] == '-' || v[0] == '+')
                    throw std::invalid_argument(v);
                n = std::stoull(v, &used, 10);
            } catch (const std::exception &) {
                used = 0;
            }
            if (used == v.size() && used > 0 && n >= min && n <= max)
                return {};
            return "'" + v + "' is not allowed; allowed: a whole number from " + std::to_string(min) + " to " +
                   std::to_string(max);
        },
        "");
}

std::vector<std::string> property_names()
{
    std::vector<std::string> names;
    for (const auto &p : all_properties())
        names.push_back(p.name);
    return names;
}

size_t generated_commands(const std::vector<std::string> &ce)
{
    size_t n = 0;
    for (const auto &c : ce)
        if (c.rfind("end of case: ", 0) != 0)
            ++n;
    return n;
}

// The simulator's faults by their --sim-fault names: one list for the check and the lookup.
constexpr std::pair<const char *, SimFault> kSimFaults[] = {{"none", SimFault::None},
                                                            {"notify-before-data", SimFault::NotifyBeforeData},
                                                            {"index-off-by-one", SimFault::IndexOffByOne},
                                                            {"host-accepted", SimFault::HostAccepted}};

std::vector<std::string> sim_fault_names()
{
    std::vector<std::string> names;
    for (const auto &[name, fault] : kSimFaults)
        names.push_back(name);
    return names;
}

SimFault sim_fault(const std::string &f)
{
    for (const auto &[name, fault] : kSimFaults)
        if (f == name)
            return fault;
    return SimFault::None;
}

// Parses the command line into `o`; returns an exit status when the program
// should stop here (help, usage error), else nullopt.
std::optional<int> parse(int argc, char **argv, Options &o)
{
    CLI::App app{"hcts-property: model-based tests of hcomm with RapidCheck (property/README.md).\n"
                 "Exit status: 0 every property passed, 1 a property failed or the run aborted, 2 bad usage or "
                 "an implementation/adapter that cannot be loaded.",
                 "hcts-property"};
    app.get_formatter()->column_width(30);
    app.add_option("--driver", o.driver, "implementation to drive")
        ->check(one_of({"sim", "hcomm"}))
        ->capture_default_str();
    // No capture_default_str for the two paths: the man page is made from --help, and
    // must not carry the build machine's directories.
    app.add_option("--iut", o.iut, "hcomm library under test (default: the reference beside this program)")
        ->envname("HCTS_IUT");
    auto *adapter = app.add_option("--adapter", o.adapter,
                                   "platform adapter (core/abi/hcts_adapter.h) for device launches and device memory "
                                   "(default: the reference adapter)")
                        ->envname("HCTS_ADAPTER");
    app.add_option("--sim-fault", o.sim_fault, "simulator fault")
        ->check(one_of(sim_fault_names()))
        ->capture_default_str();
    app.add_option("--property", o.only, "run only NAME (repeatable); --list shows them")
        ->check(one_of(property_names()))
        ->type_name("NAME")
        ->allow_extra_args(false);
    app.add_option("--cases", o.cases, "cases per property (default 100 sim / 25 hcomm; RC_PARAMS max_success wins)")
        ->check(whole_number(1, 1000000));
    app.add_flag("--long", o.long_run, "nightly: 10x the cases")->envname("HCTS_PROPERTY_LONG");
    app.add_option("--seed", o.seed, "RapidCheck seed (RC_PARAMS seed= also works)")
        ->check(whole_number(1, UINT64_MAX));
    auto *wait_timeout = app.add_option("--wait-timeout-ms", o.wait_timeout_ms, "timeout of generated waits")
                             ->check(whole_number(1, 600000))
                             ->capture_default_str();
    app.add_option("--timeout-unit", o.timeout_unit,
                   "the IUT's wait timeout unit, s or ms (default: measured at start-up with a wait of timeOut 1)")
        ->check(one_of({"s", "ms"}));
    app.add_option("--gate", o.gate,
                   "which clauses fail a case: default (MUST) or strict (MUST and STRICT); a violation of any "
                   "other clause is recorded as a departure, and the model allows what the call may have done")
        ->check(one_of({"default", "strict"}))
        ->capture_default_str();
    app.add_option("--results", o.results, "write an hcts-results v1 document (run.kind property)")
        ->envname("HCTS_PROPERTY_RESULTS")
        ->type_name("PATH");
    app.add_flag("--expect-counterexample", o.expect_ce,
                 "self-test mode: succeed iff every property fails with a counterexample of at most --max-commands "
                 "generated commands");
    app.add_option("--max-commands", o.max_commands, "for --expect-counterexample")
        ->check(whole_number(1, 1000))
        ->capture_default_str();
    app.add_flag("--mpi", o.mpi,
                 "lockstep under MPI, one rank per process (mpi_harness/launch --np N -- hcts-property --mpi); "
                 "rank 0 generates, judges and reports");
    app.add_flag("--list", o.list, "list the properties and the clauses each checks");
    app.footer(
        "environment: RC_PARAMS (seed=, max_success=, reproduce=), SOFTVERBS_SEED (reported), HCTS_IUT, "
        "HCTS_ADAPTER, HCTS_PROPERTY_RESULTS, HCTS_PROPERTY_LONG=1, HCTS_PROPERTY_PROTOCOL (ub_ctp, uboe, roce)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
        std::cout << app.help();
        return kExitPass;
    } catch (const CLI::ParseError &e) {
        std::cerr << "hcts-property: " << e.what() << "\nrun 'hcts-property --help' for the options\n";
        return kExitUsage;
    }
    if (o.list) {
        for (const auto &p : all_properties())
            std::cout << p.name << "\t" << p.what << "\t[" << join(p.clauses) << "]\n";
        return kExitPass;
    }
    auto usage = [](const std::string &msg) {
        std::cerr << "hcts-property: " << msg << "\nrun 'hcts-property --help' for the options\n";
        return kExitUsage;
    };
    if (o.mpi && o.driver != "hcomm")
        return usage("--mpi needs --driver hcomm (the simulator runs in one process)");
    if (o.sim_fault != "none" && o.driver != "sim")
        return usage("--sim-fault needs --driver sim");
#ifndef HCTS_PROPERTY_MPI
    if (o.mpi)
        return usage("this hcts-property was built without MPI; --mpi is not available");
#endif
    o.adapter_given = adapter->count() > 0;
    o.wait_timeout_given = wait_timeout->count() > 0;
    return std::nullopt;
}

// The results document, shared with the thread that records an interrupted run.
class Report {
  public:
    void open(const std::string &path, hcts::RunInfo info)
    {
        std::lock_guard lock(mu_);
        writer_ = std::make_unique<hcts::ResultsWriter>(path, std::move(info), nullptr, nullptr);
    }
    template <typename F>
    void with(F &&f)
    {
        std::lock_guard lock(mu_);
        if (writer_)
            f(*writer_);
    }
    // Records why the run stopped; the document never gates "pass".
    void abort(const std::string &why)
    {
        with([&](hcts::ResultsWriter &w) {
            w.set_error(why);
            w.finish(hcts::RunStatus::Aborted);
        });
    }
    std::string path()
    {
        std::lock_guard lock(mu_);
        return writer_ ? writer_->path() : "";
    }

  private:
    std::mutex mu_;
    std::unique_ptr<hcts::ResultsWriter> writer_;
};

Report g_report;

// SIGINT and SIGTERM (an interrupted launch, a ctest timeout) end the run as
// aborted: a thread waits for them, records it and exits 128 + signal.
void record_interrupts()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    // Blocked here, before any other thread exists, so every thread inherits it.
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
        int sig = 0;
        if (sigwait(&set, &sig) != 0)
            return;
        std::cerr << "hcts-property: interrupted by signal " << sig << "; the run is aborted\n";
        g_report.abort("interrupted by signal " + std::to_string(sig));
        std::_Exit(128 + sig);
    }).detach();
}

std::string this_host()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0)
        return "localhost";
    return name;
}

json property_entry(const PropertySpec &spec, const PropertyOutcome &o, const std::string &command, double seconds)
{
    const hcts::Verdict v = o.harness_error ? hcts::Verdict::Error
                            : o.passed      ? hcts::Verdict::Pass
                                            : hcts::Verdict::Fail;
    json e = {{"name", o.name},
              {"clauses", spec.clauses},
              {"runs", o.runs},
              {"verdict", std::string(hcts::verdict_name(v))},
              {"seed", o.seed},
              {"reproduce", o.reproduce.empty() ? json(nullptr) : json("RC_PARAMS=\"" + o.reproduce + "\"")},
              {"command", command},
              {"counterexample", o.passed ? json(nullptr) : json(o.counterexample)},
              {"shrinks", o.shrinks},
              {"seconds", seconds}};
    if (!o.description.empty())
        e["reason"] = o.description;
    // The gate judges a counterexample by the kind of the clause it breaks,
    // and a departure (a rule broken without failing a case) by its kind too.
    if (!o.clause.empty())
        e["failed_clause"] = {{"id", o.clause}, {"kind", kind_of(o.clause)}};
    json departures = json::array();
    for (const auto &[clause, d] : o.departures)
        departures.push_back(
            {{"clause", clause}, {"kind", kind_of(clause)}, {"count", d.count}, {"example", d.example}});
    e["departures"] = std::move(departures);
    return e;
}

// Runs `run` when the scope ends, however it ends.
struct AtExit {
    std::function<void()> run;
    AtExit() = default;
    AtExit(const AtExit &) = delete;
    AtExit &operator=(const AtExit &) = delete;
    ~AtExit()
    {
        if (run)
            run();
    }
};

// What each rank of an hcomm run holds: the IUT, its adapter, the driver.
struct HcommSetup {
    std::unique_ptr<hcts::Library> iut;
    std::unique_ptr<hcts::Adapter> adapter;
    std::unique_ptr<HcommDriver> driver;
};

HcommSetup set_up_hcomm(const Options &o, int rank, int ranks, const std::function<void(HcclRootInfo &)> &share)
{
    HcommSetup s;
    s.iut = hcts::Library::open(o.iut);
    s.adapter = hcts::Adapter::open(o.adapter, *s.iut,
                                    {programs_lib(), static_cast<uint32_t>(rank), static_cast<uint32_t>(ranks)});
    if (!o.mpi && !s.adapter->multi_rank_per_process())
        throw std::runtime_error("the adapter '" + o.adapter + "' (" + s.adapter->name() +
                                 ") runs one rank per process, and this run puts all " + std::to_string(ranks) +
                                 " ranks in one: run under MPI instead, e.g. " + mpi_launch() + " --np " +
                                 std::to_string(ranks) + " -- hcts-property --mpi ...");
    HcommDriverOptions d;
    d.iut = s.iut.get();
    d.adapter = s.adapter.get();
    d.programs = programs_lib();
    if (!o.timeout_unit.empty())
        d.timeout_in_seconds = o.timeout_unit == "s";
    if (o.mpi) {
        d.only_rank = rank;
        d.share_root_info = share;
    }
    s.driver = make_hcomm_driver(d);
    return s;
}

// The command line that reruns one property: its RapidCheck parameters, the adversary's
// seed, the MPI launch (ranks > 0), the words that chose what ran (`rerun`: program and
// options, quoted); a harness error has no RapidCheck string, so the same cases again.
std::string reproducer(const PropertyOutcome &out, const std::string &property, const std::string &rerun,
                       const char *softverbs_seed, uint32_t mpi_ranks, int cases)
{
    std::ostringstream repro;
    if (!out.reproduce.empty())
        repro << "RC_PARAMS=" << hcts::shell_quote(out.reproduce) << " ";
    if (softverbs_seed != nullptr)
        repro << "SOFTVERBS_SEED=" << hcts::shell_quote(softverbs_seed) << " ";
    if (mpi_ranks > 0)
        repro << mpi_launch() << " --np " << mpi_ranks << " -- ";
    repro << rerun << " --property " << property;
    if (out.harness_error)
        repro << " --seed " << out.seed << " --cases " << cases;
    return repro.str();
}

// One property's verdict, its departures from STRICT and PROFILE clauses, and how to rerun it.
void print_outcome(const PropertyOutcome &out, const char *took, const std::string &repro, const std::string &gate)
{
    if (out.passed) {
        std::cout << "  PASS after " << out.runs << " cases in " << took << " (seed " << out.seed << ")\n";
        for (const auto &[clause, d] : out.departures)
            std::cout << "  departs from " << clause << " (" << kind_of(clause) << ", does not gate under --gate "
                      << gate << ") " << d.count << " time(s), e.g. " << d.example
                      << "\n    (--gate strict makes a STRICT departure a shrunk counterexample)\n";
    } else if (out.harness_error) {
        std::cout << "  ERROR after " << out.runs << " cases in " << took << " (seed " << out.seed
                  << "): the harness could not decide\n"
                  << out.description << "\n";
        if (!out.counterexample.empty())
            std::cout << "  the case so far:\n";
        for (const auto &c : out.counterexample)
            std::cout << "    " << c << "\n";
        std::cout << "  rerun: " << repro << "\n";
    } else {
        std::cout << "  FAIL after " << out.runs << " cases, " << out.shrinks << " shrinks in " << took << " (seed "
                  << out.seed << ")"
                  << (out.clause.empty() ? "" : ": breaks " + out.clause + " (" + kind_of(out.clause) + ")") << "\n"
                  << out.description << "\n  counterexample (" << generated_commands(out.counterexample)
                  << " generated commands):\n";
        for (const auto &c : out.counterexample)
            std::cout << "    " << c << "\n";
        std::cout << "  reproduce: " << repro << "\n";
    }
}

// --expect-counterexample: the property must fail with a shrunk counterexample of at most
// max_commands generated commands (the suite's own self-test); false, said, when not.
bool counterexample_as_expected(const PropertyOutcome &out, size_t max_commands)
{
    const size_t n = generated_commands(out.counterexample);
    if (!out.passed && !out.harness_error && !out.reproduce.empty() && !out.counterexample.empty() && n <= max_commands)
        return true;
    std::cout << "  SELF-TEST FAILED: expected a counterexample of at most " << max_commands << " commands, got "
              << (out.passed          ? "none (the property passed)"
                  : out.harness_error ? "a harness error"
                                      : std::to_string(n))
              << "\n";
    return false;
}

// The run's settings from the options: which clauses gate, seeds, cases per property.
RunConfig run_config(const Options &o)
{
    RunConfig cfg;
    // A clause the catalogue does not know gates: better a loud failure than a quiet pass.
    const hcts::GateMode mode = o.gate == "strict" ? hcts::GateMode::Strict : hcts::GateMode::Default;
    cfg.gates = [mode](const std::string &clause) { return hcts::gates_on(kind_of(clause), mode, true); };
    cfg.seed = o.seed;
    cfg.wait_timeout_ms = o.wait_timeout_ms;
    cfg.max_success = o.cases > 0 ? o.cases : (o.driver == "sim" ? 100 : 25);
    if (o.long_run)
        cfg.max_success *= 10;
    return cfg;
}

// The run as results.json records it (rank 0 writes it).
hcts::RunInfo run_info(const Options &o, const RunConfig &cfg, int argc, char **argv, const char *sv_seed)
{
    const bool sim = o.driver == "sim";
    hcts::RunInfo info;
    info.kind = "property";
    info.command = hcts::command_line(argc, argv);
    info.gate = o.gate;
    info.mode = sv_seed != nullptr ? "adversarial" : "plain";
    // The run's seed: softverbs' in adversarial mode, else the RapidCheck seed every property starts from.
    info.seed = sv_seed != nullptr ? std::strtoull(sv_seed, nullptr, 10) : run_seed(cfg);
    info.transport = sim     ? "in-memory simulator"
                     : o.mpi ? "one rank per MPI process over libibverbs"
                             : "in-process ranks over libibverbs";
    info.suite_commit = HCTS_SUITE_COMMIT;
    return info;
}

// Loads the implementation and its adapter (or the simulator) and records them in the
// report. Empty on success, else what went wrong.
std::string set_up(const Options &o, const RunConfig &cfg, int rank, const std::function<void(HcclRootInfo &)> &share,
                   HcommSetup &hcomm, std::unique_ptr<Driver> &driver)
{
    const int ranks = static_cast<int>(cfg.geometry.ranks);
    try {
        if (o.driver == "sim") {
            driver = make_sim_driver(sim_fault(o.sim_fault));
            g_report.with([&](hcts::ResultsWriter &w) {
                w.set_iut_name(o.sim_fault == "none" ? "sim" : "sim:" + o.sim_fault);
                // The simulator models the table's default product (write with notify on AICPU_TS).
                w.set_environment(hcts::products::Table::builtin().default_product().name, ranks, {this_host()});
            });
            return {};
        }
        g_report.with(
            [&](hcts::ResultsWriter &w) { w.set_iut_name(std::filesystem::path(o.iut).filename().string()); });
        hcomm = set_up_hcomm(o, rank, ranks, share);
        g_report.with([&](hcts::ResultsWriter &w) {
            w.set_iut(*hcomm.iut, hcomm.adapter->iut_version());
            w.set_adapter(*hcomm.adapter);
            w.set_environment(hcomm.adapter->product(), ranks, {this_host()});
        });
        return {};
    } catch (const std::exception &e) {
        return e.what();
    }
}

// The program and the words that chose what ran, quoted: every reproducer starts so.
// On hardware (not the simulator) it builds the world once first and measures the
// timeout unit, which the reproducer then states.
std::string rerun_prefix(const Options &o, const char *argv0, Driver &driver, const RunConfig &cfg,
                         const HcommSetup &hcomm, HcommDriver *local)
{
    std::vector<std::string> keep; // what selects *what* runs
    if (o.driver == "sim") {
        keep = {"--driver", "sim", "--sim-fault", o.sim_fault};
    } else {
        driver.reset(cfg.geometry);
        const bool seconds = local->timeout_in_seconds().value_or(true);
        std::cout << "hcts-property: " << driver.name() << ", product " << hcomm.adapter->product()
                  << ", wait timeout unit " << (seconds ? "s" : "ms") << " (" << local->timeout_unit_note() << ")"
                  << std::endl;
        keep = {"--iut", hcomm.iut->path()};
        if (o.adapter_given)
            keep.insert(keep.end(), {"--adapter", o.adapter});
        keep.insert(keep.end(), {"--timeout-unit", seconds ? "s" : "ms"});
        if (o.mpi)
            keep.push_back("--mpi");
    }
    if (o.wait_timeout_given)
        keep.insert(keep.end(), {"--wait-timeout-ms", std::to_string(o.wait_timeout_ms)});
    if (o.gate != "default")
        keep.insert(keep.end(), {"--gate", o.gate});
    std::string rerun = hcts::shell_quote(argv0);
    for (const auto &k : keep)
        rerun += " " + hcts::shell_quote(k);
    return rerun;
}

// Runs every selected property, prints and records each outcome; the exit status.
int run_properties(const Options &o, const RunConfig &cfg, Driver &driver, const std::string &rerun,
                   const char *sv_seed)
{
    int failures = 0, self_test_failures = 0;
    for (const auto &spec : all_properties()) {
        if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), spec.name) == o.only.end())
            continue;
        std::cout << "hcts-property: " << spec.name << " (" << spec.what << ") on " << driver.name() << ", "
                  << cfg.max_success << " cases" << std::endl;
        const auto t0 = std::chrono::steady_clock::now();
        const PropertyOutcome out = run_property(spec, cfg, driver);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string repro =
            reproducer(out, spec.name, rerun, sv_seed, o.mpi ? cfg.geometry.ranks : 0, cfg.max_success);
        char took[32];
        std::snprintf(took, sizeof took, "%.1f s", seconds);
        print_outcome(out, took, repro, o.gate);
        if (!out.passed)
            ++failures;
        if (o.expect_ce && !counterexample_as_expected(out, o.max_commands))
            ++self_test_failures;
        g_report.with([&](hcts::ResultsWriter &w) { w.add_property(property_entry(spec, out, repro, seconds)); });
        std::cout << std::flush;
    }
    g_report.with([](hcts::ResultsWriter &w) { w.finish(hcts::RunStatus::Complete); });
    if (const std::string p = g_report.path(); !p.empty())
        std::cout << "hcts-property: results in " << p << "\n";
    if (o.expect_ce)
        return self_test_failures == 0 ? kExitPass : kExitFail;
    return failures == 0 ? kExitPass : kExitFail;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (const auto status = parse(argc, argv, o))
        return *status;
    record_interrupts();
    try {
        (void)catalogue();
    } catch (const std::exception &e) {
        std::cerr << "hcts-property: the built-in clause catalogue does not load: " << e.what() << "\n";
        return kExitUsage;
    }
    RunConfig cfg = run_config(o);

    int world_rank = 0;
    std::function<void(HcclRootInfo &)> share_root;
#ifdef HCTS_PROPERTY_MPI
    AtExit mpi_session;
    if (o.mpi) {
        MPI_Init(&argc, &argv);
        mpi_session.run = [] { MPI_Finalize(); };
        int world_size = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &world_size);
        if (world_size < 2) {
            std::cerr << "hcts-property: --mpi needs at least 2 ranks (" << mpi_launch()
                      << " --np 2 -- hcts-property --mpi)\n";
            return kExitUsage;
        }
        cfg.geometry.ranks = static_cast<uint32_t>(world_size);
        share_root = [](HcclRootInfo &root) { MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD); };
    }
#endif
    // softverbs' seed when it runs adversarial (never for the simulator), else null.
    const char *sv_seed = std::getenv("SOFTVERBS_SEED");
    if (o.driver == "sim" || sv_seed == nullptr || *sv_seed == '\0')
        sv_seed = nullptr;
    if (world_rank == 0 && !o.results.empty()) {
        try {
            g_report.open(o.results, run_info(o, cfg, argc, argv, sv_seed));
        } catch (const std::exception &e) {
            std::cerr << "hcts-property: " << e.what() << "\n";
            return kExitUsage;
        }
    }

    // The driver refers to the IUT and the adapter: declared after them, it goes first.
    HcommSetup hcomm;
    std::unique_ptr<Driver> driver;
    std::string setup_error = set_up(o, cfg, world_rank, share_root, hcomm, driver);
#ifdef HCTS_PROPERTY_MPI
    if (o.mpi) {
        // Every rank must be ready before rank 0 drives them: agree on it.
        int ok = setup_error.empty() ? 1 : 0, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all_ok && setup_error.empty())
            setup_error = "another rank could not set up (see its message)";
    }
#endif
    if (!setup_error.empty()) {
        std::cerr << "hcts-property: " << (o.mpi ? "rank " + std::to_string(world_rank) + ": " : "") << setup_error
                  << "\n";
        g_report.abort(setup_error);
        return kExitUsage;
    }
#ifdef HCTS_PROPERTY_MPI
    if (o.mpi && world_rank != 0) {
        serve_mpi_driver(*hcomm.driver);
        return kExitPass;
    }
    // Rank 0 releases the servers however it leaves (before MPI_Finalize).
    AtExit servers;
    if (o.mpi) {
        driver = make_mpi_driver(*hcomm.driver);
        servers.run = stop_mpi_servers;
    }
#endif
    if (!driver)
        driver = std::move(hcomm.driver);
    HcommDriver *local = hcomm.driver ? hcomm.driver.get() : dynamic_cast<HcommDriver *>(driver.get());
    try {
        const std::string rerun = rerun_prefix(o, argv[0], *driver, cfg, hcomm, local);
        return run_properties(o, cfg, *driver, rerun, sv_seed);
    } catch (const std::exception &e) {
        std::cerr << "hcts-property: the run stopped: " << e.what() << "\n";
        g_report.abort(std::string("the run stopped: ") + e.what());
        return kExitFail;
    }
}
