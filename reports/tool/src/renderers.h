// The three renderings of one or more prepared runs (see results_io.h).
#pragma once

#include <span>
#include <string>

#include "results_io.h"

namespace hcts::report {

struct RenderInfo {
    std::string generated;    // UTC timestamp of the rendering, ISO 8601
    std::string expectations; // the expectations file applied at report time, or ""
    // A selftest.json of hcts-selftest (selftest/README.md): adds the "Suite strength"
    // section (kill ratio, kill matrix, expectations that failed). Null: none.
    const nlohmann::json *selftest = nullptr;
};

// "PASS" iff a selftest.json says every expectation held and every API-observable mutant was killed.
std::string selftest_verdict(const nlohmann::json &selftest);
// The "Suite strength" section of a selftest.json, as HTML (a <section>) and as Markdown.
std::string suite_strength_html(const nlohmann::json &selftest);
std::string suite_strength_markdown(const nlohmann::json &selftest);

std::string render_html(std::span<const Run> runs, const RenderInfo &info);
std::string render_markdown(std::span<const Run> runs, const RenderInfo &info);
std::string render_junit(std::span<const Run> runs, const RenderInfo &info);

// The overall verdict of several runs: "PASS" iff every run's gate passes.
std::string overall_verdict(std::span<const Run> runs);
std::string gate_of(const Run &run); // "PASS" or "FAIL" (upper case, from summary.gate)

// A horizontal bar chart of one litmus test's outcomes (inline SVG).
std::string litmus_svg(const results::Litmus &litmus);

// A bench run (hcts-bench): latency or bandwidth against size, log-log, one line per method (inline SVG),
// and the whole benchmark part of a run's section (plots, baseline ratios, measurements).
std::string bench_plot_svg(const results::Bench &bench, std::string_view test, std::string_view metric,
                           std::string_view label);
std::string bench_html(const results::Bench &bench);
// The same for summary.md: the baseline's ratios and a table of medians.
std::string bench_markdown(const results::Bench &bench);

std::string_view report_version();

} // namespace hcts::report
