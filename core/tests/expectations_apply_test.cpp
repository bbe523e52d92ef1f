// Applying expectations to a results document: WAIVED, XPASS, recomputed
// clause verdicts, summary and gate.
#include <string>

#include <gtest/gtest.h>

#include "hcts/expectations.h"

namespace {

using hcts::expectations::ExpectationSet;
using nlohmann::json;

// Two MUST clauses and one PROFILE clause, one case each, plus a MUST clause
// decided without cases.
json results()
{
    return json::parse(R"({
    "schema": "hcts-results", "schema_version": 1,
    "run": {"id": "t", "status": "complete"},
    "iut": {"path": "/opt/vendor/lib/libvendor-7.so", "name": "vendor"},
    "environment": {"product": "atlas350", "ranks": 2},
    "clauses": [
      {"id": "WWN.IDX.2", "kind": "MUST", "verdict": "FAIL", "cases": ["Bounds.Index/0", "Bounds.Index/1"]},
      {"id": "WWN.VIS.1", "kind": "MUST", "verdict": "PASS", "cases": ["Visibility.Sweep/0"]},
      {"id": "WWN.NTF.9", "kind": "PROFILE", "verdict": "PROFILE", "cases": ["Notify.Kind"]},
      {"id": "WWN.HOST.1", "kind": "MUST", "verdict": "NOT_SUPPORTED", "cases": []}
    ],
    "cases": [
      {"name": "Bounds.Index/0", "clauses": ["WWN.IDX.2"], "verdict": "FAIL", "reason": "index 9 accepted"},
      {"name": "Bounds.Index/1", "clauses": ["WWN.IDX.2"], "verdict": "TIMEOUT", "reason": "no return"},
      {"name": "Visibility.Sweep/0", "clauses": ["WWN.VIS.1"], "verdict": "PASS", "reason": null},
      {"name": "Notify.Kind", "clauses": ["WWN.NTF.9"], "verdict": "PASS", "reason": null}
    ]
  })");
}

ExpectationSet set(const std::string &entries)
{
    return ExpectationSet::parse("schema: hcts-expectations\nschema_version: 1\nexpectations:\n" + entries, "exp.yaml");
}

const json &clause(const json &r, const std::string &id)
{
    for (const auto &c : r["clauses"])
        if (c["id"] == id)
            return c;
    throw std::runtime_error("no clause " + id);
}
const json &test_case(const json &r, const std::string &name)
{
    for (const auto &c : r["cases"])
        if (c["name"] == name)
            return c;
    throw std::runtime_error("no case " + name);
}

TEST(ExpectationsApply, EmptySetOnlySummarizes)
{
    auto r = results();
    set("").apply(r);
    EXPECT_EQ(r["summary"]["gate"], "fail");
    EXPECT_EQ(r["summary"]["must_total"], 3);
    EXPECT_EQ(r["summary"]["must_passed"], 1);
    // The clause takes the worst of FAIL and TIMEOUT.
    EXPECT_EQ(clause(r, "WWN.IDX.2")["verdict"], "TIMEOUT");
    EXPECT_EQ(clause(r, "WWN.NTF.9")["verdict"], "PROFILE");
    EXPECT_EQ(r["summary"]["by_verdict"]["TIMEOUT"], 1);
    EXPECT_EQ(r["summary"]["by_verdict"]["PASS"], 1);
    EXPECT_EQ(r["summary"]["by_verdict"]["PROFILE"], 1);
    EXPECT_EQ(r["summary"]["by_verdict"]["NOT_SUPPORTED"], 1);
    EXPECT_EQ(r["expectations"]["file"], "exp.yaml");
}

TEST(ExpectationsApply, ClauseEntryWaivesEveryBadCaseAndGatePasses)
{
    auto r = results();
    set("  - clause: WWN.IDX.2\n    expected: FAIL\n    reason: ticket 1234\n"
        "  - clause: WWN.HOST.1\n    expected: NOT_SUPPORTED\n    reason: no host calls on this product\n")
        .apply(r);
    const auto &c0 = test_case(r, "Bounds.Index/0");
    EXPECT_EQ(c0["verdict"], "WAIVED");
    EXPECT_EQ(c0["waived_from"], "FAIL");
    EXPECT_EQ(c0["reason"], "index 9 accepted");
    EXPECT_EQ(c0["waiver"]["reason"], "ticket 1234");
    EXPECT_EQ(c0["waiver"]["source"], "exp.yaml:4");
    // TIMEOUT is bad too, so an entry expecting FAIL still covers it.
    EXPECT_EQ(test_case(r, "Bounds.Index/1")["waived_from"], "TIMEOUT");
    EXPECT_EQ(clause(r, "WWN.IDX.2")["verdict"], "WAIVED");
    // A clause without cases is matched on its own verdict.
    EXPECT_EQ(clause(r, "WWN.HOST.1")["verdict"], "WAIVED");
    EXPECT_EQ(clause(r, "WWN.HOST.1")["waived_from"], "NOT_SUPPORTED");
    EXPECT_EQ(r["summary"]["gate"], "pass");
    EXPECT_EQ(r["summary"]["must_passed"], 1);
    EXPECT_EQ(r["summary"]["must_waived"], 2);
    EXPECT_EQ(r["expectations"]["waived"], json::array({"WWN.HOST.1", "WWN.IDX.2"}));
    EXPECT_EQ(r["expectations"]["xpass"], json::array());
    EXPECT_EQ(r["expectations"]["unmatched"], json::array());
}

TEST(ExpectationsApply, PassingWaivedCaseIsXpassAndFailsGate)
{
    auto r = results();
    set("  - case: \"Visibility.*\"\n    expected: FAIL\n    reason: old bug\n"
        "  - clause: WWN.IDX.2\n    expected: FAIL\n    reason: r\n"
        "  - clause: WWN.HOST.*\n    expected: NOT_SUPPORTED\n    reason: r\n")
        .apply(r);
    EXPECT_EQ(test_case(r, "Visibility.Sweep/0")["verdict"], "XPASS");
    EXPECT_FALSE(test_case(r, "Visibility.Sweep/0").contains("waived_from"));
    EXPECT_EQ(clause(r, "WWN.VIS.1")["verdict"], "XPASS");
    EXPECT_EQ(r["summary"]["by_verdict"]["XPASS"], 1);
    EXPECT_EQ(r["summary"]["gate"], "fail");
    EXPECT_EQ(r["expectations"]["xpass"], json::array({"WWN.VIS.1"}));
    EXPECT_EQ(r["expectations"]["xpass_cases"], json::array({"Visibility.Sweep/0"}));
}

TEST(ExpectationsApply, CaseGlobWaivesOnlyMatchingCases)
{
    auto r = results();
    set("  - case: \"Bounds.Index/0\"\n    expected: FAIL\n    reason: r\n").apply(r);
    EXPECT_EQ(test_case(r, "Bounds.Index/0")["verdict"], "WAIVED");
    EXPECT_EQ(test_case(r, "Bounds.Index/1")["verdict"], "TIMEOUT");
    EXPECT_EQ(clause(r, "WWN.IDX.2")["verdict"], "TIMEOUT");
    // The clause is listed as waived in part: one of its cases was.
    EXPECT_EQ(r["expectations"]["waived"], json::array({"WWN.IDX.2"}));
}

TEST(ExpectationsApply, WhenMustMatchTheRun)
{
    const std::string entry = "  - clause: WWN.IDX.2\n    expected: FAIL\n    reason: r\n    when: ";
    for (const std::string when :
         {"{ iut: \"libvendor*.so\" }", "{ iut: vendor }", "{ iut: \"/opt/*\" }", "{ product: atlas350, ranks: 2 }"}) {
        auto r = results();
        set(entry + when + "\n").apply(r);
        EXPECT_EQ(clause(r, "WWN.IDX.2")["verdict"], "WAIVED") << when;
    }
    for (const std::string when :
         {"{ iut: \"libref*.so\" }", "{ product: atlas800 }", "{ ranks: 4 }", "{ iut: vendor, ranks: 3 }"}) {
        auto r = results();
        set(entry + when + "\n").apply(r);
        EXPECT_EQ(clause(r, "WWN.IDX.2")["verdict"], "TIMEOUT") << when;
        EXPECT_EQ(r["expectations"]["active"], 0) << when;
    }
}

TEST(ExpectationsApply, FirstMatchingEntryDecides)
{
    auto r = results();
    set("  - case: \"Bounds.*\"\n    expected: FAIL\n    reason: first\n"
        "  - clause: WWN.IDX.2\n    expected: FAIL\n    reason: second\n")
        .apply(r);
    EXPECT_EQ(test_case(r, "Bounds.Index/1")["waiver"]["reason"], "first");
    EXPECT_EQ(r["expectations"]["unmatched"], json::array({"exp.yaml:7"}));
}

TEST(ExpectationsApply, ProfileAndNotSupportedAreNotWaivedUnlessNamed)
{
    auto r = results();
    set("  - clause: WWN.NTF.9\n    expected: FAIL\n    reason: r\n"
        "  - clause: WWN.HOST.1\n    expected: FAIL\n    reason: r\n")
        .apply(r);
    // The PROFILE clause's case passed, so the entry makes it XPASS: a stale waiver.
    EXPECT_EQ(test_case(r, "Notify.Kind")["verdict"], "XPASS");
    EXPECT_EQ(clause(r, "WWN.NTF.9")["verdict"], "XPASS");
    // NOT_SUPPORTED is neither bad nor the named verdict.
    EXPECT_EQ(clause(r, "WWN.HOST.1")["verdict"], "NOT_SUPPORTED");
}

TEST(ExpectationsApply, ApplyingTwiceIsStable)
{
    auto once = results();
    const auto s = set("  - clause: WWN.IDX.2\n    expected: FAIL\n    reason: r\n");
    s.apply(once);
    auto twice = once;
    s.apply(twice);
    EXPECT_EQ(once, twice);
}

TEST(ExpectationsApply, IncompleteRunNeverPassesTheGate)
{
    auto r = results();
    r["run"]["status"] = "aborted";
    set("  - clause: \"WWN.*\"\n    expected: FAIL\n    reason: r\n").apply(r);
    EXPECT_EQ(r["summary"]["gate"], "fail");
}

TEST(ExpectationsApply, RefusesANonResultsDocument)
{
    json r = {{"schema", "something-else"}};
    EXPECT_THROW(set("").apply(r), std::runtime_error);
}

// hcts-conformance records, per case, a verdict for each clause it covers.
json combo_results()
{
    return json::parse(R"({
    "schema": "hcts-results", "schema_version": 1, "run": {"id": "c", "status": "complete"},
    "clauses": [
      {"id": "WWN.A", "kind": "MUST", "verdict": "PASS", "cases": ["Combo"]},
      {"id": "WWN.B", "kind": "MUST", "verdict": "FAIL", "cases": ["Combo"]}
    ],
    "cases": [
      {"name": "Combo", "clauses": ["WWN.A", "WWN.B"], "verdict": "FAIL", "reason": "WWN.B: wrong",
       "clause_verdicts": {"WWN.A": {"verdict": "PASS", "reason": null, "profile": null},
                           "WWN.B": {"verdict": "FAIL", "reason": "wrong", "profile": null}}}
    ],
    "summary": {"not_run": []}
  })");
}

TEST(ExpectationsApply, PerClauseVerdictsOfACaseAreKeptApart)
{
    auto r = combo_results();
    set("").apply(r);
    EXPECT_EQ(clause(r, "WWN.A")["verdict"], "PASS"); // not dragged down by WWN.B's failure
    EXPECT_EQ(clause(r, "WWN.B")["verdict"], "FAIL");

    r = combo_results();
    set("  - clause: WWN.B\n    expected: FAIL\n    reason: ticket\n").apply(r);
    const auto &c = test_case(r, "Combo");
    EXPECT_EQ(c["clause_verdicts"]["WWN.B"]["verdict"], "WAIVED");
    EXPECT_EQ(c["clause_verdicts"]["WWN.B"]["waived_from"], "FAIL");
    EXPECT_EQ(c["clause_verdicts"]["WWN.A"]["verdict"], "PASS");
    EXPECT_EQ(c["verdict"], "WAIVED");
    EXPECT_EQ(c["waived_from"], "FAIL");
    EXPECT_EQ(clause(r, "WWN.A")["verdict"], "PASS");
    EXPECT_EQ(clause(r, "WWN.B")["verdict"], "WAIVED");
    EXPECT_EQ(r["expectations"]["waived"], json::array({"WWN.B"}));
    EXPECT_EQ(r["summary"]["gate"], "pass");

    r = combo_results();
    set("  - clause: WWN.A\n    expected: FAIL\n    reason: stale\n").apply(r);
    EXPECT_EQ(test_case(r, "Combo")["clause_verdicts"]["WWN.A"]["verdict"], "XPASS");
    EXPECT_EQ(test_case(r, "Combo")["verdict"], "FAIL"); // WWN.B still fails, and is worse
    EXPECT_EQ(clause(r, "WWN.A")["verdict"], "XPASS");
    EXPECT_EQ(r["expectations"]["xpass"], json::array({"WWN.A"}));
    EXPECT_EQ(r["summary"]["gate"], "fail");
}

TEST(ExpectationsApply, ClausesNoCaseDecidedFailTheGate)
{
    auto r = combo_results();
    set("  - clause: WWN.B\n    expected: FAIL\n    reason: ticket\n").apply(r);
    ASSERT_EQ(r["summary"]["gate"], "pass");
    r["summary"]["not_run"] = json::array({"WWN.C"});
    hcts::expectations::summarize(r);
    EXPECT_EQ(r["summary"]["gate"], "fail");
    EXPECT_EQ(r["summary"]["not_run"], json::array({"WWN.C"})); // kept
    // What ran still passes: a subset reports that (summary.judged), not a verdict.
    EXPECT_EQ(r["summary"]["judged"], "pass");
}

TEST(ExpectationsApply, JudgedFailsOnAGatedFailureOfWhatRan)
{
    auto r = combo_results();
    r["summary"]["not_run"] = json::array({"WWN.C"});
    set("").apply(r); // WWN.B's FAIL is not waived
    EXPECT_EQ(r["summary"]["gate"], "fail");
    EXPECT_EQ(r["summary"]["judged"], "fail");
}

TEST(Verdicts, OrderIsTheSchemaOrder)
{
    using hcts::expectations::verdict_rank;
    const char *order[] = {"PASS",  "PROFILE", "WAIVED", "NOT_SUPPORTED", "HAZARD",
                           "XPASS", "ERROR",   "FAIL",   "TIMEOUT",       "CRASH"};
    for (int i = 0; i + 1 < 10; ++i)
        EXPECT_LT(verdict_rank(order[i]), verdict_rank(order[i + 1])) << order[i];
    EXPECT_EQ(verdict_rank("pass"), -1);
    EXPECT_EQ(hcts::expectations::all_verdicts().size(), 10U);
}

} // namespace
