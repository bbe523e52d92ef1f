// The Markdown summary: short enough for a pull-request comment, with what a
// reviewer needs to act (which clauses, why, how to reproduce).
#include <sstream>
#include <string>
#include <vector>

#include <hcts/expectations.h>

#include "comparison.h"
#include "renderers.h"
#include "selftest_doc.h"
#include "text.h"

namespace hcts::report {
namespace {

constexpr std::size_t kMaxListed = 25; // per run; a comment beyond that is not read

std::string first_reproducer(const results::Document &doc, const results::Clause &clause)
{
    for (const auto &name : clause.cases)
        for (const auto &c : doc.cases)
            if (c.name == name && c.verdict > Verdict::Profile)
                if (const auto r = text_or(c.reproducer); !r.empty())
                    return r;
    return {};
}

// The configurations merged into the run (./hcts run), then which each clause
// ran in and its verdict there, folded: a table per clause is long.
void configurations(std::ostringstream &o, const results::Document &doc)
{
    const auto &confs = doc.configurations;
    if (confs.empty())
        return;
    o << "**Configurations** (a clause's verdict is the worst over those it ran in):\n\n"
         "| Configuration | Status | Mode / seed | Segment | Cases run |\n|---|---|---|---:|---|\n";
    std::vector<std::string> names;
    for (const auto &c : confs) {
        names.push_back(c.name);
        const auto seed = text_or(c.seed);
        const auto error = text_or(c.error), filter = text_or(c.filter);
        o << "| " << md_escape(c.name) << " | " << md_escape(c.status) << (error.empty() ? "" : ": " + md_escape(error))
          << " | " << md_escape(text_or(c.mode, "plain")) << (seed.empty() ? "" : " / " + md_escape(seed)) << " | "
          << md_escape(text_or(c.segment_size, "—")) << " | "
          << (filter.empty() ? std::string("all") : "`" + md_escape(filter) + "`") << " (" << text_or(c.cases, "0")
          << ")"
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
    for (const auto &cl : doc.clauses) {
        o << "| `" << md_escape(cl.id) << "` |";
        for (const auto &n : names) {
            std::string v = "—";
            for (const auto &c : cl.configurations)
                if (c.name == n)
                    v = name_of(c.verdict);
            o << " " << v << " |";
        }
        o << "\n";
    }
    o << "\n</details>\n\n";
}

void run_summary(std::ostringstream &o, const Run &run, bool heading)
{
    const auto &doc = run.model;
    const auto summary = doc.summary.value_or(results::Summary{});
    const auto env = doc.environment.value_or(results::Environment{});
    const auto iut = doc.iut.value_or(results::Iut{});
    const auto &r = doc.run;
    if (heading)
        o << "### " << md_escape(run.label) << ": " << gate_of(run) << "\n\n";
    if (!doc.bench) {
        o << "- **MUST clauses passed:** " << text_or(summary.must_passed, "0") << " of "
          << text_or(summary.must_total, "0");
        if (text_or(summary.must_waived, "0") != "0")
            o << " (" << text_or(summary.must_waived) << " waived)";
        o << "\n";
    }
    o << "- **Implementation:** `" << md_escape(text_or(iut.path, "?")) << "`";
    if (const auto v = text_or(iut.version); !v.empty())
        o << " " << md_escape(v);
    if (const auto sha = text_or(iut.sha256); !sha.empty())
        o << " (sha256 `" << sha.substr(0, 16) << "…`)";
    o << "\n- **Platform:** " << md_escape(text_or(env.product, "?")) << ", " << md_escape(text_or(env.ranks, "?"))
      << " ranks, " << md_escape(text_or(env.transport, "?")) << "\n- **Run:** `" << md_escape(r.id) << "`, "
      << md_escape(r.status) << ", suite " << md_escape(text_or(r.suite_version, "?"));
    if (const auto c = text_or(r.suite_commit); !c.empty())
        o << " @ " << md_escape(c);
    if (const auto why = gate_failures(doc); !why.empty()) {
        o << "\n- **The gate fails:** ";
        for (std::size_t i = 0; i < why.size(); ++i)
            o << (i ? "; " : "") << md_escape(why[i]);
    }
    if (doc.bench) { // a benchmark has no verdicts to count, only its numbers
        o << "\n\n" << bench_markdown(*doc.bench);
        return;
    }
    o << "\n\n| Verdict | " << (doc.clauses.empty() && !doc.properties.empty() ? "Properties" : "Clauses")
      << " |\n|---|---:|\n";
    for (const auto v : kAllVerdicts) {
        const auto it = summary.by_verdict.find(name_of(v));
        if (it != summary.by_verdict.end() && it->second != 0)
            o << "| " << verdict_name(v) << " | " << it->second << " |\n";
    }
    o << "\n";

    configurations(o, doc);
    if (const auto &not_run = summary.not_run; !not_run.empty()) {
        o << "**" << not_run.size() << " clause(s) not decided by any case** (filtered or cut-short run):";
        for (std::size_t i = 0; i < not_run.size() && i < kMaxListed; ++i)
            o << " `" << md_escape(not_run[i]) << "`";
        if (not_run.size() > kMaxListed)
            o << " …";
        o << "\n\n";
    }
    std::vector<const results::Clause *> attention;
    for (const auto &cl : doc.clauses)
        if (!cl.verdict || *cl.verdict >= Verdict::Hazard)
            attention.push_back(&cl);
    if (attention.empty()) {
        o << "No clause failed.\n\n";
    } else {
        o << "| Clause | Kind | Verdict | Why | Reproduce |\n|---|---|---|---|---|\n";
        for (std::size_t i = 0; i < attention.size() && i < kMaxListed; ++i) {
            const auto &cl = *attention[i];
            auto why = clause_reason(doc, cl);
            if (why.empty())
                why = text_or(cl.title);
            if (const auto *w = clause_waiver(doc, cl); w && cl.verdict == Verdict::XPass)
                why = "passes, but expected " + w->expected + ": " + w->reason;
            const auto repro = first_reproducer(doc, cl);
            const auto source_class = text_or(cl.source_class);
            o << "| `" << md_escape(cl.id) << "` | " << md_escape(name_of(cl.kind))
              << (source_class.empty() ? "" : " (" + md_escape(source_class) + ")") << " | **"
              << text_or(cl.verdict, "NOT RUN") << "** | " << md_escape(why) << " | "
              << (repro.empty() ? std::string("") : "`" + md_escape(repro) + "`") << " |\n";
        }
        if (attention.size() > kMaxListed)
            o << "\n… and " << attention.size() - kMaxListed << " more in the HTML report.\n";
        o << "\n";
    }
    if (const auto rows = function_coverage(doc); !rows.empty()) {
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
    for (const auto &cl : doc.clauses)
        waived += cl.verdict == Verdict::Waived;
    if (waived)
        o << "_" << waived << " clause(s) waived by "
          << md_escape(doc.expectations ? text_or(doc.expectations->file, "an expectations file")
                                        : std::string("an expectations file"))
          << "._\n\n";
    std::size_t failed_props = 0;
    for (const auto &p : doc.properties) {
        if (p.verdict == Verdict::Pass)
            continue;
        if (failed_props++ == 0)
            o << "**Properties that failed:**\n\n";
        o << "- " << md_escape(p.name) << " (seed " << text_or(p.seed, "?") << ", " << text_or(p.shrinks, "?")
          << " shrinks): `" << md_escape(text_or(p.reproduce)) << "`\n";
    }
    if (failed_props)
        o << "\n";
    std::size_t bad_litmus = 0;
    for (const auto &l : doc.litmus) {
        if (l.verdict == Verdict::Pass || l.verdict == Verdict::Profile)
            continue;
        if (bad_litmus++ == 0)
            o << "**Litmus tests with forbidden outcomes:**\n\n";
        o << "- " << md_escape(l.id) << " " << md_escape(text_or(l.shape)) << " (" << verdict_name(l.verdict) << "):";
        for (const auto &f : l.forbidden) {
            const auto it = l.outcomes.find(f);
            if (it != l.outcomes.end() && it->second != 0)
                o << " " << md_escape(f) << " " << it->second << "×";
        }
        o << " in " << text_or(l.repetitions, "?") << " runs\n";
    }
    if (bad_litmus)
        o << "\n";
}

} // namespace

std::string suite_strength_markdown(const nlohmann::json &selftest)
{
    std::ostringstream o;
    const auto st = read_selftest(selftest);
    const auto &failed = st.failed;
    o << "### Suite strength: " << (st.ok ? "PASS" : "FAIL") << "\n\n- **Kill ratio (API-observable mutants):** "
      << st.killed << " of " << st.run;
    if (st.ratio)
        o << " (" << format_fixed(100.0 * *st.ratio, 1) << "%)";
    o << "\n- **Entries judged:** " << st.entries.size() << ", " << failed.size() << " expectation(s) did not hold\n\n";
    const auto &rows = st.matrix_rows;
    if (!rows.empty()) {
        o << "| Mutant | Killed by |\n|---|---|\n";
        std::size_t shown = 0;
        for (const auto &r : rows) {
            if (shown++ >= kMaxListed * 4) {
                o << "| … | " << rows.size() - kMaxListed * 4 << " more in the HTML report |\n";
                break;
            }
            o << "| `" << md_escape(r.mutant) << "` | "
              << (r.killed_by.empty() ? "**" + md_escape(text_or(r.outcome, "SURVIVED")) + "**"
                                      : md_escape(joined(r.killed_by)))
              << " |\n";
        }
        o << "\n";
    }
    if (!failed.empty()) {
        o << "**Expectations that did not hold:**\n\n";
        for (std::size_t i = 0; i < failed.size() && i < kMaxListed; ++i)
            o << "- " << md_escape(failed[i]) << "\n";
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
