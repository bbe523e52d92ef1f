// hcts-conformance: load the IUT and the adapter, bootstrap through the IUT,
// run every case under GoogleTest and the MPI harness, and write results.json
// (rank 0). The exit status is the gate.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "case.h"
#include "catalogue_check.h"
#include "hcts/core/locate.h"
#include "hcts/core/results.h"
#include "hcts/core/settings.h"
#include "hcts/expectations.h"
#include "hcts/mpi_harness.h"
#include "hcts_conformance_resources.h"
#include "options.h"
#include "recorder.h"
#include "suite.h"
#include "summary.h"

namespace fs = std::filesystem;
using namespace hcts;

Suite &hcts::the_suite()
{
    static Suite suite;
    return suite;
}

namespace {

// Opens each case's evidence before the harness's listener sees the case and
// closes it after the harness carried it to rank 0.
class EvidenceListener : public testing::EmptyTestEventListener {
    void OnTestStart(const testing::TestInfo &t) override
    {
        Suite &s = the_suite();
        s.spec = find_case(std::string(t.test_suite_name()) + "." + t.name());
        if (s.spec == nullptr)
            return;
        s.evidence.emplace(s.spec->clauses, [](std::string_view clause, std::string_view kind, const std::string &why) {
            ADD_FAILURE() << "[hcts " << kind << " " << clause << "] " << why;
        });
    }
    void OnTestEnd(const testing::TestInfo &) override
    {
        Suite &s = the_suite();
        s.evidence.reset();
        s.spec = nullptr;
    }
};

// This rank's evidence for the harness to carry to rank 0. A GoogleTest failure
// that no check recorded (an exception, an ASSERT) means the case broke.
std::string case_payload(const testing::TestInfo &info)
{
    Suite &s = the_suite();
    if (!s.evidence)
        return {};
    const testing::TestResult &r = *info.result();
    for (int i = 0; i < r.total_part_count(); ++i) {
        const auto &part = r.GetTestPartResult(i);
        const std::string summary = part.summary();
        // Failures a check recorded carry its tag (GoogleTest puts "Failed" before it).
        const bool attributed =
            summary.find("[hcts FAIL ") != std::string::npos || summary.find("[hcts ERROR ") != std::string::npos;
        if (part.failed() && !attributed) {
            s.evidence->harness_failure(summary.substr(0, summary.find('\n')));
            break;
        }
    }
    return s.evidence->to_json().dump();
}

RunInfo run_info(const Options &o)
{
    RunInfo run;
    run.kind = "conformance";
    run.command = o.command;
    run.mode = o.mode;
    run.seed = o.seed;
    run.gate = o.gate;
    run.transport = o.transport.empty() ? "unspecified" : o.transport;
    run.configuration = o.configuration;
    for (const auto &a : o.passthrough)
        if (a.rfind("--gtest_filter=", 0) == 0)
            run.filter = a.substr(std::string_view("--gtest_filter=").size());
    if (const auto commit = settings::raw_any(suite_settings::suite_commit))
        run.suite_commit = *commit;
    return run;
}

// The run as the user gave it (./hcts passes its words as --run-word), else as
// this program was started; with the seed and repetitions this run drew.
RunShape run_shape(const Options &o, int ranks)
{
    RunShape shape;
    shape.configuration = o.configuration;
    RunSpec &run = shape.run;
    try {
        run = parse_run_spec(o.run_words, invoked_command());
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "hcts-conformance: reproducers name this run's own options: --run-word: %s\n", e.what());
        run = RunSpec{};
        run.command = invoked_command();
    }
    if (o.run_words.empty()) {
        run.iut = o.iut == locate::library("libhcomm.so").string() ? "" : o.iut;
        run.adapter = o.adapter == locate::library("libhcts_adapter_ref.so").string() ? "" : o.adapter;
        run.ranks = static_cast<uint32_t>(ranks);
        run.gate = o.gate == "strict" ? RunGate::Strict : RunGate::Default;
        run.no_peek = o.no_peek;
    }
    run.repeat = o.repeat;
    run.seed = o.seed;
    // The adversarial configuration is adversarial by its name; plain and segment
    // were only when the whole run was (--adversarial).
    run.adversarial = run.adversarial || (o.mode == "adversarial" && o.configuration != "adversarial");
    return shape;
}
} // namespace

int main(int argc, char **argv)
{
    Suite &s = the_suite();
    Options &o = s.options;
    try {
        o = parse_options(argc, argv);
    } catch (const std::exception &e) {
        return report_usage_error(e);
    }
    if (!o.summary.empty())
        return print_summary(o.summary);
    locate::default_to_reference(o.iut, o.adapter, o.programs);
    std::unique_ptr<expectations::ExpectationSet> waivers;
    try {
        s.catalogue = o.clauses.empty() ? Catalogue::parse(conformance::clauses_yaml(), "conformance/spec/clauses.yaml")
                                        : Catalogue::load(o.clauses);
        if (!o.expectations.empty())
            waivers =
                std::make_unique<expectations::ExpectationSet>(expectations::ExpectationSet::load(o.expectations));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-conformance: %s\n", e.what());
        return 2;
    }
    std::vector<char *> args;
    for (auto &a : o.passthrough)
        args.push_back(a.data());
    args.push_back(nullptr);
    int pargc = static_cast<int>(args.size()) - 1;
    char **pargv = args.data();
    if (o.list_cases) {
        for (const auto &c : case_registry()) {
            std::string ids;
            for (const auto &id : c.clauses)
                ids += (ids.empty() ? "" : ",") + id;
            std::printf("%s %s\n", c.name.c_str(), ids.c_str());
        }
        return 0;
    }
    if (o.check_catalogue) {
        testing::InitGoogleTest(&pargc, pargv);
        return check_catalogue(s.catalogue, true) == 0 ? 0 : 1;
    }
    for (const auto &a : o.passthrough)
        if (a == "--gtest_list_tests") {
            testing::InitGoogleTest(&pargc, pargv);
            return RUN_ALL_TESTS();
        }

    // MPI, the per-case watchdog, verdict agreement and crash handling: mpi_harness/.
    std::unique_ptr<ResultsWriter> results;
    std::unique_ptr<Recorder> recorder;
    mpi::Options hopts;
    hopts.case_deadline = std::chrono::seconds(o.case_timeout_s);
    if (!settings::present(suite_settings::mpi_log_dir))
        hopts.log_dir =
            ((o.results.empty() ? fs::path("results") : fs::path(o.results).parent_path()) / "mpi-logs").string();
    hopts.case_payload = case_payload;
    hopts.on_case = [&recorder](const mpi::CaseResult &r) {
        if (recorder)
            recorder->record(r);
    };
    hopts.on_abort = [&results](std::string_view reason) {
        if (results) {
            results->set_error(std::string(reason));
            results->finish(RunStatus::Aborted);
        }
    };
    mpi::Harness harness(pargc, pargv, std::move(hopts));
    const int rank = harness.rank();
    // One run id and one seed for every rank, chosen by rank 0.
    char id[64] = {};
    if (rank == 0) {
        std::snprintf(id, sizeof id, "%s", make_run_id().c_str());
        if (!o.seed_given)
            o.seed = std::random_device{}() ^ static_cast<uint64_t>(std::time(nullptr));
    }
    mpi::broadcast(std::as_writable_bytes(std::span(id)), 0, "the run id");
    mpi::broadcast(std::as_writable_bytes(std::span(&o.seed, 1)), 0, "the seed");
    if (o.results.empty())
        o.results = "results/" + std::string(id) + "/results.json";
    if (rank == 0)
        std::printf("hcts: run %s, seed %llu (rerun with --seed %llu)\n", id, static_cast<unsigned long long>(o.seed),
                    static_cast<unsigned long long>(o.seed));

    // Set-up may fail on one rank only; the ranks agree before any case runs, so
    // no rank waits in a collective the others never reach.
    std::string setup_error;
    try {
        if (rank == 0) {
            RunInfo run = run_info(o);
            run.id = id;
            results = std::make_unique<ResultsWriter>(o.results, run, &s.catalogue, waivers.get());
        }
        s.iut = Library::open(o.iut);
        if (results)
            results->set_iut(*s.iut, std::nullopt);
        s.adapter = Adapter::open(o.adapter, *s.iut,
                                  {o.programs, static_cast<uint32_t>(rank), static_cast<uint32_t>(harness.size())});
        if (results)
            results->set_iut(*s.iut, s.adapter->iut_version());
        s.world = World::bootstrap(*s.iut, *s.adapter, rank, harness.size(), !o.no_peek);
    } catch (const std::exception &e) {
        setup_error = e.what();
        std::fprintf(stderr, "hcts-conformance[rank %d]: set-up failed: %s\n", rank, e.what());
    }
    if (!mpi::all_ranks(setup_error.empty(), "set-up")) {
        if (results) {
            results->set_error(setup_error.empty() ? "set-up failed on another rank" : setup_error);
            results->finish(RunStatus::Aborted);
            std::printf("hcts: run aborted in set-up; results in %s\n", results->path().c_str());
        }
        return 2;
    }
    // The segment size the transfers straddle: the user's, or the adapter's
    // declaration for this rank's channel (0: unknown); rank 0's for every rank.
    if (o.segment_size == "auto")
        s.segment_size = s.adapter->segment_size(s.world->comm, s.world->channel_to(s.world->peer()));
    else if (!o.segment_size.empty())
        s.segment_size = std::stoull(o.segment_size);
    mpi::broadcast(std::as_writable_bytes(std::span(&s.segment_size, 1)), 0, "the segment size");
    int status = 0;
    try {
        if (results) {
            const World &w = *s.world;
            if (!o.segment_size.empty())
                results->set_segment_size(s.segment_size);
            results->set_adapter(*s.adapter);
            results->set_environment(s.adapter->product(), w.size, mpi::hosts());
            if (!s.iut->missing().empty()) {
                std::printf("hcts: the IUT lacks %zu hcomm symbols:", s.iut->missing().size());
                for (const auto &m : s.iut->missing())
                    std::printf(" %s", m.c_str());
                std::printf("\n");
            }
            std::printf("hcts: IUT %s, adapter %s (ABI %u), product %s, %d ranks, timeout unit %s\n", o.iut.c_str(),
                        s.adapter->name().c_str(), s.adapter->abi_version(), s.adapter->product().c_str(), w.size,
                        !w.unit.seconds   ? "unknown"
                        : *w.unit.seconds ? "s"
                                          : "ms");
            recorder = std::make_unique<Recorder>(*results, s.catalogue, run_shape(o, w.size));
        }
        testing::UnitTest::GetInstance()->listeners().Append(new EvidenceListener());
        (void)harness.run(); // the exit status is the gate of results.json, below
        if (results) {
            results->finish(RunStatus::Complete);
            status = outcome_status(results->doc());
            print_outcome(results->doc(), o.configuration, results->path());
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-conformance[rank %d]: %s\n", rank, e.what());
        if (results) {
            results->set_error(e.what());
            results->finish(RunStatus::Aborted);
        }
        status = 2;
    }
    return static_cast<int>(mpi::max_over_ranks(status, "the exit status"));
}
