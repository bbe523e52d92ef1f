// The runner's reading and judging, on made-up catalogue files and results
// documents (no MPI, no suite run).
#include <gtest/gtest.h>

#include "catalogue.h"
#include "check.h"
#include "focus.h"
#include "judge.h"

using namespace hcts::selftest;
using nlohmann::json;

namespace {

const hcts::Catalogue &clauses()
{
    static const hcts::Catalogue c = hcts::Catalogue::parse(R"(
catalogue_version: 1
clauses:
  - {id: A.1, title: t, statement: s, source: x, source_class: vendor-doc, kind: MUST, area: a}
  - {id: A.2, title: t, statement: s, source: x, source_class: vendor-doc, kind: MUST, area: a}
  - {id: S.1, title: t, statement: s, source: x, source_class: reference, kind: STRICT, area: a}
  - {id: P.1, title: t, statement: s, source: x, source_class: seed, kind: PROFILE, area: a, allowed: [binary, counting]}
  - {id: WWN.LIT.13, title: t, statement: s, source: x, source_class: reference, kind: PROFILE, area: a, allowed: [cumulative, not-cumulative]}
)",
                                                            "test-clauses.yaml");
    return c;
}

// A results document: clause -> verdict, and the gate.
json results(const std::map<std::string, std::string> &verdicts, const std::string &gate,
             const std::string &status = "complete")
{
    json doc = {{"schema", "hcts-results"},
                {"run", {{"status", status}, {"gate", "default"}}},
                {"summary", {{"gate", gate}}},
                {"clauses", json::array()}};
    for (const auto &[id, v] : verdicts) {
        const std::string kind = id[0] == 'A' ? "MUST" : id[0] == 'S' ? "STRICT" : "PROFILE";
        doc["clauses"].push_back({{"id", id}, {"kind", kind}, {"verdict", v}, {"reason", v == "PASS" ? "" : "why"}});
    }
    return doc;
}

RunOutcome finished(const json &doc)
{
    RunOutcome r;
    r.results = doc;
    return r;
}

Entry wrong(std::vector<std::string> fails)
{
    Entry e;
    e.id = "w";
    e.kind = "wrong";
    e.fails = std::move(fails);
    return e;
}

Entry mutant()
{
    Entry e;
    e.id = "ref_x";
    e.kind = "mutant";
    return e;
}

std::vector<Entry> parse(const std::string &text, std::vector<std::string> &problems)
{
    std::vector<Entry> out;
    parse_catalogue_file(text, "t.yaml", clauses(), out, problems);
    return out;
}

const std::map<std::string, std::string> all_pass{
    {"A.1", "PASS"}, {"A.2", "PASS"}, {"S.1", "PASS"}, {"P.1", "PROFILE"}, {"WWN.LIT.13", "NOT_SUPPORTED"}};

std::map<std::string, std::string> with(std::map<std::string, std::string> m, const std::string &id,
                                        const std::string &v)
{
    m[id] = v;
    return m;
}

} // namespace

TEST(Judge, WrongCaughtExactly)
{
    const auto j = judge(wrong({"A.1"}), finished(results(with(all_pass, "A.1", "FAIL"), "fail")));
    EXPECT_TRUE(j.ok) << (j.problems.empty() ? "" : j.problems[0]);
    EXPECT_EQ(j.verdicts.at("A.1"), "FAIL");
}

TEST(Judge, WrongWhoseOtherClauseFailsIsNotOk)
{
    auto v = with(all_pass, "A.1", "FAIL");
    v["A.2"] = "FAIL";
    const auto j = judge(wrong({"A.1"}), finished(results(v, "fail")));
    EXPECT_FALSE(j.ok);
    ASSERT_EQ(j.problems.size(), 1u);
    EXPECT_NE(j.problems[0].find("A.2 is FAIL"), std::string::npos) << j.problems[0];
}

TEST(Judge, EveryKillVerdictCountsForADeclaredClause)
{
    for (const char *v : {"FAIL", "HAZARD", "TIMEOUT", "CRASH"})
        EXPECT_TRUE(judge(wrong({"A.1"}), finished(results(with(all_pass, "A.1", v), "fail"))).ok) << v;
}

TEST(Judge, ErrorIsNeverAKill)
{
    EXPECT_FALSE(is_kill_evidence("ERROR"));
    EXPECT_FALSE(is_kill_evidence("NOT RUN"));
    const auto j = judge(wrong({"A.1"}), finished(results(with(all_pass, "A.1", "ERROR"), "fail")));
    EXPECT_FALSE(j.ok);
    const auto m = judge(mutant(), finished(results(with(all_pass, "A.1", "ERROR"), "fail")));
    EXPECT_FALSE(m.ok);
    ASSERT_TRUE(m.killed.has_value());
    EXPECT_FALSE(*m.killed);
    EXPECT_NE(m.problems.at(0).find("without evidence"), std::string::npos) << m.problems[0];
}

TEST(Judge, DeclaredErrorsMustBeErrorAndAreNoKill)
{
    auto e = wrong({"A.1"});
    e.errors = {"A.2"};
    auto v = with(all_pass, "A.1", "FAIL");
    v["A.2"] = "ERROR";
    EXPECT_TRUE(judge(e, finished(results(v, "fail"))).ok);
    v["A.2"] = "PASS"; // the suite judged what it was told it could not: not as declared
    const auto j = judge(e, finished(results(v, "fail")));
    EXPECT_FALSE(j.ok);
    EXPECT_NE(j.problems.at(0).find("expected ERROR"), std::string::npos) << j.problems[0];
    // An entry whose only declared outcome is ERROR is a valid wrong entry.
    std::vector<std::string> problems;
    parse("schema: hcts-selftest-catalogue\nschema_version: 1\nentries:\n"
          "  - {id: e1, kind: wrong, area: notify, what: w, fails: [], errors: [A.1]}\n",
          problems);
    EXPECT_TRUE(problems.empty()) << problems.at(0);
}

TEST(Judge, WrongMustFailItsGate)
{
    const auto j = judge(wrong({"S.1"}), finished(results(with(all_pass, "S.1", "FAIL"), "pass")));
    EXPECT_FALSE(j.ok);
}

TEST(Judge, NotSupportedOnlyWhereAllowed)
{
    auto v = with(all_pass, "A.1", "FAIL");
    v["A.2"] = "NOT_SUPPORTED";
    EXPECT_FALSE(judge(wrong({"A.1"}), finished(results(v, "fail"))).ok);
    auto e = wrong({"A.1"});
    e.not_supported_ok = {"A.2"};
    EXPECT_TRUE(judge(e, finished(results(v, "fail"))).ok);
    // L13 needs 3 ranks: NOT_SUPPORTED is allowed on 2, not on 3.
    e.np = 3;
    EXPECT_FALSE(judge(e, finished(results(v, "fail"))).ok);
}

TEST(Judge, MayFailTakesAKillOrAPassNothingElse)
{
    auto e = wrong({"A.1"});
    e.may_fail = {"A.2"};
    auto v = with(all_pass, "A.1", "FAIL");
    EXPECT_TRUE(judge(e, finished(results(v, "fail"))).ok); // A.2 passed this time
    v["A.2"] = "FAIL";
    EXPECT_TRUE(judge(e, finished(results(v, "fail"))).ok); // and failed this time
    v["A.2"] = "ERROR";
    EXPECT_FALSE(judge(e, finished(results(v, "fail"))).ok); // ERROR is neither
    v["A.2"] = "PASS";
    v["S.1"] = "FAIL";
    EXPECT_FALSE(judge(e, finished(results(v, "fail"))).ok); // only the named clause may
    // A clause is declared one way: fails or may_fail, not both.
    std::vector<std::string> problems;
    parse("schema: hcts-selftest-catalogue\nschema_version: 1\nentries:\n"
          "  - {id: e1, kind: wrong, area: notify, what: w, fails: [A.1], may_fail: [A.1]}\n",
          problems);
    EXPECT_FALSE(problems.empty());
}

TEST(Judge, NotSupportedAll)
{
    auto e = wrong({});
    e.not_supported_all = true;
    auto v = all_pass;
    v["A.1"] = "NOT_SUPPORTED";
    EXPECT_TRUE(judge(e, finished(results(v, "fail"))).ok);
    EXPECT_FALSE(judge(e, finished(results(all_pass, "pass"))).ok); // nothing NOT_SUPPORTED, gate passes
    v["A.2"] = "CRASH";
    EXPECT_FALSE(judge(e, finished(results(v, "fail"))).ok);
}

TEST(Judge, TimeoutOfTheEntryIsReported)
{
    RunOutcome r;
    r.status = RunOutcome::Status::Timeout;
    r.note = "deadline 5 s";
    const auto j = judge(mutant(), r);
    EXPECT_FALSE(j.ok);
    EXPECT_EQ(j.verdict, "TIMEOUT");
    ASSERT_TRUE(j.killed.has_value());
    EXPECT_FALSE(*j.killed);
    EXPECT_NE(j.problems.at(0).find("deadline"), std::string::npos);
}

TEST(Judge, NoResultsDocumentIsAnError)
{
    RunOutcome r;
    r.exit_code = 134;
    const auto j = judge(wrong({"A.1"}), r);
    EXPECT_FALSE(j.ok);
    EXPECT_EQ(j.verdict, "ERROR");
}

TEST(Judge, MutantKilledByEvidence)
{
    const auto j = judge(mutant(), finished(results(with(all_pass, "A.2", "TIMEOUT"), "fail")));
    EXPECT_TRUE(j.ok);
    EXPECT_TRUE(j.killed.value_or(false));
    EXPECT_EQ(j.killed_by, std::vector<std::string>{"A.2"});
    const auto s = judge(mutant(), finished(results(all_pass, "pass")));
    EXPECT_FALSE(s.ok);
    EXPECT_FALSE(s.killed.value_or(true));
    EXPECT_EQ(s.verdict, "SURVIVED");
}

TEST(Judge, MutantWithFailsIsJudgedAsAWrongEntry)
{
    auto e = mutant();
    e.fails = std::vector<std::string>{"A.1"};
    auto v = with(all_pass, "A.1", "FAIL");
    EXPECT_TRUE(judge(e, finished(results(v, "fail"))).ok);
    v["A.2"] = "FAIL";
    const auto j = judge(e, finished(results(v, "fail")));
    EXPECT_FALSE(j.ok);                    // not as declared
    EXPECT_TRUE(j.killed.value_or(false)); // but killed all the same
}

TEST(Judge, LegalMustPassItsGate)
{
    Entry e;
    e.kind = "legal";
    const auto passes = judge(e, finished(results(all_pass, "pass")));
    EXPECT_TRUE(passes.ok);
    EXPECT_EQ(passes.verdict, "passes the strict gate"); // the reference with a knob
    e.iut = "shim:x";
    EXPECT_EQ(judge(e, finished(results(all_pass, "pass"))).verdict, "passes the default gate");
    const auto j = judge(e, finished(results(with(all_pass, "S.1", "FAIL"), "fail")));
    EXPECT_FALSE(j.ok);
    EXPECT_NE(j.problems.at(0).find("S.1 is FAIL"), std::string::npos);
}

TEST(Judge, ProfileOutcome)
{
    Entry e;
    e.kind = "profile";
    e.profile = ProfileExpectation{"P.1", "counting"};
    auto doc = results(all_pass, "pass");
    for (auto &c : doc["clauses"])
        if (c["id"] == "P.1")
            c["profile"] = {{"observed", "counting"}, {"allowed", {"binary", "counting"}}};
    EXPECT_TRUE(judge(e, finished(doc)).ok);
    e.profile->outcome = "binary";
    const auto j = judge(e, finished(doc));
    EXPECT_FALSE(j.ok);
    EXPECT_NE(j.problems.at(0).find("observed 'counting'"), std::string::npos) << j.problems[0];
}

TEST(Catalogue, ValidEntries)
{
    std::vector<std::string> problems;
    const auto entries = parse(R"(schema: hcts-selftest-catalogue
schema_version: 1
entries:
  - id: ref_x
    kind: mutant
    area: notify
    what: w
  - id: p_binary
    kind: profile
    area: notify
    what: w
    env: {HCOMM_REF_NOTIFY: binary}
    profile: {clause: P.1, outcome: binary}
    cases: "Profiles.*"
    case_timeout: 300
)",
                               problems);
    EXPECT_TRUE(problems.empty()) << problems[0];
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].env.at("HCTS_MUTANT"), "ref_x"); // implied for mutants
    EXPECT_EQ(entries[0].file, "t.yaml:4");
    EXPECT_EQ(entries[0].case_timeout_s, 0); // the runner's
    EXPECT_EQ(entries[1].cases, "Profiles.*");
    EXPECT_EQ(entries[1].case_timeout_s, 300);
}

TEST(Catalogue, CaseTimeoutOutOfRange)
{
    for (const char *bad : {"0", "1801", "soon"}) {
        std::vector<std::string> problems;
        parse(std::string(R"(schema: hcts-selftest-catalogue
schema_version: 1
entries:
  - id: p
    kind: profile
    area: notify
    what: w
    profile: {clause: P.1, outcome: binary}
    case_timeout: )") +
                  bad + "\n",
              problems);
        ASSERT_EQ(problems.size(), 1u) << bad;
        EXPECT_NE(problems[0].find("t.yaml:9: entry 'p': case_timeout is '" + std::string(bad) +
                                   "'; allowed: a deadline per case from 1 to 1800 seconds"),
                  std::string::npos)
            << problems[0];
    }
}

TEST(Catalogue, ClearErrorsWithLines)
{
    std::vector<std::string> problems;
    parse(R"(schema: hcts-selftest-catalogue
schema_version: 1
entries:
  - id: w
    kind: wrongish
    area: notify
    what: w
  - id: v
    kind: wrong
    area: nowhere
    what: w
    fails: [A.9]
    colour: red
)",
          problems);
    ASSERT_EQ(problems.size(), 4u);
    EXPECT_NE(problems[0].find("t.yaml:5: entry 'w': kind is 'wrongish'; allowed: wrong, legal, profile, mutant"),
              std::string::npos)
        << problems[0];
    std::string all;
    for (const auto &p : problems)
        all += p + "\n";
    EXPECT_NE(all.find("t.yaml:13: unknown field 'colour'"), std::string::npos) << all;
    EXPECT_NE(all.find("t.yaml:10: entry 'v': area is 'nowhere'"), std::string::npos) << all;
    EXPECT_NE(all.find("t.yaml:12: entry 'v': 'fails' names 'A.9'"), std::string::npos) << all;
}

TEST(Catalogue, DuplicateIds)
{
    Entry a, b;
    a.id = b.id = "same";
    a.file = "x.yaml:3";
    b.file = "y.yaml:7";
    std::vector<std::string> problems;
    check_unique({a, b}, problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("y.yaml:7: id 'same' is already used at x.yaml:3"), std::string::npos);
}

TEST(Coverage, MustRestsOnAVendorPromise)
{
    const hcts::Catalogue c = hcts::Catalogue::parse(R"(
catalogue_version: 1
clauses:
  - {id: M.1, title: t, statement: s, source: x, source_class: reference, kind: MUST, area: a}
  - {id: M.2, title: t, statement: s, source: x, source_class: vendor-test, kind: MUST, area: a}
  - {id: S.1, title: t, statement: s, source: x, source_class: reference, kind: STRICT, area: a}
)",
                                                     "test-clauses.yaml");
    std::string all;
    for (const auto &x : check_coverage({}, c, {}, std::nullopt))
        all += x + "\n";
    EXPECT_NE(all.find("MUST clause M.1 has source_class 'reference'"), std::string::npos) << all;
    EXPECT_EQ(all.find("clause M.2 has source_class"), std::string::npos) << all;
    EXPECT_EQ(all.find("clause S.1 has source_class"), std::string::npos) << all;
}

TEST(Coverage, SaysWhatIsMissing)
{
    const auto guards = guards_in("if (hcts::mutant(\"ref_a\")) {}\nx = hcts::mutant( \"sv_b\" );\n", "src/f.cpp");
    ASSERT_EQ(guards.size(), 2u);
    EXPECT_EQ(guards[1].where, "src/f.cpp:2");
    Entry m = mutant();
    m.id = "ref_a";
    m.fails = std::vector<std::string>{"A.1"};
    Entry orphan = mutant();
    orphan.id = "ref_gone";
    orphan.file = "m.yaml:9";
    Entry p;
    p.kind = "profile";
    p.profile = ProfileExpectation{"P.1", "binary"};
    const auto problems = check_coverage({m, orphan, p}, clauses(), guards, std::nullopt);
    std::string all;
    for (const auto &x : problems)
        all += x + "\n";
    EXPECT_NE(all.find("no wrong or mutant entry fails A.2 (MUST)"), std::string::npos) << all;
    EXPECT_NE(all.find("no wrong or mutant entry fails S.1 (STRICT)"), std::string::npos) << all;
    EXPECT_EQ(all.find("fails A.1"), std::string::npos) << all;
    EXPECT_NE(all.find("src/f.cpp:2: guard hcts::mutant(\"sv_b\") has no mutant entry"), std::string::npos) << all;
    EXPECT_NE(all.find("m.yaml:9: mutant 'ref_gone' has no hcts::mutant(\"ref_gone\") guard"), std::string::npos)
        << all;
    EXPECT_NE(all.find("2 mutants in the catalogue; at least 40"), std::string::npos) << all;
    // P.1: one outcome left, which may be the reference's own: fine without --reference.
    EXPECT_EQ(all.find("P.1"), std::string::npos) << all;
    // L13: two outcomes without an entry: one more is needed.
    EXPECT_NE(all.find("WWN.LIT.13 outcomes cumulative, not-cumulative"), std::string::npos) << all;
    // With the reference's results, its own outcome needs no entry and the other one does.
    const json ref = {{"clauses", {{{"id", "P.1"}, {"profile", {{"observed", "binary"}}}}}}};
    const auto with_ref = check_coverage({m, p}, clauses(), guards, ref);
    all.clear();
    for (const auto &x : with_ref)
        all += x + "\n";
    EXPECT_NE(all.find("no profile entry produces P.1 outcome 'counting' (the reference's own is 'binary')"),
              std::string::npos)
        << all;
}

// strict_fails: one run (the default gate) also judges the strict gate from its verdicts.
TEST(Judge, LegalStrictFailsJudgedFromOneRun)
{
    Entry e;
    e.kind = "legal";
    e.iut = "shim:vendor";
    e.strict_fails = std::vector<std::string>{"S.1", "S.2"};
    auto verdicts = with(with(all_pass, "S.1", "FAIL"), "S.2", "HAZARD");
    const auto j = judge(e, finished(results(verdicts, "pass")));
    EXPECT_TRUE(j.ok) << (j.problems.empty() ? "" : j.problems[0]);
    EXPECT_EQ(j.strict_gate, "fail");
    EXPECT_EQ(j.verdict, "passes the default gate; the strict gate fails on exactly S.1, S.2");

    // A declared clause that passes: the entry says more than the run shows.
    const auto passing = judge(e, finished(results(with(verdicts, "S.2", "PASS"), "pass")));
    EXPECT_FALSE(passing.ok);
    EXPECT_NE(passing.problems.at(0).find("S.2 is PASS; strict_fails expects FAIL or HAZARD"), std::string::npos)
        << passing.problems[0];

    // An undeclared STRICT clause that fails: not exactly the declared ones.
    const auto extra = judge(e, finished(results(with(verdicts, "S.3", "FAIL"), "pass")));
    EXPECT_FALSE(extra.ok);
    EXPECT_NE(extra.problems.at(0).find("S.3 is FAIL (why); expected PASS or PROFILE (a STRICT clause not in "
                                        "strict_fails)"),
              std::string::npos)
        << extra.problems[0];

    // The default gate still decides first.
    const auto must = judge(e, finished(results(with(verdicts, "A.1", "FAIL"), "fail")));
    EXPECT_FALSE(must.ok);
    EXPECT_NE(must.problems.at(0).find("the default gate is 'fail'"), std::string::npos) << must.problems[0];

    // A property or litmus entry breaking an undeclared STRICT clause fails the strict gate too.
    auto doc = results(verdicts, "pass");
    doc["properties"] = json::array(
        {{{"name", "FullModel"}, {"verdict", "FAIL"}, {"failed_clause", {{"id", "S.4"}, {"kind", "STRICT"}}}},
         {{"name", "AddressChecks"},
          {"verdict", "PASS"},
          {"departures", {{{"clause", "S.5"}, {"kind", "STRICT"}, {"count", 2}}}}}});
    const auto props = judge(e, finished(doc));
    EXPECT_FALSE(props.ok);
    std::string all;
    for (const auto &p : props.problems)
        all += p + "\n";
    EXPECT_NE(all.find("properties FullModel fails STRICT clause S.4, which strict_fails does not name"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("properties AddressChecks departs from STRICT clause S.5, which strict_fails does not name"),
              std::string::npos)
        << all;
    // Declared, they are part of what the strict gate fails on.
    e.strict_fails->push_back("S.4");
    e.strict_fails->push_back("S.5");
    doc["clauses"].push_back({{"id", "S.4"}, {"kind", "STRICT"}, {"verdict", "FAIL"}});
    doc["clauses"].push_back({{"id", "S.5"}, {"kind", "STRICT"}, {"verdict", "FAIL"}});
    const auto declared = judge(e, finished(doc));
    EXPECT_TRUE(declared.ok) << (declared.problems.empty() ? "" : declared.problems[0]);

    // strict_fails: [] claims the strict gate passes as well.
    e.strict_fails->clear();
    const auto both = judge(e, finished(results(all_pass, "pass")));
    EXPECT_TRUE(both.ok) << (both.problems.empty() ? "" : both.problems[0]);
    EXPECT_EQ(both.strict_gate, "pass");
    EXPECT_EQ(both.verdict, "passes the default and the strict gate");
    const auto not_both = judge(e, finished(results(with(all_pass, "S.1", "FAIL"), "pass")));
    EXPECT_FALSE(not_both.ok);
    all.clear();
    for (const auto &p : not_both.problems)
        all += p + "\n";
    EXPECT_NE(all.find("the strict gate, recomputed from the same verdicts, is 'fail'; strict_fails [] expects "
                       "'pass'"),
              std::string::npos)
        << all;
}

TEST(Catalogue, StrictFailsNamesStrictClausesOfALegalShim)
{
    std::vector<std::string> problems;
    const auto entries = parse(R"(schema: hcts-selftest-catalogue
schema_version: 1
entries:
  - {id: vendor, kind: legal, area: bounds, what: x, iut: "shim:v", strict_fails: [S.1]}
  - {id: kinds, kind: legal, area: bounds, what: x, iut: "shim:v", strict_fails: [A.1, P.1, X.9]}
  - {id: on_reference, kind: legal, area: bounds, what: x, strict_fails: [S.1]}
  - {id: w, kind: wrong, area: bounds, what: x, fails: [A.1], strict_fails: [S.1]}
)",
                               problems);
    ASSERT_EQ(entries.size(), 4U);
    ASSERT_TRUE(entries[0].strict_fails.has_value());
    EXPECT_EQ(*entries[0].strict_fails, std::vector<std::string>{"S.1"});
    std::string all;
    for (const auto &p : problems)
        all += p + "\n";
    EXPECT_EQ(problems.size(), 5U) << all;
    EXPECT_NE(all.find("t.yaml:5: entry 'kinds': strict_fails names A.1, which is MUST; allowed: STRICT clauses"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("entry 'kinds': strict_fails names P.1, which is PROFILE"), std::string::npos) << all;
    EXPECT_NE(all.find("entry 'kinds': 'strict_fails' names 'X.9', which is not a clause"), std::string::npos) << all;
    EXPECT_NE(all.find("t.yaml:6: entry 'on_reference': strict_fails needs the default gate"), std::string::npos)
        << all;
    EXPECT_NE(all.find("t.yaml:7: entry 'w': 'strict_fails' does not apply to kind wrong"), std::string::npos) << all;
}

TEST(Focus, CasesNamingADeclaredClauseOnly)
{
    const auto cases = parse_case_list("Vis.One WWN.VIS.1,WWN.VIS.2\nIdx.Bounds WWN.IDX.2\n\nBatch.Order API.BT.3\n");
    ASSERT_EQ(cases.size(), 3U);
    EXPECT_EQ(cases[0].clauses, (std::vector<std::string>{"WWN.VIS.1", "WWN.VIS.2"}));
    auto e = mutant();
    e.fails = std::vector<std::string>{"WWN.VIS.2"};
    e.may_fail = {"API.BT.3"};
    EXPECT_EQ(focus_filter(e, cases), "Vis.One:Batch.Order");
    e.fails = std::vector<std::string>{"NO.SUCH"};
    e.may_fail.clear();
    EXPECT_EQ(focus_filter(e, cases), ""); // no case names it: the whole suite runs
    EXPECT_EQ(focus_filter(mutant(), cases), "");
}

TEST(Focus, FocusCasesMustBeCasesOfTheSuite)
{
    const auto cases = parse_case_list("Vis.One WWN.VIS.1\nIdx.Many WWN.IDX.1\n");
    EXPECT_EQ(unknown_cases("Idx.Many", cases), "");
    EXPECT_EQ(unknown_cases("Idx.Many:Vis.One", cases), "");
    EXPECT_EQ(unknown_cases("Idx.Many:Idx.*:Vis.Two", cases), "'Idx.*', 'Vis.Two'");
}

// focus_cases names the cases that kill a mutant without declared clauses in CI; a
// mutant with fails is focused on them already, and no other kind takes it.
TEST(Catalogue, FocusCasesOnlyForAnApiMutantWithoutFails)
{
    const std::string head = "schema: hcts-selftest-catalogue\nschema_version: 1\nentries:\n";
    std::vector<std::string> problems;
    auto out =
        parse(head + "  - {id: ref_a, kind: mutant, area: notify, what: w, focus_cases: \"Idx.Many\"}\n", problems);
    ASSERT_TRUE(problems.empty()) << problems[0];
    EXPECT_EQ(out.at(0).focus_cases, "Idx.Many");
    parse(head + "  - {id: ref_b, kind: mutant, area: notify, what: w, fails: [A.1], focus_cases: \"Idx.Many\"}\n",
          problems);
    parse(head + "  - {id: w, kind: wrong, area: notify, what: w, iut: shim:x, fails: [A.1], focus_cases: \"I.M\"}\n",
          problems);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_NE(problems[0].find("focus_cases is for an API mutant without fails"), std::string::npos) << problems[0];
    EXPECT_NE(problems[1].find("'focus_cases' does not apply to kind wrong"), std::string::npos) << problems[1];
}

TEST(Catalogue, AloneIsTrueOrFalse)
{
    const std::string head = "schema: hcts-selftest-catalogue\nschema_version: 1\nentries:\n";
    std::vector<std::string> problems;
    auto out = parse(head + "  - {id: ref_a, kind: mutant, area: notify, what: w, alone: true}\n"
                            "  - {id: ref_b, kind: mutant, area: notify, what: w}\n",
                     problems);
    ASSERT_TRUE(problems.empty()) << problems[0];
    EXPECT_TRUE(out.at(0).alone);
    EXPECT_FALSE(out.at(1).alone);
    parse(head + "  - {id: ref_c, kind: mutant, area: notify, what: w, alone: sometimes}\n", problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("alone is 'sometimes'; allowed: true, false"), std::string::npos) << problems[0];
}

TEST(Focus, MalformedCaseListIsRefusedWithItsLine)
{
    EXPECT_THROW(parse_case_list("Vis.One WWN.VIS.1\nno-clauses-here\n"), std::runtime_error);
    EXPECT_THROW(parse_case_list("Vis.One A.1 B.2\n"), std::runtime_error);
    try {
        parse_case_list("A.b X.1\nbroken\n");
    } catch (const std::runtime_error &err) {
        EXPECT_NE(std::string(err.what()).find("line 2"), std::string::npos) << err.what();
    }
}

// A focused run judges what its cases judged: a declared kill must still be
// there, another clause those cases judge must still pass; clauses not run are
// not looked at (they are absent from the document, listed as not_run).
TEST(Focus, FocusedRunJudgedOnTheClausesItRan)
{
    auto e = mutant();
    e.fails = std::vector<std::string>{"A.1"};
    EXPECT_TRUE(judge(e, finished(results({{"A.1", "FAIL"}}, "fail"))).ok);
    EXPECT_FALSE(judge(e, finished(results({{"A.1", "PASS"}}, "fail"))).ok);
    EXPECT_FALSE(judge(e, finished(results({{"A.1", "FAIL"}, {"A.2", "FAIL"}}, "fail"))).ok);
}
