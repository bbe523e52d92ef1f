#include "litmus.h"

#include <cstdio>

#include "hcts/mpi_harness.h"

namespace hcts {

nlohmann::json litmus_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                            const Histogram &outcomes, const std::vector<std::string> &forbidden)
{
    uint64_t total = 0, bad = 0;
    for (const auto &[k, v] : outcomes) {
        total += v;
        for (const auto &f : forbidden)
            if (f == k)
                bad += v;
    }
    const std::string observation = bad == 0 ? "never" : bad == total ? "always" : "sometimes";
    char bound[96];
    if (bad == 0 && total > 0)
        std::snprintf(bound, sizeof bound, "p < %.3g at 95%% confidence (0 of %llu)", 3.0 / static_cast<double>(total),
                      static_cast<unsigned long long>(total));
    else
        std::snprintf(bound, sizeof bound, "observed in %llu of %llu (rate %.3g)", static_cast<unsigned long long>(bad),
                      static_cast<unsigned long long>(total),
                      total != 0 ? static_cast<double>(bad) / static_cast<double>(total) : 0.0);
    // No repetition at all is no evidence: an empty histogram is an ERROR, never a PASS.
    const char *verdict = total == 0 ? "ERROR" : bad == 0 ? "PASS" : "FAIL";
    return {{"id", id},
            {"shape", shape},
            {"case", case_name},
            {"repetitions", total},
            {"outcomes", outcomes},
            {"forbidden", forbidden},
            {"observation", observation},
            {"bound", bound},
            {"verdict", verdict}};
}

nlohmann::json profile_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                             const Histogram &outcomes, const std::vector<std::string> &weak)
{
    nlohmann::json e = litmus_entry(id, shape, case_name, outcomes, weak);
    if (e["verdict"] != "ERROR")
        e["verdict"] = "PROFILE";
    return e;
}

Histogram sum_on_root(const Histogram &mine)
{
    Histogram sum;
    for (const auto &[k, v] : mine)
        sum[k] = 0;
    for (const auto &s : mpi::gather_to_root(nlohmann::json(mine).dump(), "litmus histogram"))
        for (const auto &[k, v] : nlohmann::json::parse(s).get<Histogram>())
            sum[k] += v;
    return sum;
}

void record_litmus(const Ctx &c, const std::string &id, const std::string &shape, const Histogram &mine,
                   const std::vector<std::string> &forbidden, Row row)
{
    const Histogram sum = sum_on_root(mine);
    if (c.rank() == 0)
        c.ev.litmus(row == Row::F ? litmus_entry(id, shape, c.spec.name, sum, forbidden)
                                  : profile_entry(id, shape, c.spec.name, sum, forbidden));
}

Histogram payload_histogram() { return {{"new", 0}, {"stale", 0}, {"torn", 0}, {"absent", 0}, {"foreign", 0}}; }

const std::vector<std::string> &weak_outcomes()
{
    static const std::vector<std::string> weak{"stale", "torn", "absent", "foreign"};
    return weak;
}

} // namespace hcts
