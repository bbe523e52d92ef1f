// hcts-bench: measures an hcomm library through its platform adapter, the way
// the conformance suite drives it (core's loaders, conformance's World and
// Device, the device program hcts_prog_ops), beside raw verbs, MPI one-sided
// and memcpy in the same run. A benchmark, not a test: its only verdict is a
// --baseline of ratios. Run under mpi_harness/launch --np 2 (./hcts bench).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "baseline.h"
#include "hcts/core/adapter.h"
#include "hcts/core/library.h"
#include "hcts/core/locate.h"
#include "hcts/core/results.h"
#include "hcts/core/settings.h"
#include "hcts/mpi_harness.h"
#include "method.h"
#include "options.h"
#include "runner.h"
#include "section.h"
#include "suite.h"
#include "world.h"

namespace fs = std::filesystem;
using namespace hcts;
using namespace hcts::bench;

// World and Device come with conformance's case machinery, which reaches the
// running suite through this; the bench runs no case, so its suite stays empty.
Suite &hcts::the_suite()
{
    static Suite suite;
    return suite;
}

namespace {

constexpr int kExitFailed = 1, kExitUsage = 2, kExitBaseline = 3;

// The other methods need the largest size requested (and not more than hcomm can move).
std::vector<std::unique_ptr<Method>> make_methods(const bench::Options &o, const World &world, int rank,
                                                  std::vector<std::string> &errors)
{
    uint64_t max = 0;
    for (uint64_t s : o.sizes)
        max = std::max(max, s);
    std::vector<std::unique_ptr<Method>> out;
    for (const std::string &name : o.methods) {
        std::unique_ptr<Method> m;
        std::string why;
        try {
            if (name == "hcomm")
                m = make_hcomm(world);
            else if (name == "verbs")
                m = make_verbs(max);
            else if (name == "mpi_osc")
                m = make_mpi_osc(max);
            else
                m = make_memcpy(max);
        } catch (const std::exception &e) {
            why = e.what();
        }
        if (mpi::all_ranks(m != nullptr, "method set-up")) {
            out.push_back(std::move(m));
            continue;
        }
        errors.push_back(name + ": " + (why.empty() ? "set-up failed on the other rank" : why));
        if (!why.empty())
            std::fprintf(stderr, "hcts-bench: rank %d: %s is not measured: %s\n", rank, name.c_str(), why.c_str());
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    bench::Options o;
    try {
        o = bench::parse_options(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-bench: %s\n", e.what());
        return kExitUsage;
    }
    locate::default_to_reference(o.iut, o.adapter, o.programs);
    std::vector<Expectation> expectations;
    try {
        if (!o.baseline.empty())
            expectations = load_baseline(o.baseline);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-bench: %s\n", e.what());
        return kExitUsage;
    }

    mpi::Options hopts;
    if (!settings::present(suite_settings::mpi_log_dir))
        hopts.log_dir =
            ((o.results.empty() ? fs::path("results") : fs::path(o.results).parent_path()) / "mpi-logs").string();
    mpi::Harness harness(argc, argv, std::move(hopts));
    const int rank = harness.rank();
    if (harness.size() != 2) {
        if (rank == 0)
            std::fprintf(stderr, "hcts-bench: needs exactly 2 ranks (mpi_harness/launch --np 2), got %d\n",
                         harness.size());
        return kExitUsage;
    }
    char id[64] = {};
    if (rank == 0)
        std::snprintf(id, sizeof id, "%s", make_run_id().c_str());
    mpi::broadcast(std::as_writable_bytes(std::span(id)), 0, "the run id");
    if (o.results.empty())
        o.results = "results/" + std::string(id) + "/results.json";

    Load load;
    load.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    read_loadavg(load.before);
    std::unique_ptr<ResultsWriter> results;
    std::unique_ptr<Library> iut;
    std::unique_ptr<Adapter> adapter;
    std::unique_ptr<World> world;
    std::string setup_error;
    try {
        if (rank == 0) {
            RunInfo run;
            run.kind = "bench";
            run.id = id;
            run.command = o.command;
            run.transport = o.transport.empty() ? "unspecified" : o.transport;
            if (const auto commit = settings::raw_any(suite_settings::suite_commit))
                run.suite_commit = *commit;
            results = std::make_unique<ResultsWriter>(o.results, run, nullptr, nullptr);
        }
        iut = Library::open(o.iut);
        adapter = Adapter::open(o.adapter, *iut, {o.programs, static_cast<uint32_t>(rank), 2});
        if (results) {
            results->set_iut(*iut, adapter->iut_version());
            results->set_adapter(*adapter);
            results->set_environment(adapter->product(), 2, mpi::hosts());
        }
    } catch (const std::exception &e) {
        setup_error = e.what();
    }
    // Set-up may fail on one rank only: agree before any collective of the IUT.
    if (mpi::all_ranks(setup_error.empty(), "library and adapter loaded")) {
        try {
            world = World::bootstrap(*iut, *adapter, rank, 2, false);
        } catch (const std::exception &e) {
            setup_error = e.what();
        }
    }
    if (!mpi::all_ranks(setup_error.empty(), "world bootstrapped")) {
        if (!setup_error.empty())
            std::fprintf(stderr, "hcts-bench: rank %d: %s\n", rank, setup_error.c_str());
        if (results) {
            results->set_error(setup_error.empty() ? "set-up failed on another rank" : setup_error);
            results->finish(RunStatus::Aborted);
        }
        return kExitFailed;
    }

    std::vector<std::string> errors;
    auto methods = make_methods(o, *world, rank, errors);
    const std::vector<Measurement> measured = run_all(o, methods, rank);
    read_loadavg(load.after);

    int status = 0;
    if (rank == 0) {
        print_table(measured);
        std::vector<Check> checks;
        if (!o.baseline.empty()) {
            checks = check_baseline(expectations, measured);
            std::printf("baseline %s:\n", o.baseline.c_str());
            for (const Check &c : checks) {
                std::printf("  %s\n", c.line().c_str());
                if (!c.held)
                    status = kExitBaseline;
            }
        }
        nlohmann::json bench = section(o, methods, measured, load, o.baseline.empty() ? nullptr : &checks);
        for (const std::string &e : errors)
            bench["errors"].push_back(e);
        bool hcomm_ok = std::find(o.methods.begin(), o.methods.end(), "hcomm") == o.methods.end();
        for (const Measurement &m : measured)
            hcomm_ok = hcomm_ok || (m.method == "hcomm" && m.error.empty() && !m.samples.empty());
        if (!hcomm_ok && status == 0)
            status = kExitFailed; // nothing of the library under test was measured
        results->set_bench(std::move(bench));
        results->finish(RunStatus::Complete);
        std::printf("hcts-bench: results.json: %s\n", o.results.c_str());
    }
    int64_t agreed = mpi::max_over_ranks(status, "the exit status");
    return static_cast<int>(agreed);
}
