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

using json = nlohmann::json;

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
std::map<std::string, std::vector<Point>> series(const json &bench, std::string_view test, std::string_view metric)
{
    std::map<std::string, std::vector<Point>> out;
    for (const auto &m : array_at(bench, "measurements")) {
        if (field(m, "test") != test || m.contains("error"))
            continue;
        const auto &s = object_at(m, metric);
        if (!s.contains("median") || !s["median"].is_number() || !m.contains("size") || !m["size"].is_number())
            continue;
        const double v = s["median"].get<double>();
        if (v > 0)
            out[field(m, "method")].push_back(
                {m["size"].get<double>(), v, std::max(s.value("min", v), v * 1e-3), std::max(s.value("max", v), v)});
    }
    for (auto &[name, points] : out)
        std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.size < b.size; });
    return out;
}

} // namespace

std::string bench_plot_svg(const json &bench, std::string_view test, std::string_view metric, std::string_view label)
{
    const auto lines = series(bench, test, metric);
    std::vector<std::string> order;
    for (const auto &m : array_at(bench, "methods"))
        if (lines.count(field(m, "name")) != 0)
            order.push_back(field(m, "name"));
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
    std::vector<double> sizes;
    for (const auto &s : array_at(bench, "sizes"))
        if (s.is_number())
            sizes.push_back(s.get<double>());
    for (const double s : sizes)
        o << "<text x=\"" << format_fixed(px(s), 1) << "\" y=\"" << top + ph + 16
          << "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#1f2328\">" << html_escape(size_text(s)) << "</text>";
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

std::string bench_html(const json &bench)
{
    std::ostringstream o;
    const auto &load = object_at(bench, "load");
    o << "<h3>Benchmark</h3><p class=\"muted\">Medians over " << html_escape(field(bench, "samples", "?"))
      << " samples per point; latency is one way (half a round trip); CPU time and context switches are both "
         "ranks' per message. Load average before the run: "
      << html_escape(joined(array_at(load, "loadavg_before"))) << " on " << html_escape(field(load, "cpus", "?"))
      << " CPUs; after: " << html_escape(joined(array_at(load, "loadavg_after"))) << ".</p><div class=\"plots\">"
      << "<figure>" << bench_plot_svg(bench, "latency", "latency", "latency (µs)")
      << "<figcaption>Latency, one way</figcaption></figure><figure>"
      << bench_plot_svg(bench, "bandwidth", "bandwidth", "bandwidth (GB/s)") << "<figcaption>Bandwidth, "
      << html_escape(field(bench, "window", "?")) << " messages in flight</figcaption></figure></div>";
    if (const auto &b = object_at(bench, "baseline"); !array_at(b, "checks").empty()) {
        o << "<h4>Baseline: " << (field(b, "held") == "true" ? "every ratio held" : "<b>a ratio is out of bounds</b>")
          << "</h4><table class=\"plain\"><thead><tr>"
          << "<th>Id</th><th>Metric</th><th>Size</th><th>hcomm / other</th><th>Ratio</th><th>Allowed</th><th>Held</th>"
          << "</tr></thead><tbody>";
        for (const auto &c : array_at(b, "checks")) {
            const std::string lo = field(c, "min"), hi = field(c, "max");
            o << "<tr><td>" << html_escape(field(c, "id")) << "</td><td>" << html_escape(field(c, "metric"))
              << "</td><td>" << html_escape(size_text(c.value("size", 0.0))) << "</td><td>hcomm "
              << number(c.value("hcomm", 0.0)) << " / " << html_escape(field(c, "hcomm_over")) << " "
              << number(c.value("other", 0.0)) << "</td><td>" << number(c.value("ratio", 0.0)) << "</td><td>"
              << html_escape((lo.empty() ? "" : "≥ " + lo) + (!lo.empty() && !hi.empty() ? ", " : "") +
                             (hi.empty() ? "" : "≤ " + hi))
              << "</td><td>" << (field(c, "held") == "true" ? "yes" : "<b>no</b> " + html_escape(field(c, "reason")))
              << "</td></tr>";
        }
        o << "</tbody></table>";
    }
    o << "<h4>Measurements</h4><table class=\"plain\"><thead><tr><th>Size</th><th>Test</th><th>Method</th>"
      << "<th>Median</th><th>Min</th><th>Max</th><th>CPU µs / msg</th><th>Switches / msg</th></tr></thead><tbody>";
    for (const auto &m : array_at(bench, "measurements")) {
        const bool lat = field(m, "test") == "latency";
        const auto &v = object_at(m, lat ? "latency" : "bandwidth");
        o << "<tr><td>" << html_escape(size_text(m.value("size", 0.0))) << "</td><td>" << html_escape(field(m, "test"))
          << "</td><td>" << html_escape(field(m, "method")) << "</td>";
        if (m.contains("error"))
            o << "<td colspan=\"5\">" << html_escape(field(m, "error")) << "</td>";
        else
            o << "<td>" << number(v.value("median", 0.0)) << (lat ? " µs" : " GB/s") << "</td><td>"
              << number(v.value("min", 0.0)) << "</td><td>" << number(v.value("max", 0.0)) << "</td><td>"
              << number(object_at(m, "cpu_us_per_message").value("median", 0.0)) << "</td><td>"
              << number(object_at(m, "switches_per_message").value("median", 0.0)) << "</td>";
        o << "</tr>";
    }
    o << "</tbody></table>";
    return o.str();
}

} // namespace hcts::report
