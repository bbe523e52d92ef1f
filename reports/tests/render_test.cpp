// The renderers on recorded results documents (fixtures/): what each output
// must say for a passing run, failures, a timeout, an XPASS, a NOT_SUPPORTED-only
// run and two runs side by side; and the reader's error messages.
#include <initializer_list>
#include <iostream>
#include <random>
#include <regex>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <hcts/expectations.h>

#include "renderers.h"
#include "results_io.h"
#include "test_support.h"
#include "text.h"

namespace {

using namespace hcts::report;

using hcts::report::test::fixture;
using hcts::report::test::test_seed;

struct Rendered {
    std::vector<Run> runs;
    std::string html, md, junit;
};

Rendered render(const std::vector<std::string> &names, const std::string &expectations = "")
{
    Rendered r;
    for (const auto &n : names)
        r.runs.push_back(load_run(fixture(n)));
    std::optional<hcts::expectations::ExpectationSet> set;
    if (!expectations.empty())
        set = hcts::expectations::ExpectationSet::load(fixture(expectations));
    prepare_runs(r.runs, set ? &*set : nullptr);
    const RenderInfo info{"2026-11-29T09:00:00Z", expectations};
    r.html = render_html(r.runs, info);
    r.md = render_markdown(r.runs, info);
    r.junit = render_junit(r.runs, info);
    return r;
}

std::size_t count(const std::string &text, const std::string &what)
{
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

// The attribute of the root <testsuites> element.
std::string junit_total(const std::string &junit, const std::string &attr)
{
    std::smatch m;
    const std::regex re("<testsuites [^>]*\\b" + attr + "=\"([^\"]*)\"");
    return std::regex_search(junit, m, re) ? m[1].str() : "<missing>";
}

// Each snippet must (expect_contains) or must not (expect_lacks) occur in
// `text`. A failure names the snippet and the line of the caller.
void expect_snippets(std::string_view text, std::initializer_list<std::string_view> snippets, bool wanted,
                     const std::source_location &at)
{
    for (const auto snippet : snippets)
        if ((text.find(snippet) != std::string_view::npos) != wanted)
            ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
                << (wanted ? "missing: " : "present: ") << snippet;
}

void expect_contains(std::string_view text, std::initializer_list<std::string_view> snippets,
                     const std::source_location &at = std::source_location::current())
{
    expect_snippets(text, snippets, true, at);
}

void expect_lacks(std::string_view text, std::initializer_list<std::string_view> snippets,
                  const std::source_location &at = std::source_location::current())
{
    expect_snippets(text, snippets, false, at);
}

// Attributes of the root <testsuites> element, each with its expected value.
void expect_totals(const std::string &junit, std::initializer_list<std::pair<std::string, std::string>> totals,
                   const std::source_location &at = std::source_location::current())
{
    for (const auto &[attr, value] : totals)
        if (const auto actual = junit_total(junit, attr); actual != value)
            ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
                << "<testsuites " << attr << "=\"" << actual << "\">, expected \"" << value << "\"";
}

// The <tr> of one clause in the HTML clause table of run `r`.
std::string clause_row(const std::string &html, int r, const std::string &id)
{
    const auto start = html.find("id=\"r" + std::to_string(r) + "-" + id + "\"");
    if (start == std::string::npos)
        return {};
    const auto end = html.find("<tr class=\"clause-row\"", start);
    return html.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(Render, PassingRun)
{
    const auto r = render({"pass.json"});
    EXPECT_EQ(count(r.html, "<tr class=\"clause-row\""), 11U);
    expect_contains(r.html, {"id=\"overall-verdict\" data-verdict=\"PASS\"", "data-gate=\"pass\" data-clauses=\"11\"",
                             "<svg class=\"hist\""});
    // Self-contained: nothing is fetched.
    expect_lacks(r.html, {"src=\"http", "href=\"http", "<link"});
    expect_contains(r.md,
                    {"## hcts compliance: ✅ PASS — reference", "**MUST clauses passed:** 8 of 8", "No clause failed."});
    // 11 clauses, 2 properties; litmus cases report through clauses.
    expect_totals(r.junit, {{"tests", "13"}, {"failures", "0"}, {"errors", "0"}, {"skipped", "0"}});
    // Per-case time summed per clause: WWN.VIS.1 has 412.5 + 388.0 + 2210.4 ms.
    expect_contains(r.junit, {"name=\"WWN.VIS.1: Data is visible when the notify is seen\" time=\"3.011\"",
                              "observed profile: binary"});
}

TEST(Render, RunWithFailuresShowsEvidence)
{
    const auto r = render({"failures.json"});
    const auto row = clause_row(r.html, 0, "WWN.IDX.2");
    ASSERT_FALSE(row.empty());
    EXPECT_NE(row.find("<details class=\"evidence\" open>"), std::string::npos) << "failing evidence must be open";
    expect_contains(row, {"data-verdict=\"FAIL\"", "returned 0 (HCCL_SUCCESS); expected HCCL_E_PARA (4)",
                          "./hcts run --filter &#39;NotifyIndex.AtNotifyNum&#39;", "rank 1</span> notify 0 raised"});
    // Passing clauses stay closed.
    expect_lacks(clause_row(r.html, 0, "WWN.PTR.1"), {" open>"});
    // The seed of a randomised case is shown with its reproducer.
    expect_contains(clause_row(r.html, 0, "WWN.VIS.1"), {"HCTS_SEED=43 ./hcts run"});
    expect_contains(r.html, {"id=\"overall-verdict\" data-verdict=\"FAIL\"",
                             // The observed stale outcomes are drawn as a red bar, visible although rare.
                             "data-outcome=\"stale\" x=\"92\" y=\"27\" width=\"3.0\" height=\"16\" fill=\"#cf222e\"",
                             // The failed property with its shrunk counterexample.
                             "<li><code>WWN(ch=0, off=8, len=1, idx=4)</code></li>",
                             "coalescing (record returns success, notify lost)"});

    expect_contains(r.md, {"❌ FAIL", "| `WWN.IDX.2` | MUST | **FAIL** | NotifyIndex.AtNotifyNum: remoteNotifyIdx 4",
                           "| `WWN.PROF.1` | PROFILE (vendor-code) | **HAZARD** |",
                           "NotifyIndexModel (seed 8812, 12 shrinks)"});
    // The promise a clause rests on is shown where the document records it, and only there.
    expect_contains(clause_row(r.html, 0, "WWN.PROF.1"), {"<div class=\"muted small source-class\">vendor-code</div>",
                                                          "Source (vendor-code): documents silent"});
    expect_lacks(clause_row(r.html, 0, "WWN.IDX.2"), {"source-class"});
    expect_totals(r.junit, {{"failures", "4"}, {"errors", "0"}}); // failures: two FAIL, one HAZARD, one property
    expect_contains(r.junit,
                    {"<testcase classname=\"hcts.property\" name=\"NotifyIndexModel\"", "<failure type=\"HAZARD\""});
}

TEST(Render, FunctionCoverageTable)
{
    // Function x clause x verdict, from the clauses' `functions`; a document without them has no table.
    const auto r = render({"failures.json"});
    expect_contains(r.md, {"Coverage by function (2 functions)", "| `HcclChannelAcquire` | `WWN.IDX.1` PASS |",
                           "| `HcommWriteWithNotifyOnThread` | `WWN.IDX.1` PASS `WWN.IDX.2` FAIL |"});
    expect_contains(r.html, {"id=\"functions-0\"", "<code>HcclChannelAcquire</code>", "href=\"#r0-WWN.IDX.2\""});
    const auto plain = render({"pass.json"});
    expect_lacks(plain.md, {"Coverage by function"});
    expect_lacks(plain.html, {"id=\"functions-0\""});
}

TEST(Render, TimeoutIsAnErrorWithDiagnostics)
{
    const auto r = render({"timeout.json"});
    expect_contains(r.html, {"data-verdict=\"FAIL\""});
    expect_totals(r.junit, {{"errors", "1"}, {"failures", "0"}});
    expect_contains(r.junit, {"<error type=\"TIMEOUT\" message=\"Ordering.FifoK8: watchdog: case exceeded 30 s\"/>",
                              "time=\"30.000\"", "rank 1: last operation: HcommChannelNotifyWaitOnThread"});
    expect_contains(r.md, {"| `WWN.ORD.1` | MUST | **TIMEOUT** |"});
    expect_contains(clause_row(r.html, 0, "WWN.ORD.1"), {"notify states: [0 0 0 0]"});
}

TEST(Render, XpassFailsTheGateAndIsExplained)
{
    const auto r = render({"xpass.json"});
    EXPECT_EQ(r.runs[0].doc["summary"]["gate"], "fail");
    expect_contains(r.html, {"data-verdict=\"FAIL\""});
    expect_contains(clause_row(r.html, 0, "WWN.VIS.2"), {"the expectation ("});
    expect_contains(clause_row(r.html, 0, "WWN.IDX.2"), {"Waived (was <span class=\"badge v-FAIL\">FAIL</span>)"});
    expect_contains(r.junit, {"<failure type=\"XPASS\""});
    expect_totals(r.junit, {{"skipped", "1"}}); // the waived clause
    expect_contains(r.md, {"| `WWN.VIS.2` | MUST | **XPASS** | passes, but expected FAIL: vendor ticket 1301",
                           "_1 clause(s) waived by vendor.yaml._"});
}

TEST(Render, NotSupportedOnlyRun)
{
    const auto r = render({"not_supported.json"});
    // A MUST clause that is NOT_SUPPORTED is not a pass: the gate fails.
    expect_contains(r.html, {"data-verdict=\"FAIL\""});
    EXPECT_EQ(count(r.html, "<tr class=\"clause-row\""), 11U);
    EXPECT_EQ(count(r.html, "No cases: decided at clause level."), 11U);
    expect_totals(r.junit, {{"skipped", "11"}});
    expect_contains(r.junit, {"not supported: HcommWriteWithNotifyOnThread returned HCCL_E_NOT_SUPPORT"});
    expect_contains(r.md, {"| NOT_SUPPORTED | 11 |"});
}

TEST(Render, TwoRunsSideBySide)
{
    const auto r = render({"pass.json", "failures.json"});
    EXPECT_EQ(count(r.html, "<tr class=\"compare-row\""), 11U);
    EXPECT_EQ(count(r.html, "<b>2</b> of 2"), 8U);
    EXPECT_EQ(count(r.html, "<b>1</b> of 2"), 3U); // WWN.IDX.2, WWN.VIS.1, WWN.PROF.1
    expect_contains(r.html, {"id=\"overall-verdict\" data-verdict=\"FAIL\"", "1 of 2 runs pass the gate.",
                             "<section class=\"run\" id=\"run-1\"",
                             // The matrix links each cell to the clause's evidence in that run's section.
                             "href=\"#r1-WWN.IDX.2\""});
    expect_contains(r.md, {"| Clause | reference | vendor | Passed by |", "| `WWN.IDX.2` | PASS | FAIL | 1 of 2 |"});
    EXPECT_EQ(r.md.find("| `WWN.PTR.1` | PASS | PASS |"), std::string::npos)
        << "agreeing clauses are left out of the comment";
    expect_totals(r.junit, {{"tests", "26"}});
    EXPECT_EQ(count(r.junit, "<testsuite "), 2U);
}

TEST(Render, SameImplementationTwiceGetsDistinctLabels)
{
    const auto r = render({"pass.json", "pass.json"});
    ASSERT_EQ(r.runs.size(), 2U);
    EXPECT_NE(r.runs[0].label, r.runs[1].label);
}

TEST(Render, ExpectationsAtReportTime)
{
    const auto r = render({"failures.json"}, "vendor-expectations.yaml");
    const auto &doc = r.runs[0].doc;
    EXPECT_EQ(doc["expectations"]["waived"], nlohmann::json::array({"WWN.IDX.2"}));
    EXPECT_EQ(doc["expectations"]["xpass"], nlohmann::json::array({"WWN.VIS.2"}));
    EXPECT_EQ(doc["expectations"]["active"], 2); // the ranks: 4 entry does not apply to a 2-rank run
    expect_contains(clause_row(r.html, 0, "WWN.IDX.2"), {"vendor ticket 1234"});
    expect_contains(r.html, {"expectations <code>vendor-expectations.yaml</code>"});
    expect_contains(r.junit, {"<failure type=\"XPASS\""});
}

TEST(Render, TextFromTheImplementationIsEscaped)
{
    auto run = load_run(fixture("failures.json"));
    run.doc["cases"][0]["messages"] = {{{"rank", 0}, {"text", "<script>alert(1)</script> & \"q\""}}};
    run.doc["cases"][0]["reason"] = "]]></failure><x";
    std::vector<hcts::report::Run> runs{run};
    prepare_runs(runs, nullptr);
    const RenderInfo info{"t", ""};
    const auto html = render_html(runs, info);
    expect_lacks(html, {"<script>alert"});
    expect_contains(html, {"&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"});
    expect_lacks(render_junit(runs, info), {"]]></failure><x"});
    expect_lacks(render_markdown(runs, info), {"<x"});
}

std::string error_of(std::string_view text)
{
    try {
        parse_results(text, "r.json");
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "<accepted>";
}

TEST(ResultsReader, ClearErrors)
{
    EXPECT_EQ(error_of("{\n  \"schema\": \"hcts-results\",\n  \"schema_version\": 1,\n  oops\n}"),
              "r.json:4:3: malformed JSON: syntax error while parsing object key - invalid literal; last read: "
              "'1,<U+000A>  o'; expected string literal");
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":2,"run":{},"clauses":[]})"),
              "r.json: schema_version 2 is newer than this hcts-report reads; allowed: 1 (update hcts)");
    EXPECT_EQ(error_of(R"({"schema":"hcts-expectations","schema_version":1})"),
              "r.json: schema is 'hcts-expectations'; allowed: 'hcts-results' (is this a results.json?)");
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{}})"),
              "r.json: missing 'clauses'; it must be an array (possibly empty)");
    EXPECT_EQ(
        error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[{"id":"A","verdict":"OK"}]})"),
        "r.json: clauses[0] (A).verdict is \"OK\"; allowed: PASS, PROFILE, WAIVED, NOT_SUPPORTED, HAZARD, XPASS, "
        "ERROR, FAIL, "
        "TIMEOUT, CRASH, null");
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[{"id":"A"},{"id":"A"}]})"),
              "r.json: clauses[1] repeats clause id 'A'");
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[],"cases":[{"name":"x"}]})"),
              "r.json: cases[0] (x) has no verdict");
    // Unknown fields are ignored (append-only evolution).
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{"id":"r","status":"complete"},)"
                       R"("clauses":[],"future":{"x":1}})"),
              "<accepted>");
    // A field of another type than the schema gives it: named, with its value and what is allowed.
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{"id":"r","status":"complete"},)"
                       R"("environment":{"ranks":"two"},"clauses":[]})"),
              "r.json: environment.ranks is \"two\"; allowed: an integer");
    EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[]})"),
              "r.json: run.id is missing; it is required");
}

TEST(ResultsReader, MissingFileIsNamed)
{
    try {
        load_run(fixture("no-such.json"));
        FAIL() << "loaded a missing file";
    } catch (const std::runtime_error &e) {
        EXPECT_EQ(std::string(e.what()),
                  fixture("no-such.json") + ": cannot open for reading: No such file or directory");
    }
}

TEST(ResultsReader, ClauseWithoutVerdictIsNotRun)
{
    auto doc = nlohmann::json::parse(read_file(fixture("pass.json")));
    doc["run"]["status"] = "aborted";
    doc["clauses"][3]["verdict"] = nullptr;
    doc["clauses"][3]["cases"] = nlohmann::json::array({"Never.Ran"});
    std::vector<hcts::report::Run> runs{hcts::report::Run{"x.json", "", "", doc, {}}};
    prepare_runs(runs, nullptr);
    const RenderInfo info{"t", ""};
    EXPECT_EQ(runs[0].doc["summary"]["gate"], "fail");
    const auto html = render_html(runs, info);
    expect_contains(html, {"This run is <b>aborted</b>"});
    expect_contains(clause_row(html, 0, "WWN.IDX.2"), {"badge v-NOT_RUN"});
    expect_contains(render_junit(runs, info), {"<error type=\"NOT RUN\" message=\"the clause did not run\"/>"});
}

} // namespace

namespace {

// Odd documents must render or be refused with a message (the field, its value,
// what is allowed), never crash or throw anything else: replace a random field
// (or a whole object) of a fixture with a value of a random type.
TEST(Render, OddFieldsNeverCrashTheRenderers)
{
    std::mt19937 rng(test_seed(4242));
    const auto base = nlohmann::json::parse(read_file(fixture("failures.json")));
    std::vector<std::string> paths;
    const auto flat = base.flatten();
    for (const auto &[path, value] : flat.items()) {
        paths.push_back(path);
        if (const auto slash = path.find_last_of('/'); slash != std::string::npos && slash > 0)
            paths.push_back(path.substr(0, slash));
    }
    const std::vector<nlohmann::json> values = {nullptr,
                                                7,
                                                -1,
                                                18446744073709551615ULL,
                                                2.5,
                                                "",
                                                "PASS",
                                                "x<y>&",
                                                nlohmann::json::array(),
                                                nlohmann::json::array({1, "a"}),
                                                nlohmann::json::object(),
                                                true};
    const auto set = hcts::expectations::ExpectationSet::load(fixture("vendor-expectations.yaml"));
    int rendered = 0, refused = 0;
    // The renderers read a typed document (results_model.h), which refuses a field of
    // another type than the schema gives it: about one mutation in five renders, so
    // there are enough iterations for over a hundred renderings.
    for (int i = 0; i < 900; ++i) {
        auto doc = base;
        const auto &path = paths[rng() % paths.size()];
        doc[nlohmann::json::json_pointer(path)] = values[rng() % values.size()];
        try {
            check_results(doc, "mutated");
        } catch (const std::runtime_error &) {
            ++refused;
            continue;
        }
        std::vector<hcts::report::Run> runs{hcts::report::Run{"m.json", "m", "", doc, {}}};
        try {
            prepare_runs(runs, i % 2 ? &set : nullptr);
            const RenderInfo info{"t", ""};
            EXPECT_FALSE(render_html(runs, info).empty());
            EXPECT_FALSE(render_markdown(runs, info).empty());
            EXPECT_FALSE(render_junit(runs, info).empty());
            ++rendered;
        } catch (const std::exception &e) {
            ADD_FAILURE() << "iteration " << i << ": setting " << path << " threw: " << e.what();
        }
    }
    std::cout << rendered << " rendered, " << refused << " refused with a message\n";
    EXPECT_GT(rendered, 100);
}

} // namespace

namespace {

// The document as hcts-conformance writes it: per-clause verdicts in cases,
// summary.not_run, nulls for unknown facts.
TEST(Render, ConformanceWriterShape)
{
    const auto r = render({"conformance-shape.json"});
    const auto &doc = r.runs[0].doc;
    for (const auto &cl : doc["clauses"]) {
        if (cl["id"] == "WWN.PTR.1") {
            EXPECT_EQ(cl["verdict"], "PASS") << "a case failing another clause must not fail this one";
        }
        if (cl["id"] == "WWN.IDX.2") {
            EXPECT_EQ(cl["verdict"], "FAIL");
        }
    }
    const auto row = clause_row(r.html, 0, "WWN.PTR.1");
    EXPECT_NE(row.find("case: FAIL"), std::string::npos) << "the case's own verdict is shown where it differs";
    expect_totals(r.junit, {{"tests", "13"}});

    auto filtered = load_run(fixture("conformance-shape.json"));
    filtered.doc["summary"]["not_run"] = {"WWN.NTF.1"};
    std::vector<hcts::report::Run> runs{filtered};
    prepare_runs(runs, nullptr);
    const RenderInfo info{"t", ""};
    EXPECT_EQ(runs[0].doc["summary"]["gate"], "fail");
    expect_contains(render_html(runs, info), {"1 clause(s) not decided by any case"});
    expect_contains(render_markdown(runs, info),
                    {"**1 clause(s) not decided by any case** (filtered or cut-short run): `WWN.NTF.1`"});
    const auto junit = render_junit(runs, info);
    expect_totals(junit, {{"tests", "14"}});
    expect_contains(junit, {"name=\"WWN.NTF.1\" time=\"0.000\">\n      <error type=\"NOT RUN\""});
}

} // namespace

namespace {

// A property run (as hcts-property writes it): no clauses, properties and litmus decide.
TEST(Render, PropertyRun)
{
    const auto r = render({"property.json"});
    const auto &summary = r.runs[0].doc["summary"];
    EXPECT_EQ(summary["gate"], "fail"); // a falsified property fails the run although no clause does
    EXPECT_EQ(summary["by_verdict"]["FAIL"], 1);
    EXPECT_EQ(summary["by_verdict"]["PASS"], 1);
    expect_contains(r.html, {"1<span class=\"muted\"> / 2</span></div>properties passed",
                             "1<span class=\"muted\"> / 2</span></div>litmus tests clean"});
    expect_lacks(r.html, {"MUST clauses passed"});
    expect_totals(r.junit, {{"tests", "4"}, {"failures", "2"}}); // 2 properties, 2 litmus tests
    expect_contains(r.junit, {"name=\"L6 CoWW\""});
    expect_contains(r.md, {"- ChannelModel (seed 991, 17 shrinks): `RC_PARAMS=\"reproduce=BchVaYXZpb3Vy\"`",
                           "- L6 CoWW (FAIL): first 6× in 2000 runs"});

    // Passing properties and clean litmus: the gate passes.
    auto doc = r.runs[0].doc;
    doc["properties"][1]["verdict"] = "PASS";
    doc["litmus"][1]["verdict"] = "PASS";
    hcts::expectations::summarize(doc);
    EXPECT_EQ(doc["summary"]["gate"], "pass");
}

} // namespace

namespace {

TEST(Render, SaysWhyTheGateFails)
{
    EXPECT_TRUE(gate_failures(render({"pass.json"}).runs[0].doc).empty());
    EXPECT_EQ(gate_failures(render({"not_supported.json"}).runs[0].doc),
              std::vector<std::string>{"8 MUST clause(s) neither PASS nor WAIVED (8 NOT_SUPPORTED)"});
    // Under the strict gate the STRICT clauses gate too (hcts::gates_on, the one rule), and say so.
    auto strict = load_run(fixture("not_supported.json"));
    strict.doc["run"]["gate"] = "strict";
    std::vector<hcts::report::Run> strict_runs{strict};
    prepare_runs(strict_runs, nullptr);
    EXPECT_EQ(gate_failures(strict_runs[0].doc),
              (std::vector<std::string>{"8 MUST clause(s) neither PASS nor WAIVED (8 NOT_SUPPORTED)",
                                        "1 STRICT clause(s) neither PASS nor WAIVED (1 NOT_SUPPORTED)"}));
    // A property counts as the gate counts it (hcts::item_gates): a counterexample breaking a
    // STRICT clause, or a STRICT departure, only under the strict gate; an ERROR always.
    const auto why = [](const std::string &gate, const nlohmann::json &property) {
        auto run = load_run(fixture("pass.json"));
        run.doc["run"]["gate"] = gate;
        run.doc["properties"][1] = property;
        std::vector<hcts::report::Run> runs{run};
        prepare_runs(runs, nullptr);
        EXPECT_EQ(runs[0].doc["summary"]["gate"], gate_failures(runs[0].doc).empty() ? "pass" : "fail") << gate;
        return gate_failures(runs[0].doc);
    };
    const nlohmann::json strict_breach = {
        {"name", "P"}, {"verdict", "FAIL"}, {"failed_clause", {{"id", "WWN.STR.1"}, {"kind", "STRICT"}}}};
    EXPECT_TRUE(why("default", strict_breach).empty());
    EXPECT_EQ(why("strict", strict_breach), std::vector<std::string>{"1 property falsified"});
    const nlohmann::json departed = {{"name", "P"},
                                     {"verdict", "PASS"},
                                     {"departures", {{{"clause", "WWN.STR.1"}, {"kind", "STRICT"}, {"count", 2}}}}};
    EXPECT_TRUE(why("default", departed).empty());
    EXPECT_EQ(why("strict", departed), std::vector<std::string>{"departures from gating clauses: P from WWN.STR.1"});
    EXPECT_EQ(why("default", {{"name", "P"}, {"verdict", "ERROR"}}), std::vector<std::string>{"1 property falsified"});
    const auto r = render({"failures.json"});
    EXPECT_EQ(gate_failures(r.runs[0].doc),
              (std::vector<std::string>{"2 MUST clause(s) neither PASS nor WAIVED (2 FAIL)", "1 property falsified",
                                        "1 litmus test(s) failed"}));
    expect_contains(r.html,
                    {"<b>The gate fails:</b> 2 MUST clause(s) neither PASS nor WAIVED (2 FAIL); 1 property falsified"});
    expect_contains(r.md, {"- **The gate fails:** 2 MUST clause(s)"});
    EXPECT_EQ(gate_failures(render({"xpass.json"}).runs[0].doc),
              (std::vector<std::string>{"1 MUST clause(s) neither PASS nor WAIVED (1 XPASS)",
                                        "1 unexpected pass(es): stale expectations"}));
}

} // namespace

// The "Suite strength" section of a selftest.json (hcts-selftest): the kill
// ratio, the kill matrix and every expectation that did not hold, alone or beside a run.
TEST(Render, SuiteStrengthSection)
{
    const auto selftest = nlohmann::json::parse(R"({
      "schema": "hcts-selftest", "schema_version": 1, "ok": false,
      "entries": [
        {"id": "notify_early", "kind": "wrong", "area": "ordering", "verdict": "caught as declared", "ok": true,
         "seconds": 12.5, "reproducer": "mpi_harness/launch --np 2 -- hcts-conformance --iut x.so"},
        {"id": "ref_a", "kind": "mutant", "area": "notify", "verdict": "killed by WWN.NTF.1", "ok": true, "seconds": 9},
        {"id": "ref_b", "kind": "mutant", "area": "bounds", "verdict": "SURVIVED", "ok": false, "seconds": 8}],
      "matrix": {"clauses": ["WWN.NTF.1", "WWN.VIS.1"],
                 "rows": [{"mutant": "ref_a", "killed_by": ["WWN.NTF.1", "WWN.VIS.1"]},
                          {"mutant": "ref_b", "outcome": "TIMEOUT", "killed_by": []}]},
      "kill_ratio": {"killed": 1, "run": 2, "ratio": 0.5},
      "failed": ["ref_b: survived: the default <gate> passes"]})");
    const RenderInfo info{"2026-11-29T09:00:00Z", "", &selftest};
    // Alone: the report's verdict is the self-test's.
    const std::vector<hcts::report::Run> none;
    const auto html = render_html(none, info);
    expect_contains(html, {"id=\"overall-verdict\" data-verdict=\"FAIL\"", "<section id=\"suite-strength\"",
                           "Kill ratio (API-observable mutants): <b>1 of 2</b> (50.0%)", "id=\"kill-matrix\"",
                           "<th class=\"clause\"><code>WWN.VIS.1</code></th>",
                           "<tr data-killed=\"0\"><td><code>ref_b</code></td><td><span class=\"badge v-TIMEOUT\">",
                           "<li>ref_b: survived: the default &lt;gate&gt; passes</li>", "notify_early"});
    EXPECT_EQ(count(html, "●"), 2U);
    const auto junit = render_junit(none, info);
    expect_totals(junit, {{"tests", "3"}, {"failures", "1"}});
    expect_contains(junit, {"classname=\"hcts.selftest.mutant\" name=\"ref_b\""});
    const auto md = render_markdown(none, info);
    expect_contains(md,
                    {"## hcts compliance: ❌ FAIL — suite strength", "### Suite strength: FAIL",
                     "**Kill ratio (API-observable mutants):** 1 of 2 (50.0%)", "| `ref_a` | WWN.NTF.1, WWN.VIS.1 |",
                     "| `ref_b` | **TIMEOUT** |", "- ref_b: survived: the default &lt;gate> passes"});
    // Beside a run: both are there, the run's own sections unchanged.
    auto r = render({"pass.json"});
    const auto both = render_html(r.runs, info);
    expect_contains(both, {"<a href=\"#suite-strength\">Suite strength", "data-gate=\"pass\" data-clauses=\"11\""});
    expect_lacks(r.html, {"suite-strength"});
}

TEST(Render, BenchRunPlotsLatencyAndBandwidth)
{
    const auto r = render({"bench.json"});
    // Two log-log plots, a line per method, and no clause table for a run without clauses.
    EXPECT_EQ(count(r.html, "<svg class=\"bench-plot\""), 2U);
    EXPECT_EQ(count(r.html, "<polyline class=\"series\" data-method=\"hcomm\""), 2U);
    expect_contains(r.html,
                    {"data-method=\"verbs\"", "data-method=\"mpi_osc\"", "data-method=\"memcpy\"",
                     "latency (µs) against message size", "bandwidth (GB/s) against message size",
                     "<b>a ratio is out of bounds</b>", "<td>p1</td>", "bench baseline ratio(s) out of bounds: p1",
                     "data-gate=\"fail\"", "<td>p3_cpu</td>", "64 KiB"});
    expect_lacks(r.html, {"<tr class=\"clause-row\"", "MUST clauses passed"});
    expect_contains(r.md,
                    {"**Benchmark:** medians of 3 samples", "| p1 | latency | 8 |", "| **no** |", "| 65536 | hcomm |"});
    expect_lacks(r.md, {"MUST clauses passed", "No clause failed"});
}
