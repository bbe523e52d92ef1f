// The three renderings of one or more prepared runs (see results_io.h).
#pragma once

#include <span>
#include <string>

#include "results_io.h"

namespace hcts::report {

struct RenderInfo {
    std::string generated;    // UTC timestamp of the rendering, ISO 8601
    std::string expectations; // the expectations file applied at report time, or ""
};

std::string render_html(std::span<const Run> runs, const RenderInfo &info);
std::string render_markdown(std::span<const Run> runs, const RenderInfo &info);
std::string render_junit(std::span<const Run> runs, const RenderInfo &info);

// The overall verdict of several runs: "PASS" iff every run's gate passes.
std::string overall_verdict(std::span<const Run> runs);
std::string gate_of(const Run &run); // "PASS" or "FAIL" (upper case, from summary.gate)

// A horizontal bar chart of one litmus test's outcomes (inline SVG).
std::string litmus_svg(const nlohmann::json &litmus);

std::string_view report_version();

} // namespace hcts::report
