#include "options.h"

#include "hcts/core/cli.h"

#include <iostream>

namespace hcts {

namespace {

void describe(CLI::App &app, Options &o)
{
    app.name("hcts-conformance"); // the usage line and the man page (help2man) name the program
    app.description("hcts-conformance: judge an hcomm library clause by clause (run under mpirun -np 2 or more)");
    app.footer("GoogleTest's flags (--gtest_filter=..., --gtest_list_tests, ...) work as usual.\n"
               "Exit status: 0 the gate passed, 1 it failed, 2 bad usage or set-up, 124 a case deadline expired.");
    app.allow_extras();
    app.add_option("--iut", o.iut, "library under test (default: <prefix>/lib/libhcomm.so, the reference)");
    app.add_option("--adapter", o.adapter, "platform adapter (default: <prefix>/lib/libhcts_adapter_ref.so)");
    app.add_option("--programs", o.programs,
                   "host build of the device programs (default: <prefix>/lib/libhcts_programs.so)");
    app.add_option("--results", o.results, "results.json to write (default: results/<run-id>/results.json)");
    app.add_option("--expectations", o.expectations, "expectations file waiving known failures of this IUT")
        ->check(CLI::ExistingFile);
    app.add_option("--clauses", o.clauses, "clause catalogue (default: the one built in)")->check(CLI::ExistingFile);
    app.add_option_function<uint64_t>(
        "--seed", [&o](uint64_t v) { o.seed = v, o.seed_given = true; },
        "seed of the randomised cases (default: from the clock, printed)");
    app.add_option("--repeat", o.repeat, "litmus repetitions per test")
        ->check(CLI::Range(1U, 1000000U))
        ->capture_default_str();
    app.add_option("--case-timeout", o.case_timeout_s, "watchdog deadline per case, seconds")
        ->check(CLI::Range(1U, 86400U))
        ->capture_default_str();
    app.add_option("--gate", o.gate, "which clauses gate: default (MUST) or strict (MUST and STRICT)")
        ->check(CLI::IsMember({"default", "strict"}))
        ->capture_default_str();
    app.add_option("--mode", o.mode, "how the transport runs, as recorded and reproduced: plain or adversarial")
        ->check(CLI::IsMember({"plain", "adversarial"}))
        ->capture_default_str();
    app.add_option("--transport", o.transport,
                   "what carries the IUT's traffic, recorded in results.json (e.g. softverbs)");
    app.add_option("--summary", o.summary, "print the clause summary of a results.json; exit status = its gate")
        ->check(CLI::ExistingFile);
    app.add_flag("--no-peek", o.no_peek,
                 "do not use the adapter's peek_notify: prove quiet notifies with marker writes, as on an adapter "
                 "without it");
    app.add_option("--configuration", o.configuration,
                   "name of the configuration this run judges, recorded in results.json (./hcts run merges several)")
        ->capture_default_str();
    app.add_option("--segment-size", o.segment_size,
                   "transfers straddle this segment size: bytes, or 'auto' for the adapter's segment_size "
                   "(default: none)")
        ->check([](const std::string &v) {
            return v == "auto" || (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos &&
                                   v.size() < 19 && std::stoull(v) > 0)
                       ? std::string()
                       : "must be a positive byte count or 'auto', got '" + v + "'";
        });
    app.add_flag("--big", o.big,
                 "also run the transfer above 4 GiB (Big.*; needs a communication buffer above 4 GiB, e.g. "
                 "HCCL_BUFFSIZE=2100 with the reference, ~8.5 GiB of memory for 2 ranks)")
        ->envname("HCTS_BIG");
    app.add_option("--run-word", o.run_words,
                   "one word the user gave `hcts run` (repeated, in order; pass as --run-word=WORD): reproducers "
                   "rerun the run as the user gave it, narrowed to one case and configuration")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_flag("--check-catalogue", o.check_catalogue,
                 "check that every clause has a case and every case names known clauses and declares its needs");
    app.add_flag("--list-cases", o.list_cases,
                 "print each case and the clauses it names (\"Suite.Case CLAUSE,CLAUSE\", one per line) and exit; "
                 "hcts-selftest --focus builds its filters from it");
}

} // namespace

Options parse_options(int argc, char **argv)
{
    Options o;
    CLI::App app;
    describe(app, o);
    app.parse(argc, argv);
    o.passthrough.emplace_back(argc > 0 ? argv[0] : "hcts-conformance");
    for (const auto &extra : app.remaining()) {
        if (extra.rfind("--gtest_", 0) != 0)
            throw CLI::ExtrasError({extra});
        o.passthrough.push_back(extra);
    }
    o.command = command_line(argc, argv);
    return o;
}

int report_usage_error(const std::exception &e)
{
    Options scratch;
    CLI::App app;
    describe(app, scratch);
    // CLI11 prints the help, or the error and a hint; any usage error is status 2.
    if (const auto *pe = dynamic_cast<const CLI::ParseError *>(&e))
        return app.exit(*pe) == 0 ? 0 : 2;
    std::cerr << "hcts-conformance: " << e.what() << "\n";
    return 2;
}

} // namespace hcts
