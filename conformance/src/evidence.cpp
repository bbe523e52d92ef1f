#include "evidence.h"

#include <algorithm>
#include <stdexcept>

#include "hcts/core/catalogue.h"

namespace hcts {

namespace {

void keep_first(std::string &slot, const std::string &why)
{
    if (slot.empty())
        slot = why.empty() ? "(no reason given)" : why;
}

nlohmann::json null_if_empty(const std::string &s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

std::string text(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

uint32_t count(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_unsigned() ? it->get<uint32_t>() : 0;
}

std::string with_more(const std::string &reason, uint32_t total)
{
    return total > 1 ? reason + " (and " + std::to_string(total - 1) + " more)" : reason;
}

} // namespace

ClauseEvidence &Evidence::at(std::string_view clause)
{
    if (std::find(clauses_.begin(), clauses_.end(), clause) == clauses_.end())
        throw std::logic_error("hcts: a check of clause " + std::string(clause) +
                               " ran in a case that does not name it; add it to the case's clauses(...)");
    return by_clause_[std::string(clause)];
}

bool Evidence::check(std::string_view clause, bool held, const std::string &why_not)
{
    ClauseEvidence &e = at(clause);
    if (held) {
        ++e.held;
    } else {
        ++e.failed;
        keep_first(e.first_failure, why_not);
        if (reporter_)
            reporter_(clause, "FAIL", why_not);
    }
    return held;
}

void Evidence::unsupported(std::string_view clause, const std::string &why)
{
    ClauseEvidence &e = at(clause);
    ++e.unsupported;
    keep_first(e.first_unsupported, why);
}

void Evidence::error(std::string_view clause, const std::string &why)
{
    ClauseEvidence &e = at(clause);
    ++e.errors;
    keep_first(e.first_error, why);
    if (reporter_)
        reporter_(clause, "ERROR", why);
}

void Evidence::profile(std::string_view clause, const std::string &observed, const std::string &note)
{
    ClauseEvidence &e = at(clause);
    e.observed = observed;
    e.observed_note = note;
}

const ClauseEvidence *Evidence::find(std::string_view clause) const
{
    const auto it = by_clause_.find(clause);
    return it != by_clause_.end() ? &it->second : nullptr;
}

bool Evidence::any_failure() const
{
    return std::any_of(by_clause_.begin(), by_clause_.end(), [](const auto &kv) { return kv.second.failed > 0; });
}

nlohmann::json Evidence::to_json() const
{
    nlohmann::json clauses = nlohmann::json::object();
    for (const auto &[id, e] : by_clause_)
        clauses[id] = {{"held", e.held},
                       {"failed", e.failed},
                       {"errors", e.errors},
                       {"unsupported", e.unsupported},
                       {"first_failure", null_if_empty(e.first_failure)},
                       {"first_error", null_if_empty(e.first_error)},
                       {"first_unsupported", null_if_empty(e.first_unsupported)},
                       {"observed", e.observed ? nlohmann::json(*e.observed) : nlohmann::json(nullptr)},
                       {"observed_note", e.observed_note}};
    return {{"clauses", clauses},
            {"case_not_supported", case_not_supported_ ? nlohmann::json(*case_not_supported_) : nlohmann::json()},
            {"harness_failure", harness_failure_ ? nlohmann::json(*harness_failure_) : nlohmann::json()},
            {"observations", observations_},
            {"messages", messages_},
            {"seed", seed_ ? nlohmann::json(*seed_) : nlohmann::json()},
            {"litmus", litmus_}};
}

ClauseVerdict derive_verdict(const std::string &clause_id, const ClauseEvidence &e, const Catalogue &catalogue)
{
    const Clause *c = catalogue.find(clause_id);
    if (e.failed > 0)
        return {Verdict::Fail, with_more(e.first_failure, e.failed), nullptr};
    if (e.errors > 0)
        return {Verdict::Error, with_more(e.first_error, e.errors), nullptr};
    if (e.observed) {
        const std::vector<std::string> none;
        const auto &allowed = c != nullptr ? c->allowed : none;
        const auto &hazard = c != nullptr ? c->hazard : none;
        const bool ok = std::find(allowed.begin(), allowed.end(), *e.observed) != allowed.end();
        std::string reason = "observed " + *e.observed + (e.observed_note.empty() ? "" : ": " + e.observed_note);
        if (!ok && std::find(hazard.begin(), hazard.end(), *e.observed) == hazard.end())
            reason += " (not among the allowed behaviours)";
        return {ok ? Verdict::Profile : Verdict::Hazard, reason, {{"observed", *e.observed}, {"allowed", allowed}}};
    }
    if (e.unsupported > 0)
        return {Verdict::NotSupported, with_more(e.first_unsupported, e.unsupported), nullptr};
    if (e.held > 0)
        return {Verdict::Pass, "", nullptr};
    return {Verdict::Error, "the case names " + clause_id + " but no check of it ran", nullptr};
}

MergedCase merge_ranks(const std::vector<std::string> &clause_ids, const std::vector<std::string> &per_rank_json,
                       const Catalogue &catalogue)
{
    MergedCase out;
    std::map<std::string, ClauseEvidence> merged;
    std::string not_supported, harness_failure, silent;
    for (size_t r = 0; r < per_rank_json.size(); ++r) {
        const std::string tag = "rank " + std::to_string(r) + ": ";
        if (per_rank_json[r].empty()) {
            silent += (silent.empty() ? "" : ", ") + std::to_string(r);
            continue;
        }
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(per_rank_json[r]);
        } catch (const nlohmann::json::exception &e) {
            keep_first(harness_failure, tag + "unreadable evidence (" + e.what() + ")");
            continue;
        }
        // Bound to a name: items() refers to the object it iterates.
        const nlohmann::json clauses = j.value("clauses", nlohmann::json::object());
        for (const auto &[id, c] : clauses.items()) {
            ClauseEvidence &m = merged[id];
            m.held += count(c, "held");
            m.failed += count(c, "failed");
            m.errors += count(c, "errors");
            m.unsupported += count(c, "unsupported");
            if (const auto f = text(c, "first_failure"); !f.empty())
                keep_first(m.first_failure, tag + f);
            if (const auto f = text(c, "first_error"); !f.empty())
                keep_first(m.first_error, tag + f);
            if (const auto f = text(c, "first_unsupported"); !f.empty())
                keep_first(m.first_unsupported, tag + f);
            if (const auto o = text(c, "observed"); !o.empty() && !m.observed) {
                m.observed = o;
                m.observed_note = tag + text(c, "observed_note");
            }
        }
        if (const auto ns = text(j, "case_not_supported"); !ns.empty())
            keep_first(not_supported, tag + ns);
        if (const auto hf = text(j, "harness_failure"); !hf.empty())
            keep_first(harness_failure, tag + hf);
        if (const nlohmann::json obs = j.value("observations", nlohmann::json::object()); !obs.empty())
            out.observations["rank" + std::to_string(r)] = obs;
        for (const auto &m : j.value("messages", nlohmann::json::array()))
            out.messages.push_back({{"rank", r}, {"text", m}});
        if (!out.seed && j.contains("seed") && j["seed"].is_number_unsigned())
            out.seed = j["seed"].get<uint64_t>();
        for (const auto &l : j.value("litmus", nlohmann::json::array()))
            out.litmus.push_back(l);
    }
    for (const auto &id : clause_ids) {
        ClauseEvidence e = merged[id];
        // Whole-case outcomes count only where no check already decided worse.
        if (!harness_failure.empty() && e.failed == 0) {
            ++e.errors;
            keep_first(e.first_error, "the case broke outside its checks: " + harness_failure);
        }
        if (!silent.empty() && e.failed == 0) {
            ++e.errors;
            keep_first(e.first_error, "no evidence from rank(s) " + silent);
        }
        if (!not_supported.empty() && e.failed == 0 && e.errors == 0) {
            ++e.unsupported;
            keep_first(e.first_unsupported, not_supported);
        }
        out.clauses[id] = derive_verdict(id, e, catalogue);
    }
    return out;
}

} // namespace hcts
