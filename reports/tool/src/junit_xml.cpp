// JUnit XML for CI systems: one testcase per clause. Mapping, chosen so a CI
// dashboard counts exactly what the gate counts:
//   PASS, PROFILE            -> passed (PROFILE reports the observed behaviour in system-out)
//   WAIVED, NOT_SUPPORTED    -> skipped (with the reason)
//   FAIL, HAZARD, XPASS      -> failure
//   TIMEOUT, CRASH           -> error (timeouts are never passes)
//   no verdict (not run)     -> error
// The time of a clause is the sum of its cases' durations. Properties, and
// litmus tests not already reported through a clause's case, are testcases too
// (classname hcts.property / hcts.litmus), so a property run is not empty; so is
// each entry of a self-test (classname hcts.selftest.<kind>) when one is given.
#include <map>
#include <set>
#include <sstream>

#include "renderers.h"
#include "text.h"

namespace hcts::report {
namespace {

struct Counts {
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    double time = 0;
};

std::string seconds(double s) { return format_fixed(s, 3); }

std::string testcase(const nlohmann::json &doc, const nlohmann::json &clause,
                     const std::map<std::string, const nlohmann::json *> &cases, Counts &counts)
{
    const auto id = field(clause, "id");
    const auto verdict = field(clause, "verdict", "NOT RUN");
    double time = 0;
    std::ostringstream out; // system-out: the evidence, one case per block
    for (const auto &n : array_at(clause, "cases")) {
        const auto name = n.is_string() ? n.get<std::string>() : std::string();
        const auto it = cases.find(name);
        if (it == cases.end()) {
            out << name << ": no result recorded\n";
            continue;
        }
        const auto &c = *it->second;
        const auto ms =
            c.contains("duration_ms") && c["duration_ms"].is_number() ? c["duration_ms"].get<double>() : 0.0;
        time += ms / 1000.0;
        out << name << ": " << field(c, "verdict") << " (" << format_fixed(ms, 1) << " ms)";
        if (const auto s = field(c, "seed"); !s.empty())
            out << " seed " << s;
        out << "\n";
        if (const auto r = field(c, "reason"); !r.empty())
            out << "  reason: " << r << "\n";
        if (const auto w = field(c, "waived_from"); !w.empty())
            out << "  waived from " << w << ": " << field(object_at(c, "waiver"), "reason") << "\n";
        for (const auto &m : array_at(c, "messages"))
            out << "  rank " << field(m, "rank", "?") << ": " << field(m, "text") << "\n";
        if (const auto r = field(c, "reproducer"); !r.empty())
            out << "  reproduce: " << r << "\n";
    }
    if (const auto &p = object_at(clause, "profile"); !p.empty())
        out << "observed profile: " << field(p, "observed", "?") << "\n";

    counts.tests++;
    counts.time += time;
    const auto area = field(clause, "area", "general");
    std::ostringstream o;
    o << "    <testcase classname=\"hcts." << html_escape(area) << "\" name=\"" << html_escape(id)
      << (field(clause, "title").empty() ? "" : ": " + html_escape(field(clause, "title"))) << "\" time=\""
      << seconds(time) << "\">\n";
    auto message = clause_reason(doc, clause);
    if (message.empty())
        message = verdict;
    const auto &waiver = clause_waiver(doc, clause);
    if (verdict == "WAIVED" || verdict == "NOT_SUPPORTED") {
        counts.skipped++;
        std::string why = verdict == "WAIVED" ? "waived: " + field(waiver, "reason", field(clause, "reason"))
                                              : "not supported: " + message;
        o << "      <skipped message=\"" << html_escape(why) << "\"/>\n";
    } else if (verdict == "FAIL" || verdict == "HAZARD" || verdict == "XPASS") {
        counts.failures++;
        if (verdict == "XPASS")
            message = "passes, but an expectation says " + field(waiver, "expected", "it fails") + " (" +
                      field(waiver, "reason") + "): remove the stale expectation";
        o << "      <failure type=\"" << verdict << "\" message=\"" << html_escape(message) << "\">"
          << html_escape(field(clause, "statement")) << "</failure>\n";
    } else if (verdict == "TIMEOUT" || verdict == "CRASH" || verdict == "NOT RUN") {
        counts.errors++;
        o << "      <error type=\"" << verdict << "\" message=\""
          << html_escape(verdict == "NOT RUN" ? "the clause did not run" : message) << "\"/>\n";
    }
    const auto text = out.str();
    if (!text.empty())
        o << "      <system-out>" << html_escape(text) << "</system-out>\n";
    o << "    </testcase>\n";
    return o.str();
}

// A property or litmus entry as a testcase: name, verdict, and what reproduces it.
std::string simple_testcase(const char *kind, const nlohmann::json &item, Counts &counts)
{
    const auto verdict = field(item, "verdict", "NOT RUN");
    const auto name =
        field(item, "name", field(item, "id", "?")) +
        (std::string_view(kind) == "litmus" && !field(item, "shape").empty() ? " " + field(item, "shape") : "");
    std::ostringstream out;
    if (const auto s = field(item, "seed"); !s.empty())
        out << "seed " << s << "\n";
    if (const auto runs = field(item, "runs"); !runs.empty())
        out << runs << " runs, " << field(item, "shrinks", "0") << " shrinks\n";
    if (const auto r = field(item, "reproduce"); !r.empty())
        out << "reproduce: " << r << "\n";
    if (const auto c = field(item, "command"); !c.empty())
        out << "command: " << c << "\n";
    for (const auto &step : array_at(item, "counterexample"))
        out << "  " << text_of(step) << "\n";
    for (const auto &[outcome, n] : object_at(item, "outcomes").items())
        out << outcome << ": " << n.dump() << "\n";
    counts.tests++;
    std::ostringstream o;
    o << "    <testcase classname=\"hcts." << kind << "\" name=\"" << html_escape(name) << "\" time=\"0.000\">\n";
    auto message = field(item, "reason");
    if (message.empty())
        message = std::string(kind) == "litmus" ? "forbidden outcome observed: " + field(item, "observation")
                                                : "property falsified";
    if (verdict == "FAIL" || verdict == "HAZARD" || verdict == "XPASS") {
        counts.failures++;
        o << "      <failure type=\"" << verdict << "\" message=\"" << html_escape(message) << "\"/>\n";
    } else if (verdict == "TIMEOUT" || verdict == "CRASH" || verdict == "NOT RUN") {
        counts.errors++;
        o << "      <error type=\"" << verdict << "\" message=\"" << html_escape(verdict) << "\"/>\n";
    } else if (verdict == "NOT_SUPPORTED" || verdict == "WAIVED") {
        counts.skipped++;
        o << "      <skipped message=\"" << verdict << "\"/>\n";
    }
    if (const auto text = out.str(); !text.empty())
        o << "      <system-out>" << html_escape(text) << "</system-out>\n";
    o << "    </testcase>\n";
    return o.str();
}

} // namespace

std::string render_junit(std::span<const Run> runs, const RenderInfo &info)
{
    Counts total;
    std::ostringstream suites;
    for (const auto &run : runs) {
        std::map<std::string, const nlohmann::json *> cases;
        for (const auto &c : array_at(run.doc, "cases"))
            cases[field(c, "name")] = &c;
        Counts counts;
        std::ostringstream body;
        for (const auto &clause : array_at(run.doc, "clauses"))
            body << testcase(run.doc, clause, cases, counts);
        // Clauses the run knew of but never decided are testcases too: errors, never silently dropped.
        for (const auto &id : array_at(object_at(run.doc, "summary"), "not_run")) {
            const nlohmann::json missing = {{"id", text_of(id)}, {"verdict", nullptr}};
            body << testcase(run.doc, missing, cases, counts);
        }
        // Properties, and litmus tests whose case is not already reported through a clause.
        std::set<std::string> case_names;
        for (const auto &c : array_at(run.doc, "cases"))
            case_names.insert(field(c, "name"));
        for (const auto &p : array_at(run.doc, "properties"))
            body << simple_testcase("property", p, counts);
        for (const auto &l : array_at(run.doc, "litmus"))
            if (!case_names.contains(field(l, "case")))
                body << simple_testcase("litmus", l, counts);
        const auto &r = object_at(run.doc, "run");
        suites << "  <testsuite name=\"hcts." << html_escape(run.label) << "\" tests=\"" << counts.tests
               << "\" failures=\"" << counts.failures << "\" errors=\"" << counts.errors << "\" skipped=\""
               << counts.skipped << "\" time=\"" << seconds(counts.time) << "\" timestamp=\""
               << html_escape(field(r, "started")) << "\" hostname=\"" << html_escape(field(r, "id"))
               << "\">\n    <properties>\n";
        auto prop = [&](const char *name, const std::string &value) {
            if (!value.empty())
                suites << "      <property name=\"" << name << "\" value=\"" << html_escape(value) << "\"/>\n";
        };
        const auto &iut = object_at(run.doc, "iut");
        const auto &env = object_at(run.doc, "environment");
        prop("iut.path", field(iut, "path"));
        prop("iut.sha256", field(iut, "sha256"));
        prop("product", field(env, "product"));
        prop("ranks", field(env, "ranks"));
        prop("run.status", field(r, "status"));
        prop("gate", gate_of(run));
        prop("results", run.path);
        suites << "    </properties>\n" << body.str() << "  </testsuite>\n";
        total.tests += counts.tests;
        total.failures += counts.failures;
        total.errors += counts.errors;
        total.skipped += counts.skipped;
        total.time += counts.time;
    }
    // A self-test (hcts-selftest): one testcase per entry, a failure when its expectation did not hold.
    if (info.selftest) {
        Counts counts;
        std::ostringstream body;
        for (const auto &e : array_at(*info.selftest, "entries")) {
            ++counts.tests;
            const auto it = e.find("seconds");
            const double secs = it != e.end() && it->is_number() ? it->get<double>() : 0.0;
            counts.time += secs;
            body << "    <testcase classname=\"hcts.selftest." << html_escape(field(e, "kind")) << "\" name=\""
                 << html_escape(field(e, "id")) << "\" time=\"" << seconds(secs) << "\">";
            if (field(e, "ok") != "true") {
                ++counts.failures;
                std::string why;
                for (const auto &p : array_at(e, "problems"))
                    why += (why.empty() ? "" : "; ") + text_of(p);
                body << "<failure type=\"" << html_escape(field(e, "verdict")) << "\" message=\"" << html_escape(why)
                     << "\"/>";
            }
            body << "<system-out>" << html_escape(field(e, "reproducer")) << "</system-out></testcase>\n";
        }
        suites << "  <testsuite name=\"hcts.selftest\" tests=\"" << counts.tests << "\" failures=\"" << counts.failures
               << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(counts.time) << "\">\n"
               << body.str() << "  </testsuite>\n";
        total.tests += counts.tests;
        total.failures += counts.failures;
        total.time += counts.time;
    }
    std::ostringstream o;
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hcts\" tests=\"" << total.tests
      << "\" failures=\"" << total.failures << "\" errors=\"" << total.errors << "\" skipped=\"" << total.skipped
      << "\" time=\"" << seconds(total.time) << "\" timestamp=\"" << html_escape(info.generated) << "\">\n"
      << suites.str() << "</testsuites>\n";
    return o.str();
}

} // namespace hcts::report
