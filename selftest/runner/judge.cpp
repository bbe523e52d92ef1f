#include "judge.h"

#include <algorithm>
#include <set>

#include "hcts/core/clause_kind.h"
#include "hcts/expectations.h"

namespace hcts::selftest {
namespace {

struct ClauseSeen {
    std::string verdict, kind, reason, observed;
};

std::string text(const nlohmann::json &obj, const char *key)
{
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string describe(const std::string &id, const ClauseSeen &c)
{
    return id + " is " + c.verdict + (c.reason.empty() ? "" : " (" + c.reason + ")");
}

bool contains(const std::vector<std::string> &v, const std::string &x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

std::string joined(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

// A legal entry's strict_fails: the strict gate, judged on the same run's verdicts
// (a strict run differs from a default one only in what gates), fails on exactly
// the declared STRICT clauses. Appends each expectation that does not hold.
void judge_strict_fails(const Entry &e, const nlohmann::json &doc, const std::map<std::string, ClauseSeen> &seen,
                        Judgement &j)
{
    const auto &declared = *e.strict_fails;
    for (const auto &id : declared) {
        const auto it = seen.find(id);
        if (it == seen.end())
            j.problems.push_back(id + " does not appear in the results (strict_fails)");
        else if (it->second.verdict != "FAIL" && it->second.verdict != "HAZARD")
            j.problems.push_back(describe(id, it->second) +
                                 "; strict_fails expects FAIL or HAZARD (the variant departs from it)");
    }
    for (const auto &[id, c] : seen) {
        // Only clauses the strict gate judges (the one gate rule, clause_kind.h).
        if (!gates_on(c.kind, GateMode::Strict) || contains(declared, id))
            continue;
        if (c.verdict == "PASS" || c.verdict == "PROFILE" || c.verdict == "WAIVED" ||
            (c.verdict == "NOT_SUPPORTED" && contains(e.not_supported_ok, id)))
            continue;
        j.problems.push_back(describe(id, c) + "; expected PASS or PROFILE (a " + c.kind +
                             " clause not in strict_fails)");
    }
    // Properties and litmus entries gate a strict run too: what they break under
    // STRICT clauses must be declared as well.
    for (const char *key : {"properties", "litmus"}) {
        const auto it = doc.find(key);
        if (it == doc.end() || !it->is_array())
            continue;
        for (const auto &item : *it) {
            const std::string name = text(item, "name");
            if (const auto f = item.find("failed_clause");
                f != item.end() && f->is_object() && text(item, "verdict") == "FAIL" && text(*f, "kind") == "STRICT" &&
                !contains(declared, text(*f, "id")))
                j.problems.push_back(std::string(key) + " " + name + " fails STRICT clause " + text(*f, "id") +
                                     ", which strict_fails does not name");
            if (const auto d = item.find("departures"); d != item.end() && d->is_array())
                for (const auto &dep : *d)
                    if (text(dep, "kind") == "STRICT" && !contains(declared, text(dep, "clause")))
                        j.problems.push_back(std::string(key) + " " + name + " departs from STRICT clause " +
                                             text(dep, "clause") + ", which strict_fails does not name");
        }
    }
    nlohmann::json strict = doc;
    strict["run"]["gate"] = "strict";
    try {
        hcts::expectations::summarize(strict);
        j.strict_gate = text(strict.at("summary"), "gate");
    } catch (const std::exception &err) {
        j.problems.push_back(std::string("the strict gate cannot be recomputed from the results: ") + err.what());
        return;
    }
    const std::string want = declared.empty() ? "pass" : "fail";
    if (j.strict_gate != want)
        j.problems.push_back("the strict gate, recomputed from the same verdicts, is '" + j.strict_gate +
                             "'; strict_fails [" + joined(declared) + "] expects '" + want + "'");
}

} // namespace

bool is_kill_evidence(const std::string &verdict)
{
    return verdict == "FAIL" || verdict == "HAZARD" || verdict == "TIMEOUT" || verdict == "CRASH";
}

Judgement judge(const Entry &e, const RunOutcome &run)
{
    Judgement j;
    const bool api_mutant = e.kind == "mutant" && e.observable == "api";
    if (run.status == RunOutcome::Status::NotRun) {
        if (e.kind == "mutant" && e.observable == "internal") {
            j.ok = true;
            j.verdict = "internal: seen by " + joined(e.killed_by) + " (not run)";
            return j;
        }
        j.verdict = "NOT RUN";
        j.problems.push_back("not run: " + run.note);
        return j;
    }
    if (run.status == RunOutcome::Status::Timeout) {
        j.verdict = "TIMEOUT";
        j.problems.push_back("the run did not finish before its deadline; its process group was killed" +
                             (run.note.empty() ? std::string() : " (" + run.note + ")") +
                             ": no verdict, neither caught nor passed");
        if (api_mutant)
            j.killed = false;
        return j;
    }
    if (!run.results || !run.results->is_object() || !run.results->contains("clauses")) {
        j.verdict = "ERROR";
        j.problems.push_back("the suite exited with status " + std::to_string(run.exit_code) +
                             " and left no results document" + (run.note.empty() ? "" : ": " + run.note));
        if (api_mutant)
            j.killed = false;
        return j;
    }
    const auto &doc = *run.results;
    std::map<std::string, ClauseSeen> seen;
    for (const auto &c : doc.at("clauses")) {
        ClauseSeen s;
        s.verdict = c.contains("verdict") && c.at("verdict").is_string() ? c.at("verdict").get<std::string>()
                                                                         : std::string("NOT RUN");
        s.kind = text(c, "kind");
        s.reason = text(c, "reason");
        if (c.contains("profile") && c.at("profile").is_object())
            s.observed = text(c.at("profile"), "observed");
        const auto id = text(c, "id");
        j.verdicts[id] = s.verdict;
        seen[id] = s;
    }
    const auto summary = doc.value("summary", nlohmann::json::object());
    j.gate = summary.is_object() ? text(summary, "gate") : "";
    const auto run_info = doc.value("run", nlohmann::json::object());
    const std::string status = run_info.is_object() ? text(run_info, "status") : "";
    const GateMode gate_mode =
        parse_gate_mode(run_info.is_object() ? text(run_info, "gate") : "").value_or(GateMode::Default);

    // The clauses whose verdict is evidence: a kill verdict, or NOT_SUPPORTED on a
    // gated clause (it fails the gate for a reason the suite observed).
    std::vector<std::string> evidence;
    for (const auto &[id, c] : seen)
        if (is_kill_evidence(c.verdict) || (c.verdict == "NOT_SUPPORTED" && gates_on(c.kind, gate_mode)))
            evidence.push_back(id);

    const bool exact = e.kind == "wrong" || (e.kind == "mutant" && e.fails);
    if (exact) {
        const auto &fails = *e.fails;
        for (const auto &id : fails) {
            const auto it = seen.find(id);
            if (it == seen.end())
                j.problems.push_back(id + " does not appear in the results");
            else if (!is_kill_evidence(it->second.verdict))
                j.problems.push_back(describe(id, it->second) + "; expected FAIL, HAZARD, TIMEOUT or CRASH");
        }
        for (const auto &id : e.not_supported) {
            const auto it = seen.find(id);
            if (it == seen.end() || it->second.verdict != "NOT_SUPPORTED")
                j.problems.push_back(
                    (it == seen.end() ? id + " does not appear in the results" : describe(id, it->second)) +
                    "; expected NOT_SUPPORTED");
        }
        for (const auto &id : e.errors) {
            const auto it = seen.find(id);
            if (it == seen.end() || it->second.verdict != "ERROR")
                j.problems.push_back(
                    (it == seen.end() ? id + " does not appear in the results" : describe(id, it->second)) +
                    "; expected ERROR (the suite cannot judge it with this IUT)");
        }
        std::size_t not_supported = 0;
        for (const auto &[id, c] : seen) {
            if (contains(fails, id) || contains(e.not_supported, id) || contains(e.errors, id))
                continue;
            if (contains(e.may_fail, id) &&
                (is_kill_evidence(c.verdict) || c.verdict == "PASS" || c.verdict == "PROFILE"))
                continue;
            const auto &v = c.verdict;
            not_supported += v == "NOT_SUPPORTED";
            if (v == "PASS" || v == "PROFILE")
                continue; // with not_supported: all, a clause that does not need the missing call
            if (e.not_supported_all && v == "NOT_SUPPORTED")
                continue;
            if (v == "NOT_SUPPORTED" && (contains(e.not_supported_ok, id) || (id == "WWN.LIT.13" && e.np < 3)))
                continue;
            j.problems.push_back(describe(id, c) + "; expected PASS or PROFILE" +
                                 (e.not_supported_all ? std::string(" or NOT_SUPPORTED") : std::string()) +
                                 (v == "NOT_SUPPORTED" ? " (NOT_SUPPORTED is not allowed for it here)" : ""));
        }
        if (e.not_supported_all && not_supported == 0)
            j.problems.push_back("no clause is NOT_SUPPORTED (not_supported: all)");
        if (j.gate != "fail")
            j.problems.push_back("the " + e.gate + " gate is '" + j.gate + "'; it must fail");
        if (status != "complete")
            j.problems.push_back("run.status is '" + status + "', expected 'complete'");
        if (e.kind == "mutant") {
            j.killed = j.gate == "fail" && !evidence.empty();
            j.killed_by = evidence;
        }
        j.ok = j.problems.empty();
        j.verdict =
            j.ok ? (e.kind == "mutant" ? "killed by " + joined(evidence) : "caught as declared") : "NOT AS DECLARED";
        return j;
    }
    if (e.kind == "legal") {
        // The reference with a knob claims its stricter checks; a shim gates by default (see main.cpp).
        const std::string gate = legal_gate(e);
        if (j.gate != "pass") {
            std::string worse;
            for (const auto &[id, c] : seen)
                if (c.verdict != "PASS" && c.verdict != "PROFILE" &&
                    !(c.verdict == "NOT_SUPPORTED" && (contains(e.not_supported_ok, id) || id == "WWN.LIT.13")))
                    worse += (worse.empty() ? "" : "; ") + describe(id, c);
            j.problems.push_back("the " + gate + " gate is '" + j.gate + "'; a legal variant must pass it" +
                                 (worse.empty() ? "" : ": " + worse));
        }
        if (e.strict_fails)
            judge_strict_fails(e, doc, seen, j);
        j.ok = j.problems.empty();
        j.verdict = !j.ok             ? "REJECTED"
                    : !e.strict_fails ? "passes the " + gate + " gate"
                    : e.strict_fails->empty()
                        ? "passes the " + gate + " and the strict gate"
                        : "passes the " + gate + " gate; the strict gate fails on exactly " + joined(*e.strict_fails);
        return j;
    }
    if (e.kind == "profile") {
        const auto &p = *e.profile;
        const auto it = seen.find(p.clause);
        if (it == seen.end())
            j.problems.push_back(p.clause + " does not appear in the results");
        else if (it->second.observed != p.outcome)
            j.problems.push_back(p.clause + " observed '" +
                                 (it->second.observed.empty() ? "nothing" : it->second.observed) + "' (" +
                                 it->second.verdict + (it->second.reason.empty() ? "" : ": " + it->second.reason) +
                                 "), expected '" + p.outcome + "'");
        j.ok = j.problems.empty();
        j.verdict = j.ok ? p.clause + " observed " + p.outcome : "OTHER OUTCOME";
        return j;
    }
    // A mutant without declared clauses: killed when the default gate fails on evidence.
    j.killed_by = evidence;
    j.killed = j.gate == "fail" && !evidence.empty();
    if (!*j.killed) {
        if (j.gate == "fail") {
            std::string why;
            for (const auto &[id, c] : seen)
                if (c.verdict == "ERROR" || c.verdict == "NOT RUN")
                    why += (why.empty() ? "" : "; ") + describe(id, c);
            if (status != "complete")
                why += (why.empty() ? "" : "; ") + std::string("run.status is '") + status + "'";
            j.problems.push_back("the gate fails, but without evidence (ERROR and undecided clauses are not a kill)" +
                                 (why.empty() ? std::string() : ": " + why));
        } else {
            j.problems.push_back("survived: the " + std::string(gate_mode_name(gate_mode)) + " gate passes");
        }
    }
    j.ok = j.problems.empty();
    j.verdict = j.ok ? "killed by " + joined(evidence) : "SURVIVED";
    return j;
}

} // namespace hcts::selftest
