// hcts-conformance: load the IUT and the adapter, bootstrap through the IUT,
// run every case under GoogleTest and write results.json (rank 0). The exit
// status is the gate: 0 only when every MUST clause passed (or was waived).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <set>

#include "adapter.h"
#include "case.h"
#include "iut.h"
#include "listener.h"
#include "hcts/mpi_harness.h"
#include "mpi_glue.h"
#include "options.h"
#include "results.h"
#include "summary.h"
#include "world.h"

namespace fs = std::filesystem;
using namespace hcts;

namespace {

fs::path prefix()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path(".") : exe.parent_path().parent_path();
}

std::string make_run_id()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    std::random_device rd;
    char tail[8];
    std::snprintf(tail, sizeof tail, "-%04x", rd() & 0xffffU);
    return std::string(buf) + tail;
}

// Every case names at least one clause and only known ones; every clause has a case.
int check_catalogue(bool print_ok)
{
    const Catalogue &cat = options().catalogue;
    int problems = 0;
    std::set<std::string> covered;
    for (const auto &c : case_registry()) {
        if (c.clauses.empty()) {
            std::fprintf(stderr, "hcts: case %s names no clause\n", c.name.c_str());
            ++problems;
        }
        for (const auto &id : c.clauses) {
            if (cat.find(id) == nullptr) {
                std::fprintf(stderr, "hcts: case %s names clause %s, which clauses.yaml does not define\n",
                             c.name.c_str(), id.c_str());
                ++problems;
            }
            covered.insert(id);
        }
    }
    for (const auto &cl : cat.clauses())
        if (covered.count(cl.id) == 0) {
            std::fprintf(stderr, "hcts: clause %s (%s) has no case\n", cl.id.c_str(), cl.title.c_str());
            ++problems;
        }
    // Every GoogleTest test must be a declared case, or its verdict maps to no clause.
    const auto *ut = testing::UnitTest::GetInstance();
    for (int s = 0; s < ut->total_test_suite_count(); ++s) {
        const auto *suite = ut->GetTestSuite(s);
        for (int t = 0; t < suite->total_test_count(); ++t) {
            const std::string name = std::string(suite->name()) + "." + suite->GetTestInfo(t)->name();
            if (find_case(name) == nullptr) {
                std::fprintf(stderr, "hcts: test %s is not declared with HCTS_CASE\n", name.c_str());
                ++problems;
            }
        }
    }
    if (problems == 0 && print_ok)
        std::printf("hcts: catalogue consistent: %zu clauses, %zu cases, every clause covered\n", cat.clauses().size(),
                    case_registry().size());
    return problems == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--summary") == 0)
        return print_summary(argv[2]);
    bool check_only = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--check-catalogue") == 0) {
            check_only = true;
            argv[i] = const_cast<char *>("--gtest_list_tests");
        } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("%s", usage_text().c_str());
        }
    Options &o = options();
    try {
        parse_options(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-conformance: %s\n%s", e.what(), usage_text().c_str());
        return 2;
    }
    const fs::path pre = prefix();
    if (o.clauses.empty())
        o.clauses = HCTS_DEFAULT_CLAUSES;
    try {
        o.catalogue = Catalogue::load(o.clauses);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-conformance: %s\n", e.what());
        return 2;
    }
    testing::InitGoogleTest(&argc, argv);
    if (check_only)
        return check_catalogue(true);
    if (testing::GTEST_FLAG(list_tests)) {
        return RUN_ALL_TESTS();
    }
    if (check_catalogue(false) != 0)
        return 2;

    // MPI, the per-case watchdog, verdict agreement and crash handling: mpi_harness/.
    std::unique_ptr<Results> results;
    hcts::mpi::Options hopts;
    hopts.case_deadline = std::chrono::seconds(o.case_timeout_s);
    // Per-rank logs and watchdog diagnostics beside results.json.
    if (std::getenv("HCTS_MPI_LOG_DIR") == nullptr)
        hopts.log_dir = ((o.results.empty() ? fs::path("results") : fs::path(o.results).parent_path()) / "mpi-logs")
                            .string();
    hopts.on_case = [&results](const hcts::mpi::CaseResult &r) {
        if (!results || (r.verdict != hcts::mpi::Verdict::Timeout && r.verdict != hcts::mpi::Verdict::Crash))
            return;
        const CaseInfo *info = find_case(r.name);
        if (info == nullptr)
            return;
        std::string why = r.verdict == hcts::mpi::Verdict::Timeout ? "no verdict before the case deadline (watchdog)"
                                                                  : "the job was terminated during the case";
        if (!r.silent_ranks.empty()) {
            why += "; silent ranks:";
            for (int s : r.silent_ranks)
                why += " " + std::to_string(s);
        }
        results->add_broken_case(*info, r.verdict == hcts::mpi::Verdict::Timeout ? Verdict::Timeout : Verdict::Crash,
                                 why, r.duration_ms);
    };
    hopts.on_abort = [&results](std::string_view reason) {
        if (results) {
            results->doc()["run"]["error"] = std::string(reason);
            results->finish("aborted");
        }
    };
    hcts::mpi::Harness harness(argc, argv, std::move(hopts));
    const int rank = ranks::rank();
    if (o.iut.empty())
        o.iut = (pre / "lib" / "libhcomm.so").string();
    if (o.adapter.empty())
        o.adapter = (pre / "lib" / "libhcts_adapter_ref.so").string();
    if (o.programs.empty())
        o.programs = (pre / "lib" / "libhcts_programs.so").string();
    char id[64] = {};
    if (rank == 0) {
        const std::string rid = make_run_id();
        std::snprintf(id, sizeof id, "%s", rid.c_str());
        if (!o.seed_given)
            o.seed = std::random_device{}() ^ static_cast<uint64_t>(std::time(nullptr));
    }
    ranks::broadcast(id, sizeof id);
    ranks::broadcast(&o.seed, sizeof o.seed);
    o.run_id = id;
    if (o.results.empty())
        o.results = "results/" + o.run_id + "/results.json";
    if (rank == 0)
        std::printf("hcts: run %s, seed %llu (rerun with --seed %llu)\n", o.run_id.c_str(),
                    static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(o.seed));

    int status = 0;
    std::string setup_error;
    // Set-up may fail on one rank only; the ranks agree before any case runs, so
    // no rank waits in a collective the others never reach.
    try {
        Iut::load(o.iut);
        if (rank == 0) {
            results = std::make_unique<Results>(o.results, o.catalogue);
            if (!Iut::get().missing().empty()) {
                std::printf("hcts: the IUT lacks %zu hcomm symbols:", Iut::get().missing().size());
                for (const auto &m : Iut::get().missing())
                    std::printf(" %s", m.c_str());
                std::printf("\n");
            }
        }
        Adapter::load(o.adapter, o.programs, static_cast<uint32_t>(rank), static_cast<uint32_t>(ranks::size()));
        World::init();
    } catch (const std::exception &e) {
        setup_error = e.what();
        std::fprintf(stderr, "hcts-conformance[rank %d]: set-up failed: %s\n", rank, e.what());
    }
    if (!ranks::all(setup_error.empty())) {
        if (results) {
            results->doc()["run"]["error"] = setup_error.empty() ? "set-up failed on another rank" : setup_error;
            results->finish("aborted");
            std::printf("hcts: run aborted in set-up; results in %s\n", results->path().c_str());
        }
        return 2;
    }
    const auto hosts = ranks::hostnames();
    try {
        const Adapter &ad = Adapter::get();
        const World &w = World::get();
        if (results) {
            auto &d = results->doc();
            d["adapter"] = {{"path", o.adapter},
                            {"sha256", ad.sha256()},
                            {"name", ad.name()},
                            {"abi_version", ad.abi().abi_version}};
            d["environment"]["product"] = ad.product();
            d["environment"]["ranks"] = w.size;
            d["environment"]["hosts"] = hosts;
            results->write();
            std::printf("hcts: IUT %s, adapter %s, product %s, %d ranks, timeout unit %s\n", o.iut.c_str(),
                        ad.name().c_str(), ad.product().c_str(), w.size, w.timeout_in_seconds ? "s" : "ms");
        }
        install_listener(results.get());
        const int agreed = harness.run();
        (void)agreed; // the exit status is the gate of results.json, below
        ranks::barrier();
        if (results) {
            results->finish("complete");
            status = results->gate_passed() ? 0 : 1;
            std::printf("hcts: gate %s; results in %s\n", status == 0 ? "pass" : "FAIL", results->path().c_str());
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-conformance[rank %d]: %s\n", rank, e.what());
        if (results) {
            results->doc()["run"]["error"] = e.what();
            results->finish("aborted");
        }
        status = 2;
    }
    return ranks::max(status);
}
