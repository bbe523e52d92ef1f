#include "comparison.h"

#include <map>

#include "text.h"

namespace hcts::report {

bool counts_as_passed(std::string_view verdict) { return verdict == "PASS" || verdict == "PROFILE"; }

std::vector<ComparisonRow> compare(std::span<const Run> runs)
{
    std::vector<ComparisonRow> rows;
    std::map<std::string, std::size_t> index;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        for (const auto &clause : runs[r].model.clauses) {
            auto [it, added] = index.try_emplace(clause.id, rows.size());
            if (added) {
                rows.push_back({clause.id, text_or(clause.title), name_of(clause.kind),
                                std::vector<std::string>(runs.size()), 0, 0});
            }
            auto &row = rows[it->second];
            const auto verdict = text_or(clause.verdict, "NOT RUN");
            row.verdicts[r] = verdict;
            ++row.present;
            if (counts_as_passed(verdict))
                ++row.passed;
        }
    }
    return rows;
}

} // namespace hcts::report
