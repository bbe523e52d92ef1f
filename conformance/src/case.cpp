#include "case.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "clauses.h"
#include "options.h"

namespace hcts {

namespace {
std::unique_ptr<Case> g_case;
}

std::vector<CaseInfo> &case_registry()
{
    static std::vector<CaseInfo> registry;
    return registry;
}

const CaseInfo *find_case(std::string_view name)
{
    for (const auto &c : case_registry())
        if (c.name == name)
            return &c;
    return nullptr;
}

CaseReg::CaseReg(const char *name, std::initializer_list<const char *> clauses)
{
    CaseInfo info{name, {}};
    for (const char *c : clauses)
        info.clauses.emplace_back(c);
    case_registry().push_back(std::move(info));
}

Case &Case::current()
{
    if (!g_case)
        throw std::logic_error("hcts: a check ran outside a case declared with HCTS_CASE");
    return *g_case;
}

void Case::begin(const CaseInfo &info) { g_case = std::make_unique<Case>(info); }
void Case::end() { g_case.reset(); }

void Case::require_clause(std::string_view clause) const
{
    if (std::find(info_.clauses.begin(), info_.clauses.end(), clause) == info_.clauses.end())
        throw std::logic_error("hcts: case " + info_.name + " checks clause " + std::string(clause) +
                               " but does not name it in HCTS_CASE");
}

void Case::fail(std::string_view clause, const std::string &why)
{
    require_clause(clause);
    Finding &f = findings_[std::string(clause)];
    if (f.verdict < Verdict::Fail) {
        f.verdict = Verdict::Fail;
        f.reason = why;
    } else {
        ++extra_failures_[std::string(clause)];
    }
    ADD_FAILURE() << clause << ": " << why;
}

void Case::not_supported(const std::string &why) { not_supported_ = why; }

void Case::profile(std::string_view clause, const std::string &observed, const std::string &note)
{
    require_clause(clause);
    const Clause *c = options().catalogue.find(clause);
    Finding &f = findings_[std::string(clause)];
    if (f.verdict >= Verdict::Fail)
        return;
    nlohmann::json allowed = c != nullptr ? nlohmann::json(c->allowed) : nlohmann::json::array();
    const bool is_allowed = c != nullptr && std::find(c->allowed.begin(), c->allowed.end(), observed) != c->allowed.end();
    f.verdict = is_allowed ? Verdict::Profile : Verdict::Hazard;
    f.reason = "observed " + observed + (note.empty() ? "" : ": " + note);
    if (!is_allowed && (c == nullptr || std::find(c->hazard.begin(), c->hazard.end(), observed) == c->hazard.end()))
        f.reason += " (not among the allowed behaviours)";
    f.profile = {{"observed", observed}, {"allowed", allowed}};
}

nlohmann::json Case::to_json(bool gtest_failed, const std::string &gtest_failure) const
{
    nlohmann::json clauses = nlohmann::json::object();
    for (const auto &id : info_.clauses) {
        Finding f;
        if (auto it = findings_.find(id); it != findings_.end())
            f = it->second;
        // A GoogleTest failure no check attributed (an ASSERT in set-up, an
        // exception) fails every clause of the case: nothing was established.
        if (gtest_failed && findings_.empty() && f.verdict < Verdict::Fail) {
            f.verdict = Verdict::Fail;
            f.reason = gtest_failure;
        }
        if (not_supported_ && f.verdict < Verdict::NotSupported) {
            f.verdict = Verdict::NotSupported;
            f.reason = *not_supported_;
        }
        if (auto it = extra_failures_.find(id); it != extra_failures_.end())
            f.reason += " (and " + std::to_string(it->second) + " more)";
        clauses[id] = {{"verdict", verdict_name(f.verdict)},
                       {"reason", f.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.reason)},
                       {"profile", f.profile.is_null() ? nlohmann::json(nullptr) : f.profile}};
    }
    return {{"clauses", clauses},
            {"observations", observations_},
            {"messages", messages_},
            {"seed", seed_ ? nlohmann::json(*seed_) : nlohmann::json(nullptr)},
            {"litmus", litmus_}};
}

} // namespace hcts
