// The renderers on recorded results documents (fixtures/): what each output
// must say for a passing run, failures, a timeout, an XPASS, a NOT_SUPPORTED-only
// run and two runs side by side; and the reader's error messages.
#include <cstdlib>
#include <iostream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hcts/expectations.h>

#include "renderers.h"
#include "results_io.h"

namespace {

using namespace hcts::report;

std::string fixture(const std::string &name) { return std::string(HCTS_REPORT_FIXTURES) + "/" + name; }

struct Rendered {
  std::vector<Run> runs;
  std::string html, md, junit;
};

Rendered render(const std::vector<std::string> &names, const std::string &expectations = "") {
  Rendered r;
  for (const auto &n : names) r.runs.push_back(load_run(fixture(n)));
  std::optional<hcts::expectations::ExpectationSet> set;
  if (!expectations.empty()) set = hcts::expectations::ExpectationSet::load(fixture(expectations));
  prepare_runs(r.runs, set ? &*set : nullptr);
  const RenderInfo info{"2026-11-29T09:00:00Z", expectations};
  r.html = render_html(r.runs, info);
  r.md = render_markdown(r.runs, info);
  r.junit = render_junit(r.runs, info);
  return r;
}

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The attribute of the root <testsuites> element.
std::string junit_total(const std::string &junit, const std::string &attr) {
  std::smatch m;
  const std::regex re("<testsuites [^>]*\\b" + attr + "=\"([^\"]*)\"");
  return std::regex_search(junit, m, re) ? m[1].str() : "<missing>";
}

// The <tr> of one clause in the HTML clause table of run `r`.
std::string clause_row(const std::string &html, int r, const std::string &id) {
  const auto start = html.find("id=\"r" + std::to_string(r) + "-" + id + "\"");
  if (start == std::string::npos) return {};
  const auto end = html.find("<tr class=\"clause-row\"", start);
  return html.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(Render, PassingRun) {
  const auto r = render({"pass.json"});
  EXPECT_NE(r.html.find("id=\"overall-verdict\" data-verdict=\"PASS\""), std::string::npos);
  EXPECT_EQ(count(r.html, "<tr class=\"clause-row\""), 11U);
  EXPECT_NE(r.html.find("data-gate=\"pass\" data-clauses=\"11\""), std::string::npos);
  // Self-contained: nothing is fetched.
  EXPECT_EQ(r.html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(r.html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(r.html.find("<link"), std::string::npos);
  EXPECT_NE(r.html.find("<svg class=\"hist\""), std::string::npos);
  EXPECT_NE(r.md.find("## hcts compliance: ✅ PASS — reference"), std::string::npos);
  EXPECT_NE(r.md.find("**MUST clauses passed:** 8 of 8"), std::string::npos);
  EXPECT_NE(r.md.find("No clause failed."), std::string::npos);
  EXPECT_EQ(junit_total(r.junit, "tests"), "11");
  EXPECT_EQ(junit_total(r.junit, "failures"), "0");
  EXPECT_EQ(junit_total(r.junit, "errors"), "0");
  EXPECT_EQ(junit_total(r.junit, "skipped"), "0");
  // Per-case time summed per clause: WWN.VIS.1 has 412.5 + 388.0 + 2210.4 ms.
  EXPECT_NE(r.junit.find("name=\"WWN.VIS.1: Data is visible when the notify is seen\" time=\"3.011\""), std::string::npos);
  EXPECT_NE(r.junit.find("observed profile: binary"), std::string::npos);
}

TEST(Render, RunWithFailuresShowsEvidence) {
  const auto r = render({"failures.json"});
  EXPECT_NE(r.html.find("id=\"overall-verdict\" data-verdict=\"FAIL\""), std::string::npos);
  const auto row = clause_row(r.html, 0, "WWN.IDX.2");
  ASSERT_FALSE(row.empty());
  EXPECT_NE(row.find("data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_NE(row.find("<details class=\"evidence\" open>"), std::string::npos) << "failing evidence must be open";
  EXPECT_NE(row.find("returned 0 (HCCL_SUCCESS); expected HCCL_E_PARA (4)"), std::string::npos);
  EXPECT_NE(row.find("./hcts run --filter &#39;NotifyIndex.AtNotifyNum&#39;"), std::string::npos);
  EXPECT_NE(row.find("rank 1</span> notify 0 raised"), std::string::npos);
  // Passing clauses stay closed.
  EXPECT_EQ(clause_row(r.html, 0, "WWN.PTR.1").find(" open>"), std::string::npos);
  // The seed of a randomised case is shown with its reproducer.
  EXPECT_NE(clause_row(r.html, 0, "WWN.VIS.1").find("HCTS_SEED=43 ./hcts run"), std::string::npos);
  // The observed stale outcomes are drawn as a red bar, visible although rare.
  EXPECT_NE(r.html.find("data-outcome=\"stale\" x=\"92\" y=\"27\" width=\"3.0\" height=\"16\" fill=\"#cf222e\""), std::string::npos);
  // The failed property with its shrunk counterexample.
  EXPECT_NE(r.html.find("<li><code>WWN(ch=0, off=8, len=1, idx=4)</code></li>"), std::string::npos);
  EXPECT_NE(r.html.find("coalescing (record returns success, notify lost)"), std::string::npos);

  EXPECT_NE(r.md.find("❌ FAIL"), std::string::npos);
  EXPECT_NE(r.md.find("| `WWN.IDX.2` | MUST | **FAIL** | NotifyIndex.AtNotifyNum: remoteNotifyIdx 4"), std::string::npos);
  EXPECT_NE(r.md.find("| `WWN.PROF.1` | PROFILE | **HAZARD** |"), std::string::npos);
  EXPECT_NE(r.md.find("NotifyIndexModel (seed 8812, 12 shrinks)"), std::string::npos);
  EXPECT_EQ(junit_total(r.junit, "failures"), "3");  // two FAIL, one HAZARD
  EXPECT_EQ(junit_total(r.junit, "errors"), "0");
  EXPECT_NE(r.junit.find("<failure type=\"HAZARD\""), std::string::npos);
}

TEST(Render, TimeoutIsAnErrorWithDiagnostics) {
  const auto r = render({"timeout.json"});
  EXPECT_NE(r.html.find("data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_EQ(junit_total(r.junit, "errors"), "1");
  EXPECT_EQ(junit_total(r.junit, "failures"), "0");
  EXPECT_NE(r.junit.find("<error type=\"TIMEOUT\" message=\"Ordering.FifoK8: watchdog: case exceeded 30 s\"/>"), std::string::npos);
  EXPECT_NE(r.junit.find("time=\"30.000\""), std::string::npos);
  EXPECT_NE(r.junit.find("rank 1: last operation: HcommChannelNotifyWaitOnThread"), std::string::npos);
  EXPECT_NE(r.md.find("| `WWN.ORD.1` | MUST | **TIMEOUT** |"), std::string::npos);
  EXPECT_NE(clause_row(r.html, 0, "WWN.ORD.1").find("notify states: [0 0 0 0]"), std::string::npos);
}

TEST(Render, XpassFailsTheGateAndIsExplained) {
  const auto r = render({"xpass.json"});
  EXPECT_EQ(r.runs[0].doc["summary"]["gate"], "fail");
  EXPECT_NE(r.html.find("data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_NE(clause_row(r.html, 0, "WWN.VIS.2").find("the expectation ("), std::string::npos);
  EXPECT_NE(clause_row(r.html, 0, "WWN.IDX.2").find("Waived (was <span class=\"badge v-FAIL\">FAIL</span>)"), std::string::npos);
  EXPECT_NE(r.junit.find("<failure type=\"XPASS\""), std::string::npos);
  EXPECT_EQ(junit_total(r.junit, "skipped"), "1");  // the waived clause
  EXPECT_NE(r.md.find("| `WWN.VIS.2` | MUST | **XPASS** | passes, but expected FAIL: vendor ticket 1301"), std::string::npos);
  EXPECT_NE(r.md.find("_1 clause(s) waived by vendor.yaml._"), std::string::npos);
}

TEST(Render, NotSupportedOnlyRun) {
  const auto r = render({"not_supported.json"});
  // A MUST clause that is NOT_SUPPORTED is not a pass: the gate fails.
  EXPECT_NE(r.html.find("data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_EQ(count(r.html, "<tr class=\"clause-row\""), 11U);
  EXPECT_EQ(count(r.html, "No cases: decided at clause level."), 11U);
  EXPECT_EQ(junit_total(r.junit, "skipped"), "11");
  EXPECT_NE(r.junit.find("not supported: HcommWriteWithNotifyOnThread returned HCCL_E_NOT_SUPPORT"), std::string::npos);
  EXPECT_NE(r.md.find("| NOT_SUPPORTED | 11 |"), std::string::npos);
}

TEST(Render, TwoRunsSideBySide) {
  const auto r = render({"pass.json", "failures.json"});
  EXPECT_NE(r.html.find("id=\"overall-verdict\" data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_NE(r.html.find("1 of 2 runs pass the gate."), std::string::npos);
  EXPECT_EQ(count(r.html, "<tr class=\"compare-row\""), 11U);
  EXPECT_EQ(count(r.html, "<b>2</b> of 2"), 8U);
  EXPECT_EQ(count(r.html, "<b>1</b> of 2"), 3U);  // WWN.IDX.2, WWN.VIS.1, WWN.PROF.1
  EXPECT_NE(r.html.find("<section class=\"run\" id=\"run-1\""), std::string::npos);
  // The matrix links each cell to the clause's evidence in that run's section.
  EXPECT_NE(r.html.find("href=\"#r1-WWN.IDX.2\""), std::string::npos);
  EXPECT_NE(r.md.find("| Clause | reference | vendor | Passed by |"), std::string::npos);
  EXPECT_NE(r.md.find("| `WWN.IDX.2` | PASS | FAIL | 1 of 2 |"), std::string::npos);
  EXPECT_EQ(r.md.find("| `WWN.PTR.1` | PASS | PASS |"), std::string::npos) << "agreeing clauses are left out of the comment";
  EXPECT_EQ(junit_total(r.junit, "tests"), "22");
  EXPECT_EQ(count(r.junit, "<testsuite "), 2U);
}

TEST(Render, SameImplementationTwiceGetsDistinctLabels) {
  const auto r = render({"pass.json", "pass.json"});
  ASSERT_EQ(r.runs.size(), 2U);
  EXPECT_NE(r.runs[0].label, r.runs[1].label);
}

TEST(Render, ExpectationsAtReportTime) {
  const auto r = render({"failures.json"}, "vendor-expectations.yaml");
  const auto &doc = r.runs[0].doc;
  EXPECT_EQ(doc["expectations"]["waived"], nlohmann::json::array({"WWN.IDX.2"}));
  EXPECT_EQ(doc["expectations"]["xpass"], nlohmann::json::array({"WWN.VIS.2"}));
  EXPECT_EQ(doc["expectations"]["active"], 2);  // the ranks: 4 entry does not apply to a 2-rank run
  EXPECT_NE(clause_row(r.html, 0, "WWN.IDX.2").find("vendor ticket 1234"), std::string::npos);
  EXPECT_NE(r.html.find("expectations <code>vendor-expectations.yaml</code>"), std::string::npos);
  EXPECT_NE(r.junit.find("<failure type=\"XPASS\""), std::string::npos);
}

TEST(Render, TextFromTheImplementationIsEscaped) {
  auto run = load_run(fixture("failures.json"));
  run.doc["cases"][0]["messages"] = {{{"rank", 0}, {"text", "<script>alert(1)</script> & \"q\""}}};
  run.doc["cases"][0]["reason"] = "]]></failure><x";
  std::vector<hcts::report::Run> runs{run};
  prepare_runs(runs, nullptr);
  const RenderInfo info{"t", ""};
  const auto html = render_html(runs, info);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"), std::string::npos);
  const auto junit = render_junit(runs, info);
  EXPECT_EQ(junit.find("]]></failure><x"), std::string::npos);
  EXPECT_EQ(render_markdown(runs, info).find("<x"), std::string::npos);
}

std::string error_of(std::string_view text) {
  try {
    parse_results(text, "r.json");
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(ResultsReader, ClearErrors) {
  EXPECT_EQ(error_of("{\n  \"schema\": \"hcts-results\",\n  \"schema_version\": 1,\n  oops\n}"),
            "r.json:4:3: malformed JSON: syntax error while parsing object key - invalid literal; last read: '1,<U+000A>  o'; expected string literal");
  EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":2,"run":{},"clauses":[]})"),
            "r.json: schema_version 2 is newer than this hcts-report reads; allowed: 1 (update hcts)");
  EXPECT_EQ(error_of(R"({"schema":"hcts-expectations","schema_version":1})"),
            "r.json: schema is 'hcts-expectations'; allowed: 'hcts-results' (is this a results.json?)");
  EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{}})"),
            "r.json: missing 'clauses'; it must be an array (possibly empty)");
  EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[{"id":"A","verdict":"OK"}]})"),
            "r.json: clauses[0] (A).verdict is \"OK\"; allowed: PASS, PROFILE, WAIVED, NOT_SUPPORTED, HAZARD, XPASS, FAIL, "
            "TIMEOUT, CRASH, null");
  EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[{"id":"A"},{"id":"A"}]})"),
            "r.json: clauses[1] repeats clause id 'A'");
  EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[],"cases":[{"name":"x"}]})"),
            "r.json: cases[0] (x) has no verdict");
  // Unknown fields are ignored (append-only evolution).
  EXPECT_EQ(error_of(R"({"schema":"hcts-results","schema_version":1,"run":{},"clauses":[],"future":{"x":1}})"), "<accepted>");
}

TEST(ResultsReader, MissingFileIsNamed) {
  try {
    load_run(fixture("no-such.json"));
    FAIL() << "loaded a missing file";
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(std::string(e.what()), fixture("no-such.json") + ": cannot open for reading: No such file or directory");
  }
}

TEST(ResultsReader, ClauseWithoutVerdictIsNotRun) {
  auto doc = nlohmann::json::parse(read_file(fixture("pass.json")));
  doc["run"]["status"] = "aborted";
  doc["clauses"][3]["verdict"] = nullptr;
  doc["clauses"][3]["cases"] = nlohmann::json::array({"Never.Ran"});
  std::vector<hcts::report::Run> runs{hcts::report::Run{"x.json", "", "", doc}};
  prepare_runs(runs, nullptr);
  const RenderInfo info{"t", ""};
  EXPECT_EQ(runs[0].doc["summary"]["gate"], "fail");
  const auto html = render_html(runs, info);
  EXPECT_NE(html.find("This run is <b>aborted</b>"), std::string::npos);
  EXPECT_NE(clause_row(html, 0, "WWN.IDX.2").find("badge v-NOT_RUN"), std::string::npos);
  EXPECT_NE(render_junit(runs, info).find("<error type=\"NOT RUN\" message=\"the clause did not run\"/>"), std::string::npos);
}

}  // namespace

namespace {

// Odd but schema-valid-looking documents must render or be refused with a
// message, never crash or throw anything else: replace a random field
// (or a whole object) of a fixture with a value of a random type.
TEST(Render, OddFieldsNeverCrashTheRenderers) {
  unsigned seed = 4242;
  if (const char *s = std::getenv("HCTS_SEED")) seed = static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  std::cout << "seed " << seed << "; reproduce: HCTS_SEED=" << seed
            << " build/bin/hcts_report_test --gtest_filter=Render.OddFieldsNeverCrashTheRenderers\n";
  std::mt19937 rng(seed);
  const auto base = nlohmann::json::parse(read_file(fixture("failures.json")));
  std::vector<std::string> paths;
  const auto flat = base.flatten();
  for (const auto &[path, value] : flat.items()) {
    paths.push_back(path);
    if (const auto slash = path.find_last_of('/'); slash != std::string::npos && slash > 0) paths.push_back(path.substr(0, slash));
  }
  const std::vector<nlohmann::json> values = {nullptr, 7, -1, 18446744073709551615ULL, 2.5, "", "PASS", "x<y>&",
                                              nlohmann::json::array(), nlohmann::json::array({1, "a"}),
                                              nlohmann::json::object(), true};
  const auto set = hcts::expectations::ExpectationSet::load(fixture("vendor-expectations.yaml"));
  int rendered = 0, refused = 0;
  for (int i = 0; i < 300; ++i) {
    auto doc = base;
    const auto &path = paths[rng() % paths.size()];
    doc[nlohmann::json::json_pointer(path)] = values[rng() % values.size()];
    try {
      check_results(doc, "mutated");
    } catch (const std::runtime_error &) {
      ++refused;
      continue;
    }
    std::vector<hcts::report::Run> runs{hcts::report::Run{"m.json", "m", "", doc}};
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

}  // namespace
