#include "options.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "hcts/core/cli.h"
#include "sizes.h"

namespace hcts::bench {

Options parse_options(int argc, char **argv)
{
    Options o;
    CLI::App app{"hcts-bench: write-with-notify latency, bandwidth and message rate of an hcomm library through "
                 "its platform adapter, interleaved with raw verbs WRITE_WITH_IMM, MPI one-sided put + flush + "
                 "notify and memcpy. Run it under mpi_harness/launch --np 2 (./hcts bench does). Exit status: 0, "
                 "1 when a measurement failed, 2 for bad usage, 3 when a --baseline ratio is out of bounds.",
                 "hcts-bench"};
    std::string sizes, methods;
    app.add_option("--iut", o.iut, "the hcomm library (default: the reference next to this program)");
    app.add_option("--adapter", o.adapter, "its platform adapter (default: the reference adapter)");
    app.add_option("--programs", o.programs, "libhcts_programs.so (default: next to this program)");
    app.add_option("--results", o.results, "where results.json goes (default results/<run-id>/results.json)");
    app.add_option("--baseline", o.baseline,
                   "YAML ratio expectations, e.g. p1: {metric: latency, size: 8, hcomm_over: mpi_osc, max: 2.0}");
    app.add_option("--sizes", sizes, "message sizes, comma-separated (default 8,4K,64K,1M,16M; --quick 8,64K,1M)");
    app.add_option("--methods", methods,
                   "the methods to measure, comma-separated: hcomm,verbs,mpi_osc,memcpy (default all)");
    app.add_option("--iterations", o.iterations, "round trips or messages per sample, at most (default 100)")
        ->check(CLI::Range(1, 100000));
    app.add_option("--samples", o.samples, "samples per measurement: median, min, max over them (default 5)")
        ->check(CLI::Range(1, 1000));
    app.add_option("--window", o.window, "notifies in flight in the bandwidth test (default 8)")
        ->check(CLI::Range(1, 32));
    uint64_t budget_mib = 0;
    app.add_option("--budget-mib", budget_mib, "bytes per sample at most, in MiB (default 64; --quick 16)")
        ->check(CLI::Range(1, 4096));
    app.add_option("--transport", o.transport, "what carries the library's traffic, for the record (e.g. softverbs)");
    app.add_flag("--quick", o.quick, "3 samples of at most 30 iterations, sizes 8,64K,1M");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        // Before MPI starts: CLI11 prints the help, or the error and a hint.
        std::exit(app.exit(e) == 0 ? 0 : 2);
    }
    if (o.quick) {
        if (app.count("--samples") == 0)
            o.samples = 3;
        if (app.count("--iterations") == 0)
            o.iterations = 30;
        o.budget = 16 << 20;
    }
    if (budget_mib != 0)
        o.budget = budget_mib << 20;
    o.sizes = parse_sizes(!sizes.empty() ? sizes : o.quick ? "8,64K,1M" : "8,4K,64K,1M,16M");
    if (!methods.empty()) {
        o.methods.clear();
        for (size_t at = 0; at <= methods.size();) {
            const size_t comma = std::min(methods.find(',', at), methods.size());
            const std::string m = methods.substr(at, comma - at);
            if (m != "hcomm" && m != "verbs" && m != "mpi_osc" && m != "memcpy")
                throw std::invalid_argument("--methods: '" + m + "'; allowed: hcomm, verbs, mpi_osc, memcpy");
            o.methods.push_back(m);
            at = comma + 1;
        }
    }
    o.command = command_line(argc, argv);
    return o;
}

} // namespace hcts::bench
