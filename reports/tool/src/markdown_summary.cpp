// The Markdown summary: short enough for a pull-request comment, with what a
// reviewer needs to act (which clauses, why, how to reproduce).
#include <sstream>
#include <string>
#include <vector>

#include <hcts/expectations.h>

#include "comparison.h"
#include "renderers.h"
#include "text.h"

namespace hcts::report {
namespace {

constexpr std::size_t kMaxListed = 25; // per run; a comment beyond that is not read

std::string first_reproducer(const nlohmann::json &doc, const nlohmann::json &clause)
{
    for (const auto &name : array_at(clause, "cases"))
        for (const auto &c : array_at(doc, "cases"))
            if (name.is_string() && field(c, "name") == name.get<std::string>() &&
                expectations::verdict_rank(field(c, "verdict")) > expectations::verdict_rank("PROFILE"))
                if (const auto r = field(c, "reproducer"); !r.empty())
                    return r;
    return {};
}

// The configurations merged into the run (./hcts run), then which each clause
// ran in and its verdict there, folded: a table per clause is long.
void configurations(std::ostringstream &o, const nlohmann::json &doc)
{
    const auto &confs = array_at(doc, "configurations");
    if (confs.empty())
        return;
    o << "**Configurations** (a clause's verdict is the worst over those it ran in):\n\n"
         "| Configuration | Status | Mode / seed | Segment | Cases run |\n|---|---|---|---:|---|\n";
    std::vector<std::string> names;
    for (const auto &c : confs) {
        names.push_back(field(c, "name"));
        const auto seed = field(c, "seed");
        o << "| " << md_escape(field(c, "name")) << " | " << md_escape(field(c, "status", "?"))
          << (field(c, "error").empty() ? "" : ": " + md_escape(field(c, "error"))) << " | "
          << md_escape(field(c, "mode", "plain")) << (seed.empty() ? "" : " / " + md_escape(seed)) << " | "
          << md_escape(field(c, "segment_size", "—")) << " | "
          << (field(c, "filter").empty() ? std::string("all") : "`" + md_escape(field(c, "filter")) + "`") << " ("
          << field(c, "cases", "0") << ")"
          << " |\n";
    }
    o << "\n<details><summary>Clauses by configuration</summary>\n\n| Clause |";
    for (const auto &n : names)
        o << " " << md_escape(n) << " |";
    o << "\n|---|" <<
        [&] {
            std::string dashes;
            for (std::size_t i = 0; i < names.size(); ++i)
                dashes += "---|";
            return dashes;
        }()
      << "\n";
    for (const auto &cl : array_at(doc, "clauses")) {
        o << "| `" << md_escape(field(cl, "id")) << "` |";
        for (const auto &n : names) {
            std::string v = "—";
            for (const auto &c : array_at(cl, "configurations"))
                if (field(c, "name") == n)
                    v = field(c, "verdict", "?");
            o << " " << v << " |";
        }
        o << "\n";
    }
    o << "\n</details>\n\n";
}

void run_summary(std::ostringstream &o, const Run &run, bool heading)
{
    const auto &summary = object_at(run.doc, "summary");
    const auto &env = object_at(run.doc, "environment");
    const auto &iut = object_at(run.doc, "iut");
    const auto &r = object_at(run.doc, "run");
    if (heading)
        o << "### " << md_escape(run.label) << ": " << gate_of(run) << "\n\n";
    if (!run.doc.contains("bench")) {
        o << "- **MUST clauses passed:** " << field(summary, "must_passed", "0") << " of "
          << field(summary, "must_total", "0");
        if (field(summary, "must_waived", "0") != "0")
            o << " (" << field(summary, "must_waived") << " waived)";
        o << "\n";
    }
    o << "- **Implementation:** `" << md_escape(field(iut, "path", "?")) << "`";
    if (const auto v = field(iut, "version"); !v.empty())
        o << " " << md_escape(v);
    if (const auto sha = field(iut, "sha256"); !sha.empty())
        o << " (sha256 `" << sha.substr(0, 16) << "…`)";
    o << "\n- **Platform:** " << md_escape(field(env, "product", "?")) << ", " << md_escape(field(env, "ranks", "?"))
      << " ranks, " << md_escape(field(env, "transport", "?")) << "\n- **Run:** `" << md_escape(field(r, "id", "?"))
      << "`, " << md_escape(field(r, "status", "?")) << ", suite " << md_escape(field(r, "suite_version", "?"));
    if (const auto c = field(r, "suite_commit"); !c.empty())
        o << " @ " << md_escape(c);
    if (const auto why = gate_failures(run.doc); !why.empty()) {
        o << "\n- **The gate fails:** ";
        for (std::size_t i = 0; i < why.size(); ++i)
            o << (i ? "; " : "") << md_escape(why[i]);
    }
    if (run.doc.contains("bench")) { // a benchmark has no verdicts to count, only its numbers
        o << "\n\n" << bench_markdown(run.doc["bench"]);
        return;
    }
    o << "\n\n| Verdict | "
      << (array_at(run.doc, "clauses").empty() && !array_at(run.doc, "properties").empty() ? "Properties" : "Clauses")
      << " |\n|---|---:|\n";
    const auto &by = object_at(summary, "by_verdict");
    for (const auto v : expectations::all_verdicts())
        if (const auto n = field(by, v, "0"); n != "0")
            o << "| " << v << " | " << n << " |\n";
    o << "\n";

    configurations(o, run.doc);
    if (const auto &not_run = array_at(summary, "not_run"); !not_run.empty()) {
        o << "**" << not_run.size() << " clause(s) not decided by any case** (filtered or cut-short run):";
        for (std::size_t i = 0; i < not_run.size() && i < kMaxListed; ++i)
            o << " `" << md_escape(text_of(not_run[i])) << "`";
        if (not_run.size() > kMaxListed)
            o << " …";
        o << "\n\n";
    }
    std::vector<const nlohmann::json *> attention;
    for (const auto &cl : array_at(run.doc, "clauses")) {
        const auto v = field(cl, "verdict", "NOT RUN");
        if (v == "NOT RUN" || expectations::verdict_rank(v) >= expectations::verdict_rank("HAZARD"))
            attention.push_back(&cl);
    }
    if (attention.empty()) {
        o << "No clause failed.\n\n";
    } else {
        o << "| Clause | Kind | Verdict | Why | Reproduce |\n|---|---|---|---|---|\n";
        for (std::size_t i = 0; i < attention.size() && i < kMaxListed; ++i) {
            const auto &cl = *attention[i];
            auto why = clause_reason(run.doc, cl);
            if (why.empty())
                why = field(cl, "title");
            if (const auto &w = clause_waiver(run.doc, cl); !w.empty() && field(cl, "verdict") == "XPASS")
                why = "passes, but expected " + field(w, "expected") + ": " + field(w, "reason");
            const auto repro = first_reproducer(run.doc, cl);
            const auto source_class = field(cl, "source_class");
            o << "| `" << md_escape(field(cl, "id")) << "` | " << md_escape(field(cl, "kind"))
              << (source_class.empty() ? "" : " (" + md_escape(source_class) + ")") << " | **"
              << field(cl, "verdict", "NOT RUN") << "** | " << md_escape(why) << " | "
              << (repro.empty() ? std::string("") : "`" + md_escape(repro) + "`") << " |\n";
        }
        if (attention.size() > kMaxListed)
            o << "\n… and " << attention.size() - kMaxListed << " more in the HTML report.\n";
        o << "\n";
    }
    if (const auto rows = function_coverage(run.doc); !rows.empty()) {
        o << "<details><summary>Coverage by function (" << rows.size()
          << " functions)</summary>\n\n| Function | Clauses and verdicts |\n|---|---|\n";
        for (const auto &row : rows) {
            o << "| `" << md_escape(row.function) << "` |";
            for (const auto &[id, verdict] : row.clauses)
                o << " `" << md_escape(id) << "` " << verdict;
            o << " |\n";
        }
        o << "\n</details>\n\n";
    }
    std::size_t waived = 0;
    for (const auto &cl : array_at(run.doc, "clauses"))
        waived += field(cl, "verdict") == "WAIVED";
    if (waived)
        o << "_" << waived << " clause(s) waived by "
          << md_escape(field(object_at(run.doc, "expectations"), "file", "an expectations file")) << "._\n\n";
    std::size_t failed_props = 0;
    for (const auto &p : array_at(run.doc, "properties")) {
        if (field(p, "verdict") == "PASS")
            continue;
        if (failed_props++ == 0)
            o << "**Properties that failed:**\n\n";
        o << "- " << md_escape(field(p, "name")) << " (seed " << field(p, "seed", "?") << ", "
          << field(p, "shrinks", "?") << " shrinks): `" << md_escape(field(p, "reproduce")) << "`\n";
    }
    if (failed_props)
        o << "\n";
    std::size_t bad_litmus = 0;
    for (const auto &l : array_at(run.doc, "litmus")) {
        const auto v = field(l, "verdict");
        if (v == "PASS" || v == "PROFILE")
            continue;
        if (bad_litmus++ == 0)
            o << "**Litmus tests with forbidden outcomes:**\n\n";
        o << "- " << md_escape(field(l, "id")) << " " << md_escape(field(l, "shape")) << " (" << v << "):";
        for (const auto &f : array_at(l, "forbidden")) {
            if (!f.is_string())
                continue;
            const auto n = field(object_at(l, "outcomes"), f.get<std::string>(), "0");
            if (n != "0")
                o << " " << md_escape(f.get<std::string>()) << " " << n << "×";
        }
        o << " in " << field(l, "repetitions", "?") << " runs\n";
    }
    if (bad_litmus)
        o << "\n";
}

} // namespace

std::string suite_strength_markdown(const nlohmann::json &st)
{
    std::ostringstream o;
    const auto &ratio = object_at(st, "kill_ratio");
    const auto &failed = array_at(st, "failed");
    o << "### Suite strength: " << selftest_verdict(st) << "\n\n- **Kill ratio (API-observable mutants):** "
      << field(ratio, "killed", "0") << " of " << field(ratio, "run", "0");
    if (const auto it = ratio.find("ratio"); it != ratio.end() && it->is_number())
        o << " (" << format_fixed(100.0 * it->get<double>(), 1) << "%)";
    o << "\n- **Entries judged:** " << array_at(st, "entries").size() << ", " << failed.size()
      << " expectation(s) did not hold\n\n";
    const auto &rows = array_at(object_at(st, "matrix"), "rows");
    if (!rows.empty()) {
        o << "| Mutant | Killed by |\n|---|---|\n";
        std::size_t shown = 0;
        for (const auto &r : rows) {
            if (shown++ >= kMaxListed * 4) {
                o << "| … | " << rows.size() - kMaxListed * 4 << " more in the HTML report |\n";
                break;
            }
            const auto &by = array_at(r, "killed_by");
            o << "| `" << md_escape(field(r, "mutant")) << "` | "
              << (by.empty() ? "**" + md_escape(field(r, "outcome", "SURVIVED")) + "**" : md_escape(joined(by)))
              << " |\n";
        }
        o << "\n";
    }
    if (!failed.empty()) {
        o << "**Expectations that did not hold:**\n\n";
        for (std::size_t i = 0; i < failed.size() && i < kMaxListed; ++i)
            o << "- " << md_escape(text_of(failed[i])) << "\n";
        if (failed.size() > kMaxListed)
            o << "- … and " << failed.size() - kMaxListed << " more in the HTML report\n";
        o << "\n";
    }
    return o.str();
}

std::string render_markdown(std::span<const Run> runs, const RenderInfo &info)
{
    std::ostringstream o;
    const auto overall = runs.empty() && info.selftest ? selftest_verdict(*info.selftest) : overall_verdict(runs);
    o << "## hcts compliance: " << (overall == "PASS" ? "✅ PASS" : "❌ FAIL");
    if (runs.empty())
        o << " — suite strength\n\n";
    else if (runs.size() == 1)
        o << " — " << md_escape(runs[0].label) << "\n\n";
    else {
        int passing = 0;
        for (const auto &run : runs)
            passing += gate_of(run) == "PASS";
        o << " — " << passing << " of " << runs.size() << " runs pass the gate\n\n";
        const auto rows = compare(runs);
        o << "| Clause |";
        for (const auto &run : runs)
            o << " " << md_escape(run.label) << " |";
        o << " Passed by |\n|---|";
        for (std::size_t i = 0; i < runs.size(); ++i)
            o << "---|";
        o << "---:|\n";
        std::size_t shown = 0, hidden = 0;
        for (const auto &row : rows) {
            // Only the clauses on which the runs disagree or fail; the rest is noise in a comment.
            if (row.passed == static_cast<int>(runs.size()))
                continue;
            if (shown++ >= kMaxListed) {
                ++hidden;
                continue;
            }
            o << "| `" << md_escape(row.clause_id) << "` |";
            for (const auto &v : row.verdicts)
                o << " " << (v.empty() ? "—" : v) << " |";
            o << " " << row.passed << " of " << runs.size() << " |\n";
        }
        if (shown == 0)
            o << "| _every clause passed by every run_ |" << std::string(runs.size(), ' ') << "|\n";
        if (hidden)
            o << "\n… and " << hidden << " more clauses not passed by every run.\n";
        o << "\n";
    }
    if (info.selftest)
        o << suite_strength_markdown(*info.selftest);
    for (const auto &run : runs)
        run_summary(o, run, runs.size() > 1);
    o << "<sub>hcts-report " << report_version() << ", " << md_escape(info.generated);
    if (!info.expectations.empty())
        o << ", expectations `" << md_escape(info.expectations) << "`";
    o << ". Full evidence in report.html.</sub>\n";
    return o.str();
}

} // namespace hcts::report
