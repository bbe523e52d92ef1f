// The benchmark part of the HTML report (a results document with a `bench`
// section, hcts-bench): latency and bandwidth against message size as inline
// log-log SVG line charts, one line per method (the medians; the samples'
// min-max as whiskers), then the baseline's ratios and the measurements. The
// page's look is resources/report.css.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "renderers.h"
#include "text.h"

namespace hcts::report {

namespace {

const char *colour(std::size_t i)
{
    static const char *palette[] = {"#cf222e", "#0969da", "#1a7f37", "#8250df", "#bc4c00", "#57606a"};
    return palette[i % std::size(palette)];
}

std::string size_text(double size)
{
    const auto s = static_cast<long long>(size);
    if (s >= (1LL << 20) && s % (1LL << 20) == 0)
        return std::to_string(s >> 20) + " MiB";
    if (s >= 1024 && s % 1024 == 0)
        return std::to_string(s >> 10) + " KiB";
    return std::to_string(s) + " B";
}

// Three significant digits, whole numbers from 1000 on: 0.0312, 1.25, 98.1, 1234.
std::string number(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, v >= 1000 ? "%.0f" : "%.3g", v);
    return b;
}

// For each method, its points in size order: the median of `metric` and the
// samples' min and max (drawn as a whisker).
struct Point {
    double size, median, lo, hi;
};
std::map<std::string, std::vector<Point>> series(const results::Bench &bench, std::string_view test,
                                                 std::string_view metric)
{
    std::map<std::string, std::vector<Point>> out;
    for (const auto &m : bench.measurements) {
        if (m.test != test || m.error)
            continue;
        const results::Spread *s = m.metric(metric);
        if (!s)
            continue;
        const double v = s->median;
        if (v > 0)
            out[m.method].push_back({static_cast<double>(m.size), v, std::max(s->min, v * 1e-3), std::max(s->max, v)});
    }
    for (auto &[name, points] : out)
        std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.size < b.size; });
    return out;
}

} // namespace

std::string bench_plot_svg(const results::Bench &bench, std::string_view test, std::string_view metric,
                           std::string_view label)
{
    const auto lines = series(bench, test, metric);
    std::vector<std::string> order;
    for (const auto &m : bench.methods)
        if (lines.count(m.name) != 0)
            order.push_back(m.name);
    for (const auto &[name, points] : lines)
        if (std::find(order.begin(), order.end(), name) == order.end())
            order.push_back(name);
    double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
    for (const auto &[name, points] : lines)
        for (const Point &p : points) {
            x0 = std::min(x0, p.size), x1 = std::max(x1, p.size);
            y0 = std::min(y0, p.lo), y1 = std::max(y1, p.hi);
        }
    const int left = 64, right = 110, top = 12, bottom = 40, pw = 420, ph = 240;
    const int width = left + pw + right, height = top + ph + bottom;
    std::ostringstream o;
    o << "<svg class=\"bench-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\" role=\"img\" aria-label=\"" << html_escape(label)
      << " against message size, log-log\"><title>" << html_escape(label) << " against message size</title>";
    if (lines.empty()) {
        o << "<text x=\"4\" y=\"16\" font-size=\"12\" fill=\"#656d76\">nothing measured</text></svg>";
        return o.str();
    }
    // Whole decades on the y axis, the measured sizes (powers of two) on the x axis.
    const double ly0 = std::floor(std::log10(y0)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(y1)));
    const double lx0 = std::log2(x0), lx1 = std::max(lx0 + 1, std::log2(x1));
    const auto px = [&](double x) { return left + pw * (std::log2(x) - lx0) / (lx1 - lx0); };
    const auto py = [&](double y) { return top + ph * (ly1 - std::log10(y)) / (ly1 - ly0); };
    o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" fill=\"#ffffff\" stroke=\"#d0d7de\"/>";
    for (double d = ly0; d <= ly1; ++d) {
        const double y = top + ph * (ly1 - d) / (ly1 - ly0);
        o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << format_fixed(y, 1) << "\" y2=\""
          << format_fixed(y, 1) << "\" stroke=\"#eaeef2\"/><text x=\"" << left - 6 << "\" y=\""
          << format_fixed(y + 4, 1) << "\" text-anchor=\"end\" font-size=\"11\" fill=\"#1f2328\">"
          << number(std::pow(10.0, d)) << "</text>";
    }
    for (const auto size : bench.sizes) {
        const auto s = static_cast<double>(size);
        o << "<text x=\"" << format_fixed(px(s), 1) << "\" y=\"" << top + ph + 16
          << "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#1f2328\">" << html_escape(size_text(s)) << "</text>";
    }
    o << "<text x=\"" << left + pw / 2 << "\" y=\"" << height - 6
      << "\" text-anchor=\"middle\" font-size=\"12\" fill=\"#656d76\">message size</text>"
      << "<text x=\"12\" y=\"" << top + ph / 2 << "\" transform=\"rotate(-90 12 " << top + ph / 2
      << ")\" text-anchor=\"middle\" font-size=\"12\" fill=\"#656d76\">" << html_escape(label) << "</text>";
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto &points = lines.at(order[i]);
        o << "<polyline class=\"series\" data-method=\"" << html_escape(order[i]) << "\" fill=\"none\" stroke=\""
          << colour(i) << "\" stroke-width=\"2\" points=\"";
        for (const Point &p : points)
            o << format_fixed(px(p.size), 1) << ',' << format_fixed(py(p.median), 1) << ' ';
        o << "\"/>";
        // The median as a dot, the samples' range as a whisker through it.
        for (const Point &p : points)
            o << "<line class=\"range\" x1=\"" << format_fixed(px(p.size), 1) << "\" x2=\""
              << format_fixed(px(p.size), 1) << "\" y1=\"" << format_fixed(py(p.lo), 1) << "\" y2=\""
              << format_fixed(py(p.hi), 1) << "\" stroke=\"" << colour(i)
              << "\" stroke-opacity=\"0.5\" stroke-width=\"1.5\"/><circle cx=\"" << format_fixed(px(p.size), 1)
              << "\" cy=\"" << format_fixed(py(p.median), 1) << "\" r=\"3\" fill=\"" << colour(i) << "\"><title>"
              << html_escape(order[i]) << ", " << html_escape(size_text(p.size)) << ": median " << number(p.median)
              << ", min " << number(p.lo) << ", max " << number(p.hi) << "</title></circle>";
        const int ly = top + 14 + static_cast<int>(i) * 18;
        o << "<line x1=\"" << left + pw + 10 << "\" x2=\"" << left + pw + 28 << "\" y1=\"" << ly - 4 << "\" y2=\""
          << ly - 4 << "\" stroke=\"" << colour(i) << "\" stroke-width=\"2\"/><text x=\"" << left + pw + 32 << "\" y=\""
          << ly << "\" font-size=\"12\" fill=\"#1f2328\">" << html_escape(order[i]) << "</text>";
    }
    o << "</svg>";
    return o.str();
}

std::string bench_html(const results::Bench &bench)
{
    std::ostringstream o;
    const results::BenchLoad load = bench.load.value_or(results::BenchLoad{});
    o << "<h3>Benchmark</h3><p class=\"muted\">Medians over " << html_escape(text_or(bench.samples, "?"))
      << " samples per point; latency is one way (half a round trip); CPU time and context switches are both "
         "ranks' per message. Load average before the run: "
      << html_escape(joined(load.loadavg_before)) << " on " << html_escape(text_or(load.cpus, "?"))
      << " CPUs; after: " << html_escape(joined(load.loadavg_after)) << ".</p><div class=\"plots\">"
      << "<figure>" << bench_plot_svg(bench, "latency", "latency", "latency (µs)")
      << "<figcaption>Latency, one way</figcaption></figure><figure>"
      << bench_plot_svg(bench, "bandwidth", "bandwidth", "bandwidth (GB/s)") << "<figcaption>Bandwidth, "
      << html_escape(text_or(bench.window, "?")) << " messages in flight</figcaption></figure></div>";
    if (bench.baseline && !bench.baseline->checks.empty()) {
        const auto &b = *bench.baseline;
        o << "<h4>Baseline: " << (b.held ? "every ratio held" : "<b>a ratio is out of bounds</b>")
          << "</h4><table class=\"plain\"><thead><tr>"
          << "<th>Id</th><th>Metric</th><th>Size</th><th>hcomm / other</th><th>Ratio</th><th>Allowed</th><th>Held</th>"
          << "</tr></thead><tbody>";
        for (const auto &c : b.checks) {
            const std::string lo = text_or(c.min), hi = text_or(c.max);
            o << "<tr><td>" << html_escape(c.id) << "</td><td>" << html_escape(c.metric) << "</td><td>"
              << html_escape(size_text(static_cast<double>(c.size))) << "</td><td>hcomm "
              << number(c.hcomm.value_or(0.0)) << " / " << html_escape(c.hcomm_over) << " "
              << number(c.other.value_or(0.0)) << "</td><td>" << number(c.ratio) << "</td><td>"
              << html_escape((lo.empty() ? "" : "≥ " + lo) + (!lo.empty() && !hi.empty() ? ", " : "") +
                             (hi.empty() ? "" : "≤ " + hi))
              << "</td><td>" << (c.held ? "yes" : "<b>no</b> " + html_escape(text_or(c.reason))) << "</td></tr>";
        }
        o << "</tbody></table>";
    }
    o << "<h4>Measurements</h4><table class=\"plain\"><thead><tr><th>Size</th><th>Test</th><th>Method</th>"
      << "<th>Median</th><th>Min</th><th>Max</th><th>CPU µs / msg</th><th>Switches / msg</th></tr></thead><tbody>";
    for (const auto &m : bench.measurements) {
        const bool lat = m.test == "latency";
        const results::Spread v = (lat ? m.latency : m.bandwidth).value_or(results::Spread{});
        o << "<tr><td>" << html_escape(size_text(static_cast<double>(m.size))) << "</td><td>" << html_escape(m.test)
          << "</td><td>" << html_escape(m.method) << "</td>";
        if (m.error)
            o << "<td colspan=\"5\">" << html_escape(*m.error) << "</td>";
        else
            o << "<td>" << number(v.median) << (lat ? " µs" : " GB/s") << "</td><td>" << number(v.min) << "</td><td>"
              << number(v.max) << "</td><td>" << number(m.cpu_us_per_message ? m.cpu_us_per_message->median : 0.0)
              << "</td><td>" << number(m.switches_per_message ? m.switches_per_message->median : 0.0) << "</td>";
        o << "</tr>";
    }
    o << "</tbody></table>";
    return o.str();
}

} // namespace hcts::report
