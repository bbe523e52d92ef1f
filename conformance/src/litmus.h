// Litmus histograms (conformance-anchors.md §2): outcome counts per shape, the
// forbidden ones, and the "p < 3/n" bound when none was seen.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "case.h"

namespace hcts {

using Histogram = std::map<std::string, uint64_t>;

// An F row: PASS when no forbidden outcome was seen, else FAIL.
nlohmann::json litmus_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                            const Histogram &outcomes, const std::vector<std::string> &forbidden);
// A P row: the histogram is kept, the verdict is PROFILE (the clause reports it).
nlohmann::json profile_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                             const Histogram &outcomes, const std::vector<std::string> &weak);
// The sum of every rank's histogram, on rank 0 (empty elsewhere); every key of
// `mine` appears. Collective.
Histogram sum_on_root(const Histogram &mine);
// Sums every rank's histogram and records it on rank 0 as the case's litmus
// entry: an F row (forbidden outcomes fail it) or a P row (reported). Collective.
enum class Row { F, P };
void record_litmus(const Ctx &c, const std::string &id, const std::string &shape, const Histogram &mine,
                   const std::vector<std::string> &forbidden, Row row = Row::F);
// The outcome classes of a stamped payload, every one present with 0.
Histogram payload_histogram();
// The forbidden classes of a stamped payload read after its wait.
const std::vector<std::string> &weak_outcomes();

} // namespace hcts
