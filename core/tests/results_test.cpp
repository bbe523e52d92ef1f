// The one results writer: every document it writes carries verdicts derived by
// the gate, and a run that did not complete never gates "pass".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hcts/core/catalogue.h"
#include "hcts/core/results.h"
#include "hcts/expectations.h"

using namespace hcts;
using nlohmann::json;

namespace {

const char *kCatalogue = R"(catalogue_version: 1
clauses:
  - {id: A.1, title: t, statement: s, source: src, source_class: vendor-test, kind: MUST, area: a}
  - {id: A.2, title: t, statement: s, source: src, source_class: reference, kind: STRICT, area: a}
  - {id: A.3, title: t, statement: s, source: src, source_class: vendor-code, kind: PROFILE, area: a, allowed: [x, y]}
)";

json a_case(const std::string &name, const std::string &clause, const std::string &verdict)
{
    const json reason = verdict == "PASS" ? json(nullptr) : json("because");
    return {{"name", name},
            {"clauses", {clause}},
            {"verdict", verdict},
            {"reason", reason},
            {"clause_verdicts", {{clause, {{"verdict", verdict}, {"reason", reason}, {"profile", nullptr}}}}}};
}

RunInfo run_of(const std::string &kind)
{
    RunInfo r;
    r.kind = kind;
    return r;
}

class Writer : public ::testing::Test {
  protected:
    std::string path(const std::string &name) const { return std::string(HCTS_TEST_TMP) + "/" + name + ".json"; }
    json on_disk(const std::string &p) const
    {
        std::ifstream in(p);
        return json::parse(in);
    }
    Catalogue cat = Catalogue::parse(kCatalogue, "test-catalogue");
};

} // namespace

TEST_F(Writer, DerivesClausesFromCasesAndGatesOnlyACompleteRun)
{
    ResultsWriter w(path("complete"), run_of("conformance"), &cat, nullptr);
    EXPECT_EQ(on_disk(path("complete"))["run"]["status"], "running");
    w.add_case(a_case("S.One", "A.1", "PASS"));
    w.add_case(a_case("S.Two", "A.2", "PASS"));
    EXPECT_EQ(w.doc()["summary"]["not_run"], json::array({"A.3"}));
    EXPECT_FALSE(w.gate_passed()) << "a clause never decided";
    w.add_case(a_case("S.Three", "A.3", "PROFILE"));
    EXPECT_FALSE(w.gate_passed()) << "still running";
    w.finish(RunStatus::Complete);
    EXPECT_TRUE(w.gate_passed());
    const json d = on_disk(path("complete"));
    EXPECT_EQ(d["summary"]["gate"], "pass");
    EXPECT_EQ(d["clauses"][0]["verdict"], "PASS");
    EXPECT_EQ(d["clauses"][0]["cases"], json::array({"S.One"}));
    EXPECT_EQ(d["clauses"][0]["source_class"], "vendor-test");
    EXPECT_EQ(d["clauses"][1]["source_class"], "reference");
    EXPECT_EQ(d["run"]["suite_version"], suite_version());
    EXPECT_EQ(d["run"]["catalogue_version"], 1);
}

TEST(Catalogue, NeedsAVersionAndKeepsTheFunctionsOfEachClause)
{
    const auto c = Catalogue::parse(
        "catalogue_version: 3\nclauses:\n  - {id: A.1, title: t, statement: s, source: x, "
        "source_class: seed, kind: MUST, area: a, functions: [HcommWriteOnThread, HcommReadOnThread]}\n",
        "versioned");
    EXPECT_EQ(c.version(), 3);
    EXPECT_EQ(c.clauses().at(0).functions, (std::vector<std::string>{"HcommWriteOnThread", "HcommReadOnThread"}));
    for (const char *bad :
         {"clauses: []\n", "catalogue_version: 0\nclauses: []\n", "catalogue_version: two\nclauses: []\n"}) {
        try {
            (void)Catalogue::parse(bad, "unversioned");
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const std::runtime_error &e) {
            EXPECT_NE(std::string(e.what()).find("catalogue_version"), std::string::npos) << e.what();
        }
    }
}

TEST(Catalogue, NeedsAKnownSourceClass)
{
    const std::string head = "catalogue_version: 1\nclauses:\n  - {id: A.1, title: t, statement: s, source: x, "
                             "kind: MUST, area: a";
    for (const std::string &tail : {std::string("}\n"), std::string(", source_class: hearsay}\n")}) {
        try {
            (void)Catalogue::parse(head + tail, "classes");
            ADD_FAILURE() << "accepted: " << head + tail;
        } catch (const std::runtime_error &e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("'A.1'"), std::string::npos) << what;
            EXPECT_NE(what.find("source_class"), std::string::npos) << what;
            if (tail.find("hearsay") != std::string::npos) {
                EXPECT_NE(what.find("allowed: seed, vendor-doc, vendor-code, vendor-test, reference"),
                          std::string::npos)
                    << what;
            }
        }
    }
}

TEST_F(Writer, AnAbortedRunFailsTheGate)
{
    ResultsWriter w(path("aborted"), run_of("property"), nullptr, nullptr);
    w.add_property({{"name", "P"}, {"verdict", "PASS"}});
    w.set_error("a rank died");
    w.finish(RunStatus::Aborted);
    EXPECT_FALSE(w.gate_passed());
    EXPECT_EQ(on_disk(path("aborted"))["run"]["error"], "a rank died");
}

TEST_F(Writer, ErrorAndFailedPropertiesFailTheGate)
{
    {
        ResultsWriter w(path("error"), run_of("conformance"), &cat, nullptr);
        w.add_case(a_case("S.One", "A.1", "ERROR"));
        w.add_case(a_case("S.Two", "A.2", "PASS"));
        w.add_case(a_case("S.Three", "A.3", "PROFILE"));
        w.finish(RunStatus::Complete);
        EXPECT_FALSE(w.gate_passed());
        EXPECT_EQ(w.doc()["clauses"][0]["reason"], "S.One: because");
    }
    {
        ResultsWriter w(path("property"), run_of("property"), nullptr, nullptr);
        w.add_property({{"name", "P"}, {"verdict", "FAIL"}});
        w.finish(RunStatus::Complete);
        EXPECT_FALSE(w.gate_passed());
        EXPECT_EQ(w.doc()["summary"]["by_verdict"]["FAIL"], 1);
    }
    {
        ResultsWriter w(path("no-verdict"), run_of("property"), nullptr, nullptr);
        w.add_property({{"name", "P"}});
        w.finish(RunStatus::Complete);
        EXPECT_FALSE(w.gate_passed()) << "a property without a verdict is no evidence";
    }
}

TEST_F(Writer, StrictGateAlsoNeedsStrictClauses)
{
    for (const char *mode : {"default", "strict"}) {
        RunInfo run = run_of("conformance");
        run.gate = mode;
        ResultsWriter w(path(std::string("gate-") + mode), run, &cat, nullptr);
        w.add_case(a_case("S.One", "A.1", "PASS"));
        w.add_case(a_case("S.Two", "A.2", "FAIL"));
        w.add_case(a_case("S.Three", "A.3", "PROFILE"));
        w.finish(RunStatus::Complete);
        EXPECT_EQ(w.gate_passed(), std::string(mode) == "default") << mode;
        EXPECT_EQ(w.doc()["summary"]["strict_total"], 1);
        EXPECT_EQ(w.doc()["summary"]["gate_mode"], mode);
    }
    RunInfo bad = run_of("conformance");
    bad.gate = "lenient";
    EXPECT_THROW(ResultsWriter(path("bad"), bad, &cat, nullptr), std::invalid_argument);
}

TEST_F(Writer, AppliesExpectationsOnEveryWrite)
{
    const auto set =
        expectations::ExpectationSet::parse("schema: hcts-expectations\nschema_version: 1\nexpectations:\n"
                                            "  - {clause: A.1, expected: ERROR, reason: adapter lacks local copy}\n",
                                            "exp.yaml");
    ResultsWriter w(path("waived"), run_of("conformance"), &cat, &set);
    w.add_case(a_case("S.One", "A.1", "ERROR"));
    w.add_case(a_case("S.Two", "A.2", "PASS"));
    w.add_case(a_case("S.Three", "A.3", "PROFILE"));
    w.finish(RunStatus::Complete);
    EXPECT_EQ(on_disk(path("waived"))["clauses"][0]["verdict"], "WAIVED");
    EXPECT_TRUE(w.gate_passed());
}

TEST_F(Writer, PropertiesMergeIntoTheRunAndGateByTheirClauses)
{
    ResultsWriter w(path("merge"), run_of("conformance"), &cat, nullptr);
    w.add_case(a_case("S.One", "A.1", "PASS"));
    w.add_case(a_case("S.Two", "A.2", "PASS"));
    w.add_case(a_case("S.Three", "A.3", "PROFILE"));
    w.finish(RunStatus::Complete);
    json doc = w.doc();
    json prop = {{"schema", "hcts-results"},
                 {"run", {{"status", "complete"}, {"id", "p"}}},
                 {"properties", {{{"name", "StrictOnly"}, {"clauses", {"A.2"}}, {"verdict", "FAIL"}}}}};
    merge_properties(doc, prop);
    EXPECT_EQ(doc["summary"]["gate"], "pass") << "a property of STRICT clauses only gates in strict mode";
    doc["run"]["gate"] = "strict";
    expectations::summarize(doc);
    EXPECT_EQ(doc["summary"]["gate"], "fail");
    doc["run"]["gate"] = "default";
    prop["properties"][0]["clauses"] = {"A.1", "A.2"};
    prop["properties"][0]["name"] = "Mixed";
    merge_properties(doc, prop);
    EXPECT_EQ(doc["summary"]["gate"], "fail") << "a property naming a MUST clause gates always";

    json fresh = w.doc();
    json aborted = {{"schema", "hcts-results"}, {"run", {{"status", "aborted"}, {"id", "q"}, {"error", "boom"}}}};
    merge_properties(fresh, aborted);
    EXPECT_EQ(fresh["summary"]["gate"], "fail") << "an aborted property run is no evidence";
    EXPECT_EQ(fresh["properties"].back()["verdict"], "ERROR");
    EXPECT_THROW(merge_properties(fresh, json::object()), std::runtime_error);
}

TEST_F(Writer, APropertyGatesByTheKindOfTheClauseItBreaks)
{
    ResultsWriter w(path("prop-clause"), run_of("conformance"), &cat, nullptr);
    w.add_case(a_case("S.One", "A.1", "PASS"));
    w.add_case(a_case("S.Two", "A.2", "PASS"));
    w.add_case(a_case("S.Three", "A.3", "PROFILE"));
    w.finish(RunStatus::Complete);
    const json base = w.doc();
    auto with = [&](json property, const std::string &gate) {
        json doc = base;
        doc["run"]["gate"] = gate;
        json run = {{"schema", "hcts-results"}, {"run", {{"status", "complete"}, {"id", "p"}}}};
        run["properties"] = json::array({std::move(property)});
        merge_properties(doc, run);
        return doc["summary"]["gate"].get<std::string>();
    };
    // A property naming a MUST clause whose counterexample breaks a STRICT one.
    json strictBreach = {{"name", "Mixed"},
                         {"clauses", {"A.1", "A.2"}},
                         {"verdict", "FAIL"},
                         {"failed_clause", {{"id", "A.2"}, {"kind", "STRICT"}}}};
    EXPECT_EQ(with(strictBreach, "default"), "pass");
    EXPECT_EQ(with(strictBreach, "strict"), "fail");
    json mustBreach = strictBreach;
    mustBreach["failed_clause"] = {{"id", "A.1"}, {"kind", "MUST"}};
    EXPECT_EQ(with(mustBreach, "default"), "fail");
    json profileBreach = strictBreach;
    profileBreach["failed_clause"] = {{"id", "A.3"}, {"kind", "PROFILE"}};
    EXPECT_EQ(with(profileBreach, "strict"), "pass");
    // A pass that recorded departures: a STRICT one fails only a strict run.
    json departed = {{"name", "Mixed"},
                     {"clauses", {"A.1", "A.2"}},
                     {"verdict", "PASS"},
                     {"departures",
                      {{{"clause", "A.2"}, {"kind", "STRICT"}, {"count", 3}, {"example", "x"}},
                       {{"clause", "A.3"}, {"kind", "PROFILE"}, {"count", 1}, {"example", "y"}}}}};
    EXPECT_EQ(with(departed, "default"), "pass");
    EXPECT_EQ(with(departed, "strict"), "fail");
    departed["departures"].erase(0);
    EXPECT_EQ(with(departed, "strict"), "pass") << "a PROFILE departure never gates";
    // An ERROR has no counterexample: it gates by the clauses it names.
    json error = {{"name", "E"}, {"clauses", {"A.1", "A.2"}}, {"verdict", "ERROR"}};
    EXPECT_EQ(with(error, "default"), "fail");
}

TEST_F(Writer, ConfigurationsMergeIntoOneDocumentWorstOverAll)
{
    RunInfo plain = run_of("conformance");
    plain.configuration = "plain";
    ResultsWriter w(path("conf-plain"), plain, &cat, nullptr);
    w.add_case(a_case("S.One", "A.1", "PASS"));
    w.add_case(a_case("S.Two", "A.2", "PASS"));
    w.add_case(a_case("S.Three", "A.3", "PROFILE"));
    w.finish(RunStatus::Complete);
    json doc = w.doc();
    EXPECT_EQ(doc["run"]["configuration"], "plain");

    // A subset of the cases in another configuration: its not_run does not count.
    RunInfo seg = run_of("conformance");
    seg.configuration = "segment";
    ResultsWriter s(path("conf-segment"), seg, &cat, nullptr);
    s.add_case(a_case("S.One", "A.1", "FAIL"));
    s.add_litmus({{"id", "L1"}, {"case", "S.One"}, {"outcomes", json::object()}, {"verdict", "PASS"}});
    s.finish(RunStatus::Complete);
    merge_configuration(doc, s.doc());
    EXPECT_EQ(doc["summary"]["gate"], "fail") << "a MUST clause failed in one configuration";
    EXPECT_EQ(doc["clauses"][0]["verdict"], "FAIL");
    EXPECT_EQ(doc["clauses"][0]["configurations"],
              json::parse(R"([{"name":"plain","verdict":"PASS"},{"name":"segment","verdict":"FAIL"}])"));
    EXPECT_EQ(doc["clauses"][1]["configurations"], json::parse(R"([{"name":"plain","verdict":"PASS"}])"));
    EXPECT_EQ(doc["cases"].back()["name"], "S.One@segment");
    EXPECT_EQ(doc["litmus"].back()["case"], "S.One@segment");
    EXPECT_EQ(doc["configurations"].size(), 2U);
    EXPECT_EQ(doc["configurations"][1]["status"], "complete");
    EXPECT_THROW(merge_configuration(doc, s.doc()), std::runtime_error) << "the same configuration twice";

    // A configuration that did not complete fails the gate even with nothing failed.
    json fresh = w.doc();
    RunInfo adv = run_of("conformance");
    adv.configuration = "adversarial";
    ResultsWriter a(path("conf-adv"), adv, &cat, nullptr);
    a.add_case(a_case("S.One", "A.1", "PASS"));
    a.finish(RunStatus::Aborted);
    merge_configuration(fresh, a.doc());
    EXPECT_EQ(fresh["clauses"][0]["verdict"], "PASS");
    EXPECT_EQ(fresh["summary"]["gate"], "fail") << "an aborted configuration is no evidence";
    EXPECT_THROW(merge_configuration(fresh, json::object()), std::runtime_error);
}

// The sections the writer builds itself (run, iut, environment, expectations, the
// clause list), exactly as they have always been written: which fields are null,
// which are present, with what. A reader relies on the shape.
TEST_F(Writer, WritesItsOwnSectionsInTheirKnownShape)
{
    ::setenv("SOURCE_DATE_EPOCH", "1764403200", 1);
    RunInfo info = run_of("conformance");
    info.id = "20261129T080000Z-0001";
    info.command = "hcts-conformance --iut x.so";
    info.transport = "softverbs";
    info.configuration = "segment";
    info.filter = "A.*";
    ResultsWriter w(path("shape"), info, &cat, nullptr);
    json first = w.doc();
    first["environment"]["os"] = "OS";
    first["run"]["suite_version"] = "V";
    w.set_iut_name("libx.so");
    w.set_environment("", 2, {"n1", "n1"});
    w.set_segment_size(0);
    w.add_case(a_case("S.One", "A.1", "PASS"));
    w.set_error("cut short");
    w.finish(RunStatus::Aborted);
    json last = w.doc();
    last["environment"]["os"] = "OS";
    last["run"]["suite_version"] = "V";
    ::unsetenv("SOURCE_DATE_EPOCH");
    EXPECT_EQ(
        first,
        json::parse(
            R"({"adapter":null,"cases":[],"clauses":[],"environment":{"hosts":[],"os":"OS","product":null,"ranks":0,"transport":"softverbs"},"expectations":{"file":null,"waived":[],"xpass":[]},"iut":{"name":null,"path":null,"sha256":null,"version":null},"litmus":[],"properties":[],"run":{"catalogue_version":1,"command":"hcts-conformance --iut x.so","configuration":"segment","filter":"A.*","finished":null,"gate":"default","id":"20261129T080000Z-0001","kind":"conformance","mode":"plain","seed":null,"started":"2025-11-29T08:00:00Z","status":"running","suite_commit":null,"suite_version":"V"},"schema":"hcts-results","schema_version":1,"summary":{"by_verdict":{"CRASH":0,"ERROR":0,"FAIL":0,"HAZARD":0,"NOT_SUPPORTED":0,"PASS":0,"PROFILE":0,"TIMEOUT":0,"WAIVED":0,"XPASS":0},"gate":"fail","gate_mode":"default","judged":"fail","must_passed":0,"must_total":0,"must_waived":0,"not_run":["A.1","A.2","A.3"],"strict_passed":0,"strict_total":0}})"));
    EXPECT_EQ(
        last,
        json::parse(
            R"({"adapter":null,"cases":[{"clause_verdicts":{"A.1":{"profile":null,"reason":null,"verdict":"PASS"}},"clauses":["A.1"],"configuration":"segment","name":"S.One","reason":null,"verdict":"PASS"}],"clauses":[{"area":"a","cases":["S.One"],"configurations":[{"name":"segment","verdict":"PASS"}],"functions":[],"id":"A.1","kind":"MUST","profile":null,"reason":null,"source":"src","source_class":"vendor-test","statement":"s","title":"t","verdict":"PASS"}],"environment":{"hosts":["n1","n1"],"os":"OS","product":null,"ranks":2,"segment_size":null,"transport":"softverbs"},"expectations":{"file":null,"waived":[],"xpass":[]},"iut":{"name":"libx.so","path":null,"sha256":null,"version":null},"litmus":[],"properties":[],"run":{"catalogue_version":1,"command":"hcts-conformance --iut x.so","configuration":"segment","error":"cut short","filter":"A.*","finished":"2025-11-29T08:00:00Z","gate":"default","id":"20261129T080000Z-0001","kind":"conformance","mode":"plain","seed":null,"started":"2025-11-29T08:00:00Z","status":"aborted","suite_commit":null,"suite_version":"V"},"schema":"hcts-results","schema_version":1,"summary":{"by_verdict":{"CRASH":0,"ERROR":0,"FAIL":0,"HAZARD":0,"NOT_SUPPORTED":0,"PASS":1,"PROFILE":0,"TIMEOUT":0,"WAIVED":0,"XPASS":0},"gate":"fail","gate_mode":"default","judged":"fail","must_passed":1,"must_total":1,"must_waived":0,"not_run":["A.2","A.3"],"strict_passed":0,"strict_total":0}})"));
}
