// Litmus L1 (message passing), repeated: the receiver waits, then reads on its
// own stream at once; any word that is not the new payload is a forbidden outcome.
#include <random>

#include "harness.h"
#include "mpi_glue.h"
#include "options.h"

namespace hcts {

HCTS_CASE(Litmus, L1_MessagePassing, "WWN.VIS.1")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    Case &c = Case::current();
    const uint64_t seed = options().seed;
    c.seed(seed);
    std::mt19937_64 rng(seed);
    const uint32_t total = options().repeat;
    std::map<std::string, uint64_t> hist{{"new", 0}, {"stale", 0}, {"torn", 0}, {"absent", 0}, {"foreign", 0}};
    uint32_t done = 0, batch = 0;
    while (done < total) {
        // One batch: up to 64 writes in flight on distinct indices and
        // destinations, random lengths and misalignments, alternating direction.
        const uint32_t n = std::min<uint32_t>(World::kNotifyNum, total - done);
        const int sender = static_cast<int>(batch % 2);
        std::vector<Xfer> plan;
        uint64_t dst = 4096, src = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const uint64_t len = 1 + rng() % 6000;
            const uint64_t mis = rng() % 64;
            const uint64_t smis = rng() % 64;
            plan.push_back(Xfer{sender, 1 - sender, dst + mis, src + smis, len, i, 0, 0, 0,
                                StampKey{8, (done + i) & 0xfff, static_cast<uint32_t>(sender)}});
            dst += 8192 + 4096;
            src += 8192;
        }
        const Exchange ex = run_exchange(plan);
        check_exchange(plan, ex, {"WWN.VIS.1", "WWN.VIS.1", "", ""});
        if (w.rank == 1 - sender)
            for (const auto &r : ex.x)
                ++hist[outcome_name(r.have_snapshot ? r.snap.overall() : r.host.overall())];
        done += n;
        ++batch;
    }
    // Both ranks received half the batches; add the two histograms on rank 0's entry.
    const auto all = ranks::gather(nlohmann::json(hist).dump());
    if (w.rank == 0) {
        std::map<std::string, uint64_t> sum;
        for (const auto &s : all) {
            const auto part = nlohmann::json::parse(s).get<std::map<std::string, uint64_t>>();
            for (const auto &[k, v] : part)
                sum[k] += v;
        }
        c.litmus(litmus_entry("L1", "MP", "Litmus.L1_MessagePassing", sum, {"stale", "torn", "absent", "foreign"}));
        c.message("seed " + std::to_string(seed) + ", " + std::to_string(total) +
                  " repetitions; reproduce: ./hcts run --seed " + std::to_string(seed) +
                  " -- --gtest_filter=Litmus.L1_MessagePassing");
    }
}

} // namespace hcts
