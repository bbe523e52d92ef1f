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
#include "selftest_doc.h"
#include "text.h"

namespace hcts::report {
namespace {

struct Counts {
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    double time = 0;
};

std::string seconds(double s) { return format_fixed(s, 3); }

std::string testcase(const results::Document &doc, const results::Clause &clause,
                     const std::map<std::string, const results::Case *> &cases, Counts &counts)
{
    const auto &id = clause.id;
    const auto verdict = text_or(clause.verdict, "NOT RUN");
    double time = 0;
    std::ostringstream out; // system-out: the evidence, one case per block
    for (const auto &name : clause.cases) {
        const auto it = cases.find(name);
        if (it == cases.end()) {
            out << name << ": no result recorded\n";
            continue;
        }
        const auto &c = *it->second;
        const auto ms = c.duration_ms.value_or(0.0);
        time += ms / 1000.0;
        out << name << ": " << name_of(c.verdict) << " (" << format_fixed(ms, 1) << " ms)";
        if (c.seed)
            out << " seed " << *c.seed;
        out << "\n";
        if (const auto r = text_or(c.reason); !r.empty())
            out << "  reason: " << r << "\n";
        if (c.waived_from)
            out << "  waived from " << name_of(*c.waived_from) << ": " << (c.waiver ? c.waiver->reason : "") << "\n";
        for (const auto &m : c.messages)
            out << "  rank " << text_or(m.rank, "?") << ": " << m.text << "\n";
        if (const auto r = text_or(c.reproducer); !r.empty())
            out << "  reproduce: " << r << "\n";
    }
    if (clause.profile)
        out << "observed profile: " << clause.profile->observed << "\n";

    counts.tests++;
    counts.time += time;
    const auto area = text_or(clause.area, "general");
    const auto title = text_or(clause.title);
    std::ostringstream o;
    o << "    <testcase classname=\"hcts." << html_escape(area) << "\" name=\"" << html_escape(id)
      << (title.empty() ? "" : ": " + html_escape(title)) << "\" time=\"" << seconds(time) << "\">\n";
    auto message = clause_reason(doc, clause);
    if (message.empty())
        message = verdict;
    const auto *waiver = clause_waiver(doc, clause);
    if (verdict == "WAIVED" || verdict == "NOT_SUPPORTED") {
        counts.skipped++;
        std::string why = verdict == "WAIVED" ? "waived: " + (waiver ? waiver->reason : text_or(clause.reason))
                                              : "not supported: " + message;
        o << "      <skipped message=\"" << html_escape(why) << "\"/>\n";
    } else if (verdict == "FAIL" || verdict == "HAZARD" || verdict == "XPASS") {
        counts.failures++;
        if (verdict == "XPASS")
            message = "passes, but an expectation says " + (waiver ? waiver->expected : "it fails") + " (" +
                      (waiver ? waiver->reason : "") + "): remove the stale expectation";
        o << "      <failure type=\"" << verdict << "\" message=\"" << html_escape(message) << "\">"
          << html_escape(text_or(clause.statement)) << "</failure>\n";
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

// What a property or litmus entry shows as a testcase.
struct SimpleItem {
    std::string name, verdict, reason, observation;
    std::optional<uint64_t> seed;
    std::optional<int64_t> runs, shrinks;
    std::optional<std::string> reproduce, command;
    std::vector<std::string> counterexample;
    std::map<std::string, int64_t> outcomes;
};

SimpleItem simple_item(const results::Property &p)
{
    return {
        p.name, name_of(p.verdict), text_or(p.reason), "",        p.seed,
        p.runs, p.shrinks,          p.reproduce,       p.command, p.counterexample.value_or(std::vector<std::string>{}),
        {}};
}

SimpleItem simple_item(const results::Litmus &l)
{
    return {l.id + (text_or(l.shape).empty() ? "" : " " + *l.shape),
            name_of(l.verdict),
            "",
            text_or(l.observation),
            std::nullopt,
            std::nullopt,
            std::nullopt,
            std::nullopt,
            std::nullopt,
            {},
            l.outcomes};
}

// A property or litmus entry as a testcase: name, verdict, and what reproduces it.
std::string simple_testcase(const char *kind, const SimpleItem &item, Counts &counts)
{
    const auto &verdict = item.verdict;
    std::ostringstream out;
    if (item.seed)
        out << "seed " << *item.seed << "\n";
    if (item.runs)
        out << *item.runs << " runs, " << text_or(item.shrinks, "0") << " shrinks\n";
    if (const auto r = text_or(item.reproduce); !r.empty())
        out << "reproduce: " << r << "\n";
    if (const auto c = text_or(item.command); !c.empty())
        out << "command: " << c << "\n";
    for (const auto &step : item.counterexample)
        out << "  " << step << "\n";
    for (const auto &[outcome, n] : item.outcomes)
        out << outcome << ": " << n << "\n";
    counts.tests++;
    std::ostringstream o;
    o << "    <testcase classname=\"hcts." << kind << "\" name=\"" << html_escape(item.name) << "\" time=\"0.000\">\n";
    auto message = item.reason;
    if (message.empty())
        message =
            std::string(kind) == "litmus" ? "forbidden outcome observed: " + item.observation : "property falsified";
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
        const auto &doc = run.model;
        std::map<std::string, const results::Case *> cases;
        for (const auto &c : doc.cases)
            cases[c.name] = &c;
        Counts counts;
        std::ostringstream body;
        for (const auto &clause : doc.clauses)
            body << testcase(doc, clause, cases, counts);
        // Clauses the run knew of but never decided are testcases too: errors, never silently dropped.
        if (doc.summary)
            for (const auto &id : doc.summary->not_run) {
                results::Clause missing;
                missing.id = id;
                body << testcase(doc, missing, cases, counts);
            }
        // Properties, and litmus tests whose case is not already reported through a clause.
        std::set<std::string> case_names;
        for (const auto &c : doc.cases)
            case_names.insert(c.name);
        for (const auto &p : doc.properties)
            body << simple_testcase("property", simple_item(p), counts);
        for (const auto &l : doc.litmus)
            if (!case_names.contains(text_or(l.case_name)))
                body << simple_testcase("litmus", simple_item(l), counts);
        const auto &r = doc.run;
        suites << "  <testsuite name=\"hcts." << html_escape(run.label) << "\" tests=\"" << counts.tests
               << "\" failures=\"" << counts.failures << "\" errors=\"" << counts.errors << "\" skipped=\""
               << counts.skipped << "\" time=\"" << seconds(counts.time) << "\" timestamp=\""
               << html_escape(text_or(r.started)) << "\" hostname=\"" << html_escape(r.id) << "\">\n    <properties>\n";
        auto prop = [&](const char *name, const std::string &value) {
            if (!value.empty())
                suites << "      <property name=\"" << name << "\" value=\"" << html_escape(value) << "\"/>\n";
        };
        const auto iut = doc.iut.value_or(results::Iut{});
        const auto env = doc.environment.value_or(results::Environment{});
        prop("iut.path", text_or(iut.path));
        prop("iut.sha256", text_or(iut.sha256));
        prop("product", text_or(env.product));
        prop("ranks", text_or(env.ranks));
        prop("run.status", r.status);
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
        for (const auto &e : read_selftest(*info.selftest).entries) {
            ++counts.tests;
            counts.time += e.seconds;
            body << "    <testcase classname=\"hcts.selftest." << html_escape(text_or(e.kind)) << "\" name=\""
                 << html_escape(e.id) << "\" time=\"" << seconds(e.seconds) << "\">";
            if (!e.ok) {
                ++counts.failures;
                std::string why;
                for (const auto &p : e.problems)
                    why += (why.empty() ? "" : "; ") + p;
                body << "<failure type=\"" << html_escape(text_or(e.verdict)) << "\" message=\"" << html_escape(why)
                     << "\"/>";
            }
            body << "<system-out>" << html_escape(text_or(e.reproducer)) << "</system-out></testcase>\n";
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
