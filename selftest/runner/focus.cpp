#include "focus.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace hcts::selftest {

std::vector<CaseClauses> parse_case_list(std::string_view text)
{
    std::vector<CaseClauses> out;
    std::istringstream in{std::string(text)};
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.empty())
            continue;
        const auto space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos)
            throw std::runtime_error("hcts-conformance --list-cases, line " + std::to_string(n) + ": '" + line +
                                     "'; expected 'Suite.Case CLAUSE[,CLAUSE...]'");
        CaseClauses c{line.substr(0, space), {}};
        std::istringstream ids(line.substr(space + 1));
        for (std::string id; std::getline(ids, id, ',');)
            if (!id.empty())
                c.clauses.push_back(id);
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<std::string> focus_clauses(const Entry &e)
{
    std::vector<std::string> ids;
    if (e.fails)
        ids = *e.fails;
    for (const auto *more : {&e.not_supported, &e.errors, &e.may_fail})
        ids.insert(ids.end(), more->begin(), more->end());
    return ids;
}

std::string focus_filter(const Entry &e, const std::vector<CaseClauses> &cases)
{
    const auto wanted = focus_clauses(e);
    std::string filter;
    for (const auto &c : cases)
        if (std::any_of(c.clauses.begin(), c.clauses.end(), [&](const std::string &id) {
                return std::find(wanted.begin(), wanted.end(), id) != wanted.end();
            }))
            filter += (filter.empty() ? "" : ":") + c.name;
    return filter;
}

std::string unknown_cases(std::string_view names, const std::vector<CaseClauses> &cases)
{
    std::string unknown;
    while (!names.empty()) {
        const auto colon = names.find(':');
        const std::string_view name = names.substr(0, colon);
        names = colon == std::string_view::npos ? std::string_view{} : names.substr(colon + 1);
        if (std::none_of(cases.begin(), cases.end(), [&](const CaseClauses &c) { return c.name == name; }))
            unknown += (unknown.empty() ? "'" : ", '") + std::string(name) + "'";
    }
    return unknown;
}

} // namespace hcts::selftest
