#include "runner.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "hcts/mpi_harness.h"
#include "sizes.h"

namespace hcts::bench {

namespace {

// Large messages take fewer iterations: at most o.budget bytes per sample.
uint32_t iterations_for(const Options &o, uint64_t size)
{
    return static_cast<uint32_t>(std::clamp<uint64_t>(o.budget / size, 1, o.iterations));
}

} // namespace

std::vector<Measurement> run_all(const Options &o, std::vector<std::unique_ptr<Method>> &methods, int rank)
{
    std::vector<Measurement> out;
    std::map<std::string, std::string> broken; // method -> why
    for (const uint64_t size : o.sizes) {
        for (const Test test : {Test::Latency, Test::Bandwidth}) {
            const uint32_t n = iterations_for(o, size);
            const size_t first = out.size();
            for (const auto &m : methods) {
                Measurement x{std::string(m->name()), test, size, o.window, {}, {}};
                if (size > m->max_size())
                    x.error = "size above the method's largest message (" + size_label(m->max_size()) + ")";
                else if (broken.count(x.method) != 0)
                    x.error = "not run: " + broken[x.method];
                out.push_back(std::move(x));
            }
            for (uint32_t s = 0; s < o.samples; ++s)
                for (size_t i = 0; i < methods.size(); ++i) {
                    Measurement &x = out[first + i];
                    if (!x.error.empty())
                        continue;
                    std::string why;
                    Sample got;
                    try {
                        got = take_sample(*methods[i], test, size, n, o.window);
                    } catch (const std::exception &e) {
                        why = e.what();
                    }
                    // Every rank stops a failed method together, and says why once.
                    if (mpi::all_ranks(why.empty(), "bench sample")) {
                        x.samples.push_back(got);
                        continue;
                    }
                    x.error = why.empty() ? "failed on the other rank (its log says why)" : why;
                    broken[x.method] = x.error;
                    if (rank == 0 || !why.empty())
                        std::fprintf(stderr, "hcts-bench: rank %d: %s %s at %s: %s\n", rank, x.method.c_str(),
                                     std::string(test_name(test)).c_str(), size_label(size).c_str(), x.error.c_str());
                }
            if (rank == 0)
                std::fprintf(stderr, "hcts-bench: %s %s done (%u samples of %u %s)\n", size_label(size).c_str(),
                             std::string(test_name(test)).c_str(), o.samples, n,
                             test == Test::Latency ? "round trips" : "messages");
        }
    }
    return out;
}

} // namespace hcts::bench
