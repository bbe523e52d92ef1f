// The litmus charts of the HTML report: one inline SVG bar chart per test.
// The page's look and behaviour are resources/report.css and report.js.
#include <algorithm>
#include <sstream>
#include <vector>

#include "renderers.h"
#include "text.h"

namespace hcts::report {

std::string litmus_svg(const results::Litmus &litmus)
{
    const auto &outcomes = litmus.outcomes;
    const auto &forbidden_list = litmus.forbidden;
    auto forbidden = [&](const std::string &name) {
        return std::find(forbidden_list.begin(), forbidden_list.end(), name) != forbidden_list.end();
    };
    // Allowed outcomes first, then the forbidden ones in the order the test lists them.
    std::vector<std::string> order;
    for (const auto &[name, count] : outcomes)
        if (!forbidden(name))
            order.push_back(name);
    for (const auto &f : forbidden_list)
        order.push_back(f);
    double total = 0, max_count = 0;
    for (const auto &[name, count] : outcomes) {
        total += static_cast<double>(count);
        max_count = std::max(max_count, static_cast<double>(count));
    }
    const int label_w = 92, bar_w = 180, row_h = 22, width = label_w + bar_w + 104;
    const int height = std::max<int>(1, static_cast<int>(order.size())) * row_h + 4;
    std::ostringstream o;
    o << "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\" role=\"img\" aria-label=\"outcome histogram of "
      << html_escape(litmus.id) << "\"><title>" << html_escape(litmus.id) << " outcomes</title>";
    int y = 2;
    for (const auto &name : order) {
        const auto it = outcomes.find(name);
        const double count = it != outcomes.end() ? static_cast<double>(it->second) : 0;
        const bool bad = forbidden(name);
        // Rare outcomes matter most here: a nonzero count is never drawn thinner than 3px.
        double w = max_count > 0 ? bar_w * count / max_count : 0;
        if (count > 0)
            w = std::max(w, 3.0);
        const char *fill = bad ? (count > 0 ? "#cf222e" : "#ffd8d3") : "#2da44e";
        o << "<text x=\"" << label_w - 6 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\" font-size=\"12\" fill=\""
          << (bad ? "#cf222e" : "#1f2328") << "\">" << html_escape(name) << (bad ? " ✗" : "") << "</text>"
          << "<rect x=\"" << label_w << "\" y=\"" << y + 3 << "\" width=\"" << bar_w << "\" height=\"" << row_h - 6
          << "\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>"
          << "<rect class=\"bar\" data-outcome=\"" << html_escape(name) << "\" x=\"" << label_w << "\" y=\"" << y + 3
          << "\" width=\"" << format_fixed(w, 1) << "\" height=\"" << row_h - 6 << "\" fill=\"" << fill << "\"/>"
          << "<text x=\"" << label_w + bar_w + 6 << "\" y=\"" << y + 15 << "\" font-size=\"12\" fill=\"#1f2328\">"
          << format_fixed(count, 0)
          << (total > 0 ? " (" + format_fixed(100.0 * count / total, 1) + "%)" : std::string()) << "</text>";
        y += row_h;
    }
    if (order.empty())
        o << "<text x=\"4\" y=\"16\" font-size=\"12\" fill=\"#656d76\">no outcomes recorded</text>";
    o << "</svg>";
    return o.str();
}

} // namespace hcts::report
