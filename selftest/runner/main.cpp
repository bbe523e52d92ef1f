// hcts-selftest: runs the self-test catalogue (selftest/README.md) — every wrong
// library, legal variant, PROFILE variant and source mutant — through the
// conformance suite, judges each run against the entry's expectation, and writes
// the kill matrix (selftest.json). --check-catalogue checks the coverage rules.
// Exit status: 0 every expectation held (and every API-observable mutant run was
// killed), 1 not, 2 a usage or catalogue error.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <sstream>
#include <thread>

#include "hcts/core/cli.h"
#include "hcts/core/files.h"
#include "hcts/core/locate.h"
#include "hcts/core/results.h"
#include "hcts/core/settings.h"

#include "catalogue.h"
#include "check.h"
#include "focus.h"
#include "judge.h"
#include "rotation.h"
#include "spawn.h"

namespace fs = std::filesystem;
using namespace hcts::selftest;
using Clock = std::chrono::steady_clock;

namespace {

// The source tree when this program runs from its build tree; installed, none
// (hcts/core/locate.h): mutant entries and the catalogue check need one.
std::string default_source_dir()
{
    const auto src = hcts::locate::source_dir();
    return src ? src->string() : std::string();
}

struct Options {
    std::string source_dir = default_source_dir(), build_dir = HCTS_BINARY_DIR;
    std::string launch, validate, schema; // found beside this program, built or installed
    std::string catalogue, clauses, out, json, reference;
    std::string only, kind;
    bool check = false, internal = false, list = false;
    int sample = 0;
    int rotate = 0; // shares of the CI rotation (rotation.h); 0: every selected mutant
    bool focus = false;
    std::map<std::string, std::string> focus_filters; // --focus: entry id -> the cases it runs (focus.h)
    std::optional<uint64_t> seed;
    int deadline_s = 900, repeat = 128, case_timeout_s = 60;
    int jobs = 1;
};

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');)
        if (!x.empty())
            out.push_back(x);
    return out;
}

std::string joined(const std::vector<std::string> &v, const char *sep = ",")
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : sep) + x;
    return s;
}

Command command_for(const Entry &e, const Options &o, const std::string &dir)
{
    Command c;
    const char *ld = std::getenv("LD_LIBRARY_PATH");
    c.env.emplace_back("LD_LIBRARY_PATH", hcts::locate::library("softverbs").string() +
                                              (ld && *ld ? ":" + std::string(ld) : std::string()));
    c.env.emplace_back("HCTS_MPI_LOG_DIR", dir + "/logs");
    for (const auto &[k, v] : e.env)
        c.env.emplace_back(k, v);
    // Legal variants of the reference claim its stricter checks; shims and the others gate as declared.
    const std::string gate = e.kind == "legal" ? legal_gate(e) : e.gate;
    c.argv = {o.launch,
              "--np",
              std::to_string(e.np),
              "--",
              (hcts::locate::bin_dir() / "hcts-conformance").string(),
              "--iut",
              iut_path(e),
              "--results",
              dir + "/results.json",
              "--repeat",
              std::to_string(o.repeat),
              "--case-timeout",
              std::to_string(std::max(o.case_timeout_s, e.case_timeout_s)),
              "--transport",
              "softverbs",
              "--gate",
              gate};
    if (!e.cases.empty())
        c.argv.push_back("--gtest_filter=" + e.cases);
    else if (const auto f = o.focus_filters.find(e.id); f != o.focus_filters.end())
        c.argv.push_back("--gtest_filter=" + f->second);
    return c;
}

// Runs a command with its output in `log`, to its deadline (spawn.h).
RunOutcome run_command(const Command &c, const std::string &log, int deadline_s)
{
    const SpawnResult s = spawn_and_wait(c, log, std::chrono::seconds(deadline_s));
    RunOutcome r;
    r.exit_code = s.exit_code;
    r.note = s.note;
    switch (s.end) {
    case SpawnResult::End::Exited: r.status = RunOutcome::Status::Finished; break;
    case SpawnResult::End::TimedOut: r.status = RunOutcome::Status::Timeout; break;
    case SpawnResult::End::NotStarted: r.status = RunOutcome::Status::NotRun; break;
    }
    return r;
}

std::string format_s(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", s);
    return buf;
}

std::string suite_commit(const std::string &src)
{
    if (src.empty()) { // installed: the commit ./hcts or the package recorded, if any
        const auto c = hcts::settings::raw(hcts::suite_settings::suite_commit);
        return c ? std::string(*c) : "unknown";
    }
    const hcts::CommandOutput git =
        hcts::capture_command("git -C " + hcts::shell_quote(src) + " rev-parse --short HEAD 2>/dev/null");
    std::string out = git.ok() ? git.text : "";
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return out;
}

// --focus: each selected mutant or wrong library with declared clauses gets the
// filter of the cases naming them, from the suite's own list of its cases. Not an
// IUT without the call (`not_supported: all`): that claim is about every clause.
bool focus_entries(const std::vector<Entry> &selected, Options &o, std::string &why_not)
{
    const std::string cmd =
        hcts::shell_quote((hcts::locate::bin_dir() / "hcts-conformance").string()) + " --list-cases 2>&1";
    const hcts::CommandOutput listed = hcts::capture_command(cmd);
    if (!listed.ok()) {
        why_not = listed.status == -1 ? "cannot run " + cmd
                                      : cmd + " exited with status " + std::to_string(listed.status) + ": " +
                                            listed.text.substr(0, 400);
        return false;
    }
    const std::string &text = listed.text;
    std::vector<CaseClauses> cases;
    try {
        cases = parse_case_list(text);
    } catch (const std::exception &e) {
        why_not = e.what();
        return false;
    }
    std::size_t focused = 0;
    for (const auto &e : selected) {
        const bool focusable =
            (e.kind == "mutant" && e.observable == "api") || (e.kind == "wrong" && !e.not_supported_all);
        if (!focusable)
            continue;
        if (!e.focus_cases.empty()) {
            if (const auto unknown = unknown_cases(e.focus_cases, cases); !unknown.empty()) {
                why_not = e.file + ": " + e.id + ": focus_cases names " + unknown +
                          ", which the suite does not have (hcts-conformance --list-cases)";
                return false;
            }
            o.focus_filters[e.id] = e.focus_cases;
            ++focused;
        } else if (auto f = focus_filter(e, cases); !f.empty()) {
            o.focus_filters[e.id] = std::move(f);
            ++focused;
        }
    }
    std::cout << "hcts-selftest: focus: " << focused << " entries run only the cases naming their declared clauses ("
              << cases.size() << " cases in the suite)\n";
    return true;
}

int check_catalogue(const LoadedCatalogue &cat, const hcts::Catalogue &clauses, const Options &o)
{
    std::optional<nlohmann::json> reference;
    if (!o.reference.empty())
        reference = hcts::read_json_file(o.reference);
    const auto guards = scan_guards(o.source_dir, {"reference_impl", "softverbs"});
    const auto problems = check_coverage(cat.entries, clauses, guards, reference);
    std::map<std::string, int> by_kind;
    for (const auto &e : cat.entries)
        ++by_kind[e.kind];
    std::cout << "hcts-selftest: catalogue: " << cat.entries.size() << " entries in " << cat.files.size()
              << " files (wrong " << by_kind["wrong"] << ", legal " << by_kind["legal"] << ", profile "
              << by_kind["profile"] << ", mutant " << by_kind["mutant"] << "); " << guards.size()
              << " hcts::mutant guards in the source\n";
    if (problems.empty()) {
        std::cout << "hcts-selftest: the catalogue meets every coverage rule\n";
        return 0;
    }
    std::cout << "hcts-selftest: " << problems.size() << " coverage rule(s) not met:\n";
    for (const auto &p : problems)
        std::cout << "  " << p << "\n";
    return 1;
}

// Runs an internal mutant's ctests with it switched on: killed when one fails.
RunOutcome run_internal(const Entry &e, const Options &o, const std::string &dir, Command &cmd)
{
    std::string regex;
    for (const auto &t : e.killed_by)
        regex += (regex.empty() ? "^(" : "|") + t;
    regex += ")$";
    cmd.env = {{"HCTS_MUTANT", e.id}};
    cmd.argv = {"/usr/bin/env", "ctest", "--test-dir", o.build_dir, "-R", regex, "--output-on-failure"};
    return run_command(cmd, dir + "/ctest.log", o.deadline_s);
}

// Runs one entry and judges it (any thread: see run_command).
struct Executed {
    std::string dir;
    Command cmd;
    RunOutcome run;
    Judgement j;
    double seconds = 0;
    bool internal = false;
};

Executed execute(const Entry &e, const Options &o)
{
    Executed x;
    x.dir = fs::absolute(fs::path(o.out) / e.id).string();
    x.cmd = command_for(e, o, x.dir);
    std::error_code ec;
    fs::create_directories(x.dir, ec);
    const auto t0 = Clock::now();
    RunOutcome &run = x.run;
    const bool internal = x.internal = e.kind == "mutant" && e.observable == "internal";
    if (internal) {
        if (o.internal) {
            run = run_internal(e, o, x.dir, x.cmd);
        } else {
            run.status = RunOutcome::Status::NotRun;
            x.cmd.argv.clear();
        }
    } else if (const auto lib = iut_path(e); !fs::exists(lib)) {
        run.status = RunOutcome::Status::NotRun;
        run.note = "the IUT " + lib + " does not exist (build it: " +
                   (e.iut == "reference" ? std::string("hcomm") : "hcts_iut_" + e.iut.substr(5)) + ")";
    } else {
        fs::remove(x.dir + "/results.json", ec);
        run = run_command(x.cmd, x.dir + "/suite.log", o.deadline_s);
        if (run.status == RunOutcome::Status::Finished) {
            try {
                run.results = hcts::read_json_file(x.dir + "/results.json");
            } catch (const std::exception &err) {
                run.note = err.what();
            }
        }
    }
    x.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    Judgement &j = x.j;
    if (internal && o.internal && run.status == RunOutcome::Status::Finished) {
        j.killed = run.exit_code != 0;
        j.ok = *j.killed;
        if (j.ok)
            j.killed_by = e.killed_by;
        else
            j.problems.push_back("survived: its ctests " + joined(e.killed_by, ", ") + " pass with it on");
        j.verdict = j.ok ? "killed by ctest " + joined(e.killed_by, ", ") : "SURVIVED (ctests pass)";
    } else {
        j = judge(e, run);
    }
    // Every document the suite wrote must follow the published schema (as run_suite.sh checks).
    if (run.results) {
        Command v;
        v.argv = {o.validate, "--schema", o.schema, x.dir + "/results.json"};
        const auto checked = run_command(v, x.dir + "/validate.log", 120);
        if (checked.status != RunOutcome::Status::Finished || checked.exit_code != 0) {
            std::ifstream in(x.dir + "/validate.log");
            std::ostringstream why;
            why << in.rdbuf();
            auto text = why.str();
            while (!text.empty() && text.back() == '\n')
                text.pop_back();
            j.ok = false;
            j.verdict += "; INVALID results.json";
            j.problems.push_back("its results.json does not validate against reports/schema: " + text);
        }
    }
    return x;
}

// The command line: every option once, with its help.
void add_options(CLI::App &app, Options &o)
{
    app.footer("Details: selftest/README.md. Exit status: 0 every expectation held and every API-observable mutant "
               "was killed, 1 not, 2 usage or catalogue error.");
    // No captured defaults: the man page of an installed hcts-selftest must not name the build machine's trees.
    app.add_option("--source-dir", o.source_dir,
                   "the hcts source tree (default: the one this program was built from; installed: none); mutant "
                   "entries and --check-catalogue need it");
    app.add_option("--build-dir", o.build_dir,
                   "the build tree whose ctests internal mutants run (default: the one this program was built in)");
    app.add_option("--catalogue", o.catalogue,
                   "catalogue directory (default: SOURCE/selftest/catalogue; installed: share/hcts/selftest)");
    app.add_option("--clauses", o.clauses,
                   "clause catalogue (default: SOURCE/conformance/spec/clauses.yaml; installed: share/hcts)");
    app.add_flag("--check-catalogue", o.check, "check the coverage rules and exit");
    app.add_option("--reference", o.reference, "a results.json of the reference: its PROFILE outcomes need no entry")
        ->check(CLI::ExistingFile);
    app.add_option("--only", o.only, "run only these entries (comma-separated ids)");
    app.add_option("--kind", o.kind, "run only entries of this kind")
        ->check(CLI::IsMember({"wrong", "legal", "profile", "mutant"}));
    app.add_option("--sample", o.sample, "run a random sample of N of the selected mutants")
        ->check(CLI::PositiveNumber);
    app.add_option_function<uint64_t>(
        "--seed", [&](const uint64_t &s) { o.seed = s; }, "the sample's seed (default: random, printed)");
    app.add_option("--rotate", o.rotate,
                   "CI: of the selected mutants, run those whose guard or whose clauses' cases changed since the "
                   "previous commit, and the commit's share of the rest, one of N by commit number, so any N "
                   "consecutive commits run them all (needs the source tree's git history; without it, all run)")
        ->check(CLI::Range(1, 100));
    app.add_flag("--focus", o.focus,
                 "CI: a mutant or wrong library with declared clauses runs only the cases naming them (and "
                 "may_fail, not_supported, errors); each declared kill is still proved, clauses those cases do "
                 "not judge are not looked at");
    app.add_flag("--internal", o.internal, "also run internal mutants' killed_by ctests with the mutant on");
    app.add_flag("--list", o.list, "list the selected entries and their commands; run nothing");
    app.add_option("--out", o.out,
                   "directory for each entry's results.json and logs (default: BUILD/selftest; installed: "
                   "./hcts-selftest)");
    app.add_option("--json", o.json, "where selftest.json goes (default: OUT/selftest.json)");
    app.add_option("--deadline", o.deadline_s, "wall-clock deadline per entry, seconds (then TIMEOUT)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--jobs,-j", o.jobs, "entries run at once (internal mutants always one at a time)")
        ->capture_default_str()
        ->check(CLI::Range(1, 16));
    app.add_option("--repeat", o.repeat, "litmus repetitions per test")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--case-timeout", o.case_timeout_s, "the suite's deadline per case, seconds")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
}

// The data and helpers a run needs, from the source tree given or built from, else
// the installed share/ and libexec/; false (said on stderr) when one is missing.
bool find_data(Options &o)
{
    // Data and helpers: the source tree given or built from, else the installed share/ and libexec/.
    const auto find = [&o](std::string_view installed, std::string_view in_source, bool data) {
        if (!o.source_dir.empty())
            return (fs::path(o.source_dir) / in_source).string();
        const auto p = data ? hcts::locate::data(installed, in_source) : hcts::locate::helper(installed, in_source);
        return p ? p->string() : std::string();
    };
    if (o.catalogue.empty())
        o.catalogue = find("selftest", "selftest/catalogue", true);
    if (o.clauses.empty())
        o.clauses = find("clauses.yaml", "conformance/spec/clauses.yaml", true);
    o.launch = find("mpi_harness/launch", "mpi_harness/launch", false);
    o.validate = find("validate", "reports/schema/validate", false);
    o.schema = find("schema/results-v1.schema.json", "reports/schema/results-v1.schema.json", true);
    for (const auto &[what, path] : {std::pair{"the self-test catalogue", o.catalogue},
                                     {"the clause catalogue", o.clauses},
                                     {"mpi_harness/launch", o.launch},
                                     {"the results validator", o.validate},
                                     {"the results schema", o.schema}})
        if (path.empty()) {
            std::cerr << "hcts-selftest: " << what << " is not installed beside " << hcts::locate::bin_dir().string()
                      << " (share/hcts, libexec/hcts) and no source tree is known; give --source-dir\n";
            return false;
        }
    if (o.out.empty())
        o.out = o.source_dir.empty() ? "hcts-selftest" : o.build_dir + "/selftest";
    if (o.json.empty())
        o.json = o.out + "/selftest.json";
    return true;
}

// --sample: a seeded random share of the selected mutants; what was picked, and how
// to pick it again, for selftest.json (null without --sample).
nlohmann::json sample_mutants(std::vector<Entry> &selected, Options &o)
{
    nlohmann::json sampling = nullptr;
    if (o.sample > 0) {
        if (!o.seed)
            o.seed = std::random_device{}();
        std::vector<std::string> mutants;
        for (const auto &e : selected)
            if (e.kind == "mutant")
                mutants.push_back(e.id);
        std::vector<std::string> picked = mutants;
        std::mt19937_64 rng(*o.seed);
        std::shuffle(picked.begin(), picked.end(), rng);
        if (picked.size() > static_cast<std::size_t>(o.sample))
            picked.resize(static_cast<std::size_t>(o.sample));
        std::sort(picked.begin(), picked.end());
        std::erase_if(selected, [&](const Entry &e) {
            return e.kind == "mutant" && std::find(picked.begin(), picked.end(), e.id) == picked.end();
        });
        std::string again = "hcts-selftest";
        if (!o.only.empty())
            again += " --only " + o.only;
        if (!o.kind.empty())
            again += " --kind " + o.kind;
        again += " --sample " + std::to_string(o.sample) + " --seed " + std::to_string(*o.seed);
        std::cout << "hcts-selftest: sampled " << picked.size() << " of " << mutants.size() << " mutants with seed "
                  << *o.seed << ": " << joined(picked, ", ") << "\nhcts-selftest: reproduce the sample: " << again
                  << "\n";
        sampling = {
            {"size", o.sample}, {"seed", *o.seed}, {"of", mutants.size()}, {"picked", picked}, {"reproducer", again}};
    }
    return sampling;
}

// --rotate: the mutants CI runs at this commit (rotation.h); what was chosen and why
// replaces `sampling`. Without --rotate, or without a source tree, nothing changes.
void rotate_mutants(std::vector<Entry> &selected, const Options &o, nlohmann::json &sampling)
{
    if (o.rotate > 0 && !o.source_dir.empty()) {
        std::string why_not;
        const auto rotation = rotation_from_git(o.source_dir, static_cast<uint32_t>(o.rotate), why_not);
        if (!rotation) {
            std::cout << "hcts-selftest: --rotate: " << why_not << "; every selected mutant runs\n";
        } else {
            const auto guards = scan_guards(o.source_dir, {"reference_impl", "softverbs"});
            const auto read = [&o](const std::string &relative) {
                std::ifstream in(fs::path(o.source_dir) / relative);
                std::ostringstream text;
                text << in.rdbuf();
                return text.str();
            };
            nlohmann::json chosen = nlohmann::json::array();
            size_t mutants = 0;
            std::erase_if(selected, [&](const Entry &e) {
                if (e.kind != "mutant")
                    return false;
                ++mutants;
                const std::string why = why_selected(e, *rotation, guards, read);
                if (!why.empty())
                    chosen.push_back({{"id", e.id}, {"why", why}});
                return why.empty();
            });
            std::cout << "hcts-selftest: rotation: commit " << rotation->commit_number << ", share "
                      << rotation->commit_number % rotation->shares + 1 << " of " << rotation->shares
                      << ", changes since " << rotation->since << ": " << chosen.size() << " of " << mutants
                      << " mutants run\n";
            for (const auto &c : chosen)
                std::cout << "hcts-selftest:   " << c["id"].get<std::string>() << ": " << c["why"].get<std::string>()
                          << "\n";
            sampling = {{"rotation",
                         {{"commit_number", rotation->commit_number},
                          {"shares", rotation->shares},
                          {"since", rotation->since},
                          {"of", mutants},
                          {"chosen", chosen}}}};
        }
    }
}

std::vector<Executed> run_entries(const std::vector<Entry> &selected, const Options &o)
{
    const auto total = selected.size();
    // Entries run --jobs at a time: a run mostly waits (timeouts, quiet notifies), so
    // two at once nearly halve the catalogue's time on two cores. An entry marked
    // `alone` waits until no other runs and runs by itself. Each line is printed
    // when its entry ends; the summary below keeps the catalogue's order.
    std::vector<Executed> done(total);
    {
        std::mutex print;
        std::shared_mutex beside; // shared: an ordinary entry runs; exclusive: an `alone` one
        std::atomic<std::size_t> next{0};
        const auto worker = [&] {
            for (std::size_t k; (k = next++) < total;) {
                if (selected[k].alone) {
                    const std::unique_lock by_itself(beside);
                    done[k] = execute(selected[k], o);
                } else {
                    const std::shared_lock with_others(beside);
                    done[k] = execute(selected[k], o);
                }
                const std::lock_guard lock(print);
                std::cout << "[" << k + 1 << "/" << total << "] " << selected[k].id << " (" << selected[k].kind
                          << ") ... " << done[k].j.verdict << " (" << format_s(done[k].seconds) << ")\n";
                for (const auto &p : done[k].j.problems)
                    std::cout << "      " << p << "\n";
                std::cout << std::flush;
            }
        };
        const auto jobs = std::min<std::size_t>(static_cast<std::size_t>(o.internal ? 1 : o.jobs), total);
        std::vector<std::jthread> pool;
        for (std::size_t w = 1; w < jobs; ++w)
            pool.emplace_back(worker);
        worker();
    }
    return done;
}

// One entry of selftest.json: what was expected, what ran, what was seen.
nlohmann::json entry_json(const Entry &e, const Executed &x)
{
    const auto &[dir, cmd, run, j, seconds, internal] = x;
    const std::string status = run.status == RunOutcome::Status::Timeout  ? "timeout"
                               : run.status == RunOutcome::Status::NotRun ? "not-run"
                               : run.results                              ? "ran"
                                                                          : "no-results";
    nlohmann::json expected = {{"gate", e.kind == "legal" ? "pass" : (e.kind == "profile" ? "any" : "fail")},
                               {"gate_mode", e.kind == "legal" ? legal_gate(e) : e.gate}};
    if (e.fails)
        expected["fails"] = *e.fails;
    if (e.strict_fails)
        expected["strict_fails"] = *e.strict_fails;
    if (e.profile)
        expected["profile"] = {{"clause", e.profile->clause}, {"outcome", e.profile->outcome}};
    if (e.not_supported_all)
        expected["not_supported"] = "all";
    else if (!e.not_supported.empty())
        expected["not_supported"] = e.not_supported;
    if (!e.not_supported_ok.empty())
        expected["not_supported_ok"] = e.not_supported_ok;
    nlohmann::json entry = {
        {"id", e.id},
        {"kind", e.kind},
        {"area", e.area},
        {"what", e.what},
        {"defined_at", e.file},
        {"iut", e.iut},
        {"np", e.np},
        {"env", e.env},
        {"expected", expected},
        {"status", status},
        {"exit_code", run.status == RunOutcome::Status::Finished ? nlohmann::json(run.exit_code) : nullptr},
        {"observed",
         {{"gate", j.gate.empty() ? nlohmann::json(nullptr) : nlohmann::json(j.gate)},
          {"strict_gate", j.strict_gate.empty() ? nlohmann::json(nullptr) : nlohmann::json(j.strict_gate)},
          {"verdicts", j.verdicts}}},
        {"verdict", j.verdict},
        {"killed", j.killed ? nlohmann::json(*j.killed) : nullptr},
        {"killed_by", j.killed_by},
        {"ok", j.ok},
        {"problems", j.problems},
        {"seconds", seconds},
        {"results", run.results ? nlohmann::json(dir + "/results.json") : nullptr},
        {"reproducer", cmd.argv.empty() ? nlohmann::json(nullptr) : nlohmann::json(cmd.text())},
    };
    if (e.kind == "mutant")
        entry["observable"] = e.observable;
    return entry;
}

// One row of the kill matrix. outcome: KILLED, SURVIVED, TIMEOUT, ERROR (no results), NOT RUN.
struct Row {
    std::string mutant, outcome;
    std::vector<std::string> killed_by;
};

// What the run of the selected entries adds up to.
struct Tally {
    nlohmann::json entries = nlohmann::json::array(); // selftest.json's, in the catalogue's order
    std::vector<std::string> failed;                  // "id: problem" of each expectation that did not hold
    std::vector<Row> matrix;
    std::set<std::string> columns; // every clause (or ctest) that killed a mutant
    std::size_t api_run = 0, api_killed = 0;
};

Tally tally(const std::vector<Entry> &selected, const std::vector<Executed> &done, const Options &o)
{
    Tally t;
    auto &[entries, failed, matrix, columns, api_run, api_killed] = t;
    for (std::size_t k = 0; k < selected.size(); ++k) {
        const auto &e = selected[k];
        const auto &[dir, cmd, run, j, seconds, internal] = done[k];
        if (!j.ok)
            for (const auto &p : j.problems)
                failed.push_back(e.id + ": " + p);
        if (e.kind == "mutant" && !internal) {
            ++api_run;
            api_killed += j.killed.value_or(false);
        }
        if (e.kind == "mutant" && (!internal || o.internal)) {
            const bool killed = j.killed.value_or(false);
            const std::string outcome = killed                                      ? "KILLED"
                                        : run.status == RunOutcome::Status::Timeout ? "TIMEOUT"
                                        : run.status == RunOutcome::Status::NotRun  ? "NOT RUN"
                                        : !run.results && !internal                 ? "ERROR"
                                                                                    : "SURVIVED";
            std::vector<std::string> by;
            if (killed)
                for (const auto &id : j.killed_by)
                    by.push_back(internal ? "ctest:" + id : id); // a ctest, not a clause
            matrix.push_back({e.id, outcome, by});
        }
        entries.push_back(entry_json(e, done[k]));
    }
    for (const auto &r : matrix)
        columns.insert(r.killed_by.begin(), r.killed_by.end());
    return t;
}

// The kill matrix, the kill ratio and the expectations that did not hold.
void print_summary(const Tally &t, std::size_t total)
{
    const auto &[entries, failed, matrix, columns, api_run, api_killed] = t;
    // The kill matrix: mutants (rows) × clauses that killed any of them (columns).
    std::cout << "\nKill matrix (" << matrix.size() << " mutants × " << columns.size() << " clauses):\n";
    std::size_t width = 8;
    for (const auto &r : matrix)
        width = std::max(width, r.mutant.size());
    for (const auto &r : matrix)
        std::cout << "  " << r.mutant << std::string(width - r.mutant.size(), ' ') << "  "
                  << (r.killed_by.empty() ? r.outcome : joined(r.killed_by, " ")) << "\n";
    std::cout << "Kill ratio (API-observable mutants): " << api_killed << " / " << api_run;
    if (api_run) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.1f%%",
                      100.0 * static_cast<double>(api_killed) / static_cast<double>(api_run));
        std::cout << " = " << pct;
    }
    std::cout << "\n";
    if (failed.empty())
        std::cout << "Every expectation held (" << total << " entries).\n";
    else {
        std::cout << failed.size() << " expectation(s) did not hold:\n";
        for (const auto &f : failed)
            std::cout << "  " << f << "\n";
    }
}

} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"hcts-selftest: run the self-test catalogue (wrong libraries, legal and PROFILE variants, source "
                 "mutants) through the conformance suite and judge each against its expectation",
                 "hcts-selftest"};
    Options o;
    add_options(app, o);
    CLI11_PARSE(app, argc, argv);
    if (!find_data(o))
        return 2;

    hcts::Catalogue clauses;
    LoadedCatalogue cat;
    try {
        clauses = hcts::Catalogue::load(o.clauses);
        cat = load_catalogue(o.catalogue, clauses);
    } catch (const std::exception &e) {
        std::cerr << "hcts-selftest: " << e.what() << "\n";
        return 2;
    }
    // A mutant is a switch in the reference's source (hcts::mutant guards) whose
    // entries are checked and, when internal, run against the source and build
    // trees: an installed suite cannot run them, and says so instead of passing.
    if (o.check && o.source_dir.empty()) {
        std::cerr << "hcts-selftest: --check-catalogue scans the source tree for hcts::mutant guards, and this "
                     "installed suite has none; run it from a source build (./hcts selftest --check-catalogue) "
                     "or give --source-dir\n";
        return 2;
    }
    if (o.check) {
        try {
            return check_catalogue(cat, clauses, o);
        } catch (const std::exception &e) {
            std::cerr << "hcts-selftest: " << e.what() << "\n";
            return 2;
        }
    }

    // Selection: --only, --kind, then a sample of the mutants.
    const auto only = split(o.only);
    for (const auto &id : only)
        if (std::none_of(cat.entries.begin(), cat.entries.end(), [&](const Entry &e) { return e.id == id; })) {
            std::cerr << "hcts-selftest: --only names '" << id << "', which is no entry of " << o.catalogue << "\n";
            return 2;
        }
    std::vector<Entry> selected;
    for (const auto &e : cat.entries)
        if ((only.empty() || std::find(only.begin(), only.end(), e.id) != only.end()) &&
            (o.kind.empty() || e.kind == o.kind))
            selected.push_back(e);
    nlohmann::json sampling = sample_mutants(selected, o);
    rotate_mutants(selected, o, sampling);
    if (o.focus && !o.list) {
        std::string why_not;
        if (!focus_entries(selected, o, why_not)) {
            std::cerr << "hcts-selftest: --focus: " << why_not << "\n";
            return 2;
        }
    }
    if (selected.empty()) {
        std::cerr << "hcts-selftest: no entry selected (catalogue " << o.catalogue << ")\n";
        return 2;
    }
    if (const auto mutants =
            std::count_if(selected.begin(), selected.end(), [](const Entry &e) { return e.kind == "mutant"; });
        mutants > 0 && o.source_dir.empty()) {
        std::cerr << "hcts-selftest: " << mutants
                  << " mutant entries selected, and mutants need the source tree (its hcts::mutant guards and, "
                     "for internal ones, its ctests), which this installed suite does not have; select "
                     "--kind wrong, legal or profile (or --only those entries), or run the mutants from a source "
                     "build (./hcts selftest --kind mutant)\n";
        return 2;
    }

    std::error_code ec;
    if (!o.list)
        fs::create_directories(o.out, ec);
    if (ec) {
        std::cerr << "hcts-selftest: " << o.out << ": cannot create: " << ec.message() << "\n";
        return 2;
    }
    const std::string started = hcts::utc_now();
    const auto total = selected.size();
    if (o.list) {
        for (std::size_t k = 0; k < total; ++k) {
            const auto &e = selected[k];
            const Command cmd = command_for(e, o, fs::absolute(fs::path(o.out) / e.id).string());
            std::cout << "[" << k + 1 << "/" << total << "] " << e.id << " (" << e.kind << ", " << e.file
                      << "): " << cmd.text() << "\n";
        }
        return 0;
    }
    const std::vector<Executed> done = run_entries(selected, o);
    const Tally t = tally(selected, done, o);
    print_summary(t, total);
    const bool ok = t.failed.empty() && t.api_killed == t.api_run;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto &r : t.matrix)
        rows.push_back({{"mutant", r.mutant}, {"outcome", r.outcome}, {"killed_by", r.killed_by}});
    const nlohmann::json ratio =
        t.api_run == 0 ? nlohmann::json(nullptr) : nlohmann::json(static_cast<double>(t.api_killed) / t.api_run);
    const nlohmann::json doc = {
        {"schema", "hcts-selftest"},
        {"schema_version", 1},
        {"run",
         {{"started", started},
          {"finished", hcts::utc_now()},
          {"command", hcts::command_line(argc, argv)},
          {"suite_commit", suite_commit(o.source_dir)},
          {"catalogue", o.catalogue},
          {"out", fs::absolute(o.out).string()},
          {"deadline_s", o.deadline_s},
          {"repeat", o.repeat},
          {"sampling", sampling},
          {"selection",
           {{"only", only}, {"kind", o.kind.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.kind)}}}}},
        {"entries", t.entries},
        {"matrix", {{"clauses", t.columns}, {"rows", rows}}},
        {"kill_ratio", {{"killed", t.api_killed}, {"run", t.api_run}, {"ratio", ratio}}},
        {"failed", t.failed},
        {"ok", ok},
    };
    try {
        hcts::files::write_atomic(o.json, doc.dump(2) + "\n");
    } catch (const std::exception &e) {
        std::cerr << "hcts-selftest: " << e.what() << "\n";
        return 1;
    }
    std::cout << "hcts-selftest: wrote " << o.json << " (each entry's results.json and log under " << o.out << ")\n";
    return ok ? 0 : 1;
}
