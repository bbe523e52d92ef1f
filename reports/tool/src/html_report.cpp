// The self-contained HTML report: one page, inline CSS, SVG and script, no
// network access, readable when opened straight from a bundle or CI artifact.
#include <map>
#include <set>
#include <sstream>

#include <hcts/expectations.h>

#include "comparison.h"
#include "renderers.h"
#include "report_resources.h"
#include "selftest_doc.h"
#include "text.h"

namespace hcts::report {
namespace {

using nlohmann::json;

std::string css_class(std::string_view verdict)
{
    std::string out = "v-";
    for (const char c : verdict)
        out += (c == ' ' ? '_' : c);
    return out;
}

std::string badge(std::string_view verdict)
{
    return "<span class=\"badge " + css_class(verdict) + "\">" + html_escape(verdict) + "</span>";
}

// Sort key of a verdict cell: worse verdicts sort later.
std::string verdict_key(std::string_view verdict) { return std::to_string(expectations::verdict_rank(verdict)); }

std::string code_or_dash(const std::string &text)
{
    return text.empty() ? "<span class=\"muted\">—</span>" : "<code>" + html_escape(text) + "</code>";
}

std::string text_or_dash(const std::string &text)
{
    return text.empty() ? "<span class=\"muted\">—</span>" : html_escape(text);
}

// What promise a clause rests on (seed, vendor-doc, vendor-code, vendor-test or
// reference), under its kind; documents written before the field existed show none.
std::string source_class_tag(const results::Clause &clause)
{
    const auto cls = text_or(clause.source_class);
    return cls.empty() ? "" : "<div class=\"muted small source-class\">" + html_escape(cls) + "</div>";
}

std::map<std::string, const results::Case *> index_cases(const results::Document &doc)
{
    std::map<std::string, const results::Case *> out;
    for (const auto &c : doc.cases)
        out[c.name] = &c;
    return out;
}

double duration_s(const results::Case &c) { return c.duration_ms.value_or(0.0) / 1000.0; }

// A waived or XPASS case/clause: say what it was and why.
std::string waiver_note(const std::optional<results::Waiver> &waiver, const std::optional<Verdict> &waived_from)
{
    if (!waiver)
        return {};
    std::string note = "<p class=\"waiver\">";
    if (waived_from)
        note += "Waived (was " + badge(verdict_name(*waived_from)) + ")";
    else
        note += "Unexpected pass: the expectation (" + badge(waiver->expected) + ") is stale";
    note += " — " + html_escape(waiver->reason) + " <span class=\"muted\">(" + html_escape(text_or(waiver->source)) +
            ")</span></p>";
    return note;
}

// One case as evidence; under a clause (`clause_id` given) it shows what the
// case decided for that clause, which can differ from the case as a whole.
std::string case_evidence(const results::Case &c, const std::string &clause_id = {})
{
    std::ostringstream o;
    const auto per_clause = clause_id.empty() ? c.clause_verdicts.end() : c.clause_verdicts.find(clause_id);
    const auto case_verdict = name_of(c.verdict);
    const auto verdict = per_clause != c.clause_verdicts.end() ? name_of(per_clause->second.verdict) : case_verdict;
    o << "<tr class=\"case-row\" data-verdict=\"" << html_escape(verdict) << "\"><td><code>" << html_escape(c.name)
      << "</code></td><td data-sort-key=\"" << verdict_key(verdict) << "\">" << badge(verdict);
    if (verdict != case_verdict)
        o << "<div class=\"muted small\">case: " << html_escape(case_verdict) << "</div>";
    o << "</td><td class=\"num\" data-sort-key=\"" << duration_s(c) << "\">" << format_seconds(duration_s(c))
      << "</td><td>" << text_or_dash(text_or(c.seed)) << "</td><td>";
    const auto reason = text_or(c.reason);
    if (!reason.empty())
        o << "<div class=\"reason\">" << html_escape(reason) << "</div>";
    const auto waiver = waiver_note(c.waiver, c.waived_from);
    o << waiver;
    if (!c.messages.empty()) {
        o << "<ul class=\"messages\">";
        for (const auto &m : c.messages)
            o << "<li><span class=\"rank\">rank " << html_escape(text_or(m.rank, "?")) << "</span> "
              << html_escape(m.text) << "</li>";
        o << "</ul>";
    }
    const auto reproducer = text_or(c.reproducer);
    if (!reproducer.empty())
        o << "<div class=\"repro\"><span class=\"muted\">reproduce:</span> <code>" << html_escape(reproducer)
          << "</code></div>";
    const bool obs = c.observations.is_object() && !c.observations.empty();
    if (obs)
        o << "<details class=\"obs\"><summary>observations</summary><pre>" << html_escape(c.observations.dump(1))
          << "</pre></details>";
    if (reason.empty() && c.messages.empty() && reproducer.empty() && !obs && waiver.empty())
        o << "<span class=\"muted\">—</span>";
    o << "</td></tr>";
    return o.str();
}

std::string filter_controls(const std::string &table_id, const std::set<std::string> &verdicts, const std::string &what)
{
    std::ostringstream o;
    o << "<div class=\"controls\" data-table=\"" << table_id << "\"><input type=\"search\" placeholder=\"Filter "
      << what << "…\" aria-label=\"filter " << what
      << "\"><select aria-label=\"verdict\"><option value=\"\">all verdicts</option>";
    for (const auto v : expectations::all_verdicts())
        if (verdicts.contains(std::string(v)))
            o << "<option>" << v << "</option>";
    if (verdicts.contains("NOT RUN"))
        o << "<option>NOT RUN</option>";
    o << "</select><span class=\"shown muted\"></span></div>";
    return o.str();
}

// The configurations a clause ran in, each with its verdict there (merged runs of
// ./hcts run: plain, segment, adversarial).
std::string configurations_cell(const results::Clause &cl)
{
    std::string out;
    for (const auto &c : cl.configurations)
        out += "<span class=\"conf\">" + html_escape(c.name) + "&nbsp;" + badge(verdict_name(c.verdict)) + "</span> ";
    return out.empty() ? "<span class=\"muted\">—</span>" : out;
}

void clause_table(std::ostringstream &o, const Run &run, std::size_t r)
{
    const auto cases = index_cases(run.model);
    const auto &clauses = run.model.clauses;
    std::set<std::string> verdicts;
    bool configured = false;
    for (const auto &cl : clauses) {
        verdicts.insert(text_or(cl.verdict, "NOT RUN"));
        configured = configured || !cl.configurations.empty();
    }
    const std::string id = "clauses-" + std::to_string(r);
    o << "<h3 id=\"" << id << "-h\">Clauses <span class=\"muted\">(" << clauses.size() << ")</span></h3>"
      << filter_controls(id, verdicts, "clauses") << "<table class=\"sortable clauses\" id=\"" << id
      << "\"><thead><tr><th>Clause</th><th>Kind</th><th>Area</th>"
         "<th>Verdict</th>"
      << (configured ? "<th>Configurations</th>" : "")
      << "<th>Title and evidence</th><th class=\"num\">Cases</th><th "
         "class=\"num\">Time</th></tr></thead><tbody>";
    for (const auto &cl : clauses) {
        const auto verdict = text_or(cl.verdict, "NOT RUN");
        const bool bad = !cl.verdict || *cl.verdict >= Verdict::Hazard;
        double time = 0;
        std::ostringstream evidence;
        const auto &names = cl.cases;
        for (const auto &name : names) {
            const auto it = cases.find(name);
            if (it == cases.end()) {
                evidence << "<tr class=\"case-row\" data-verdict=\"NOT RUN\"><td><code>" << html_escape(name)
                         << "</code></td><td>" << badge("NOT RUN")
                         << "</td><td></td><td></td><td class=\"muted\">no result recorded</td></tr>";
                continue;
            }
            time += duration_s(*it->second);
            evidence << case_evidence(*it->second, cl.id);
        }
        o << "<tr class=\"clause-row\" id=\"r" << r << "-" << html_escape(cl.id) << "\" data-verdict=\""
          << html_escape(verdict) << "\"><td><code>" << html_escape(cl.id) << "</code></td><td>"
          << html_escape(name_of(cl.kind)) << source_class_tag(cl) << "</td><td>" << html_escape(text_or(cl.area))
          << "</td><td data-sort-key=\"" << verdict_key(verdict) << "\">" << badge(verdict) << "</td>"
          << (configured ? "<td>" + configurations_cell(cl) + "</td>" : "") << "<td><details class=\"evidence\""
          << (bad ? " open" : "") << "><summary>" << text_or_dash(text_or(cl.title)) << "</summary>";
        const auto statement = text_or(cl.statement);
        if (!statement.empty())
            o << "<p class=\"statement\">" << html_escape(statement) << "</p>";
        const auto source = text_or(cl.source);
        if (!source.empty())
            o << "<p class=\"muted\">Source"
              << (text_or(cl.source_class).empty() ? "" : " (" + html_escape(*cl.source_class) + ")") << ": "
              << html_escape(source) << "</p>";
        const auto reason = text_or(cl.reason);
        if (!reason.empty())
            o << "<p class=\"reason\">" << html_escape(reason) << "</p>";
        o << waiver_note(cl.waiver, cl.waived_from);
        if (cl.profile)
            o << "<p>Observed profile: <b>" << html_escape(cl.profile->observed) << "</b></p>";
        if (!names.empty())
            o << "<table class=\"cases\"><thead><tr><th>Case</th><th>Verdict</th><th "
                 "class=\"num\">Time</th><th>Seed</th>"
                 "<th>Evidence</th></tr></thead><tbody>"
              << evidence.str() << "</tbody></table>";
        else
            o << "<p class=\"muted\">No cases: decided at clause level.</p>";
        o << "</details></td><td class=\"num\">" << names.size() << "</td><td class=\"num\" data-sort-key=\"" << time
          << "\">" << format_seconds(time) << "</td></tr>";
    }
    o << "</tbody></table>";
}

// Function x clause x verdict: which clauses judge each exported function.
void function_table(std::ostringstream &o, const Run &run, std::size_t r)
{
    const auto rows = function_coverage(run.model);
    if (rows.empty())
        return;
    o << "<details class=\"coverage\" id=\"functions-" << r
      << "\"><summary><h3>Coverage by function <span "
         "class=\"muted\">("
      << rows.size()
      << " functions)</span></h3></summary><table class=\"sortable functions\"><thead><tr><th>Function</th><th "
         "class=\"num\">Clauses</th><th>Clauses and verdicts</th></tr></thead><tbody>";
    for (const auto &row : rows) {
        o << "<tr><td><code>" << html_escape(row.function) << "</code></td><td class=\"num\">" << row.clauses.size()
          << "</td><td>";
        for (const auto &[id, verdict] : row.clauses)
            o << "<a href=\"#r" << r << "-" << html_escape(id) << "\"><code>" << html_escape(id) << "</code></a> "
              << badge(verdict) << " ";
        o << "</td></tr>";
    }
    o << "</tbody></table></details>";
}

// A part of a run's section that is left out when it has nothing to show:
// `head`, what `piece` writes for each entry (possibly nothing), `tail`.
template <class Entries, class Piece>
void optional_part(std::ostringstream &o, const Entries &entries, std::string_view head, Piece piece,
                   std::string_view tail)
{
    std::ostringstream body;
    for (const auto &entry : entries)
        piece(body, entry);
    if (body.str().empty())
        return;
    o << head << body.str() << tail;
}

constexpr std::string_view kProfilesHead =
    "<h3>Observed profiles</h3><p class=\"muted\">Behaviours the documents leave open: what this implementation "
    "does.</p>"
    "<table "
    "class=\"plain\"><thead><tr><th>Clause</th><th>Question</th><th>Observed</th><th>Allowed</th><th>Verdict</th>"
    "</tr></thead><tbody>";

// Only clauses that observe a profile get a row.
void profile_row(std::ostringstream &o, const results::Clause &cl)
{
    if (!cl.profile && cl.kind != ClauseKind::Profile)
        return;
    const auto profile = cl.profile.value_or(results::Profile{});
    o << "<tr><td><code>" << html_escape(cl.id) << "</code></td><td>" << text_or_dash(text_or(cl.title))
      << "</td><td><b>" << text_or_dash(profile.observed) << "</b></td><td>" << text_or_dash(joined(profile.allowed))
      << "</td><td>" << badge(text_or(cl.verdict, "NOT RUN")) << "</td></tr>";
}

constexpr std::string_view kLitmusHead = "<h3>Litmus tests</h3><p class=\"muted\">Outcome histograms; red bars are "
                                         "forbidden outcomes that were observed.</p>"
                                         "<div class=\"litmus-grid\">";

void litmus_figure(std::ostringstream &o, const results::Litmus &t)
{
    o << "<figure class=\"litmus\" data-verdict=\"" << html_escape(verdict_name(t.verdict)) << "\"><figcaption><b>"
      << html_escape(t.id) << " " << html_escape(text_or(t.shape)) << "</b> " << badge(verdict_name(t.verdict))
      << "<br><span class=\"muted\">" << html_escape(text_or(t.case_name)) << " · "
      << html_escape(text_or(t.repetitions, "?"))
      << " repetitions · forbidden observed: " << html_escape(text_or(t.observation, "?")) << "</span></figcaption>"
      << litmus_svg(t);
    const auto bound = text_or(t.bound);
    if (!bound.empty())
        o << "<div class=\"muted small\">" << html_escape(bound) << "</div>";
    o << "</figure>";
}

constexpr std::string_view kPropertiesHead =
    "<h3>Properties</h3><table class=\"sortable plain\"><thead><tr><th>Property</th><th>Verdict</th><th "
    "class=\"num\">Runs</th>"
    "<th class=\"num\">Shrinks</th><th>Seed</th><th>Reproduce</th><th>Counterexample</th></tr></thead><tbody>";

void property_row(std::ostringstream &o, const results::Property &p)
{
    const auto verdict = name_of(p.verdict);
    o << "<tr data-verdict=\"" << html_escape(verdict) << "\"><td>" << html_escape(p.name)
      << "</td><td data-sort-key=\"" << verdict_key(verdict) << "\">" << badge(verdict) << "</td><td class=\"num\">"
      << text_or_dash(text_or(p.runs)) << "</td><td class=\"num\">" << text_or_dash(text_or(p.shrinks)) << "</td><td>"
      << text_or_dash(text_or(p.seed)) << "</td><td>" << code_or_dash(text_or(p.reproduce));
    const auto command = text_or(p.command);
    if (!command.empty())
        o << "<div class=\"repro\"><code>" << html_escape(command) << "</code></div>";
    o << "</td><td>";
    const auto reason = text_or(p.reason);
    if (!reason.empty())
        o << "<div class=\"reason\">" << html_escape(reason) << "</div>";
    const auto steps = p.counterexample.value_or(std::vector<std::string>{});
    if (steps.empty() && reason.empty())
        o << "<span class=\"muted\">—</span>";
    else {
        o << "<ol class=\"steps\">";
        for (const auto &step : steps)
            o << "<li><code>" << html_escape(step) << "</code></li>";
        o << "</ol>";
    }
    o << "</td></tr>";
}

void all_cases(std::ostringstream &o, const Run &run, std::size_t r)
{
    const auto &cases = run.model.cases;
    if (cases.empty())
        return;
    std::set<std::string> verdicts;
    double total = 0;
    for (const auto &c : cases) {
        verdicts.insert(name_of(c.verdict));
        total += duration_s(c);
    }
    const std::string id = "cases-" + std::to_string(r);
    o << "<details class=\"section\"><summary><h3>All cases <span class=\"muted\">(" << cases.size() << ", "
      << format_seconds(total) << ")</span></h3></summary>" << filter_controls(id, verdicts, "cases")
      << "<table class=\"sortable cases\" id=\"" << id
      << "\"><thead><tr><th>Case</th><th>Verdict</th><th "
         "class=\"num\">Time</th><th>Seed</th><th>Evidence</th></tr></thead><tbody>";
    for (const auto &c : cases)
        o << case_evidence(c);
    o << "</tbody></table></details>";
}

void kv(std::ostringstream &o, std::string_view key, const std::string &value, bool code = false)
{
    o << "<tr><th>" << key << "</th><td>" << (code ? code_or_dash(value) : text_or_dash(value)) << "</td></tr>";
}

void environment(std::ostringstream &o, const Run &run)
{
    const auto &doc = run.model;
    const auto &r = doc.run;
    const auto iut = doc.iut.value_or(results::Iut{});
    const auto adapter = doc.adapter.value_or(results::AdapterSection{});
    const auto env = doc.environment.value_or(results::Environment{});
    o << "<h3>Environment</h3><div class=\"env\"><table class=\"kv\"><caption>Implementation under test</caption>";
    kv(o, "Name", text_or(iut.name));
    kv(o, "Path", text_or(iut.path), true);
    kv(o, "SHA-256", text_or(iut.sha256), true);
    kv(o, "Version", text_or(iut.version));
    kv(o, "Adapter", text_or(adapter.name));
    kv(o, "Adapter path", text_or(adapter.path), true);
    kv(o, "Adapter SHA-256", text_or(adapter.sha256), true);
    kv(o, "Adapter ABI", text_or(adapter.abi_version));
    o << "</table><table class=\"kv\"><caption>Platform</caption>";
    kv(o, "Product", text_or(env.product));
    kv(o, "Ranks", text_or(env.ranks));
    kv(o, "Hosts", joined(env.hosts.value_or(std::vector<std::string>{})));
    kv(o, "OS", text_or(env.os));
    kv(o, "Transport", text_or(env.transport));
    o << "</table><table class=\"kv\"><caption>Run</caption>";
    kv(o, "Run id", r.id, true);
    kv(o, "Kind", text_or(r.kind));
    kv(o, "Status", r.status);
    kv(o, "Started", text_or(r.started));
    kv(o, "Finished", text_or(r.finished));
    kv(o, "Mode / seed", text_or(r.mode) + (r.seed ? " / " + text_or(r.seed) : ""));
    kv(o, "Suite", text_or(r.suite_version) + (text_or(r.suite_commit).empty() ? "" : " @ " + *r.suite_commit));
    kv(o, "Command", text_or(r.command), true);
    kv(o, "Results file", run.path, true);
    o << "</table></div>";
    // The configurations merged into this document (./hcts run), each a run of its own.
    if (const auto &confs = doc.configurations; !confs.empty()) {
        o << "<h3>Configurations</h3><table class=\"plain\"><thead><tr><th>Configuration</th><th>Status</th>"
             "<th>Mode / seed</th><th class=\"num\">Segment</th><th>Cases run</th><th class=\"num\">Cases</th>"
             "<th>Command</th></tr></thead><tbody>";
        for (const auto &c : confs) {
            const auto seed = text_or(c.seed);
            const auto error = text_or(c.error), filter = text_or(c.filter);
            o << "<tr><td><b>" << html_escape(c.name) << "</b></td><td>"
              << badge(c.status == "complete" ? "PASS" : "ERROR") << " " << html_escape(c.status)
              << (error.empty() ? "" : ": ") << html_escape(error) << "</td><td>"
              << html_escape(text_or(c.mode, "plain")) << (seed.empty() ? "" : " / " + html_escape(seed))
              << "</td><td class=\"num\">" << text_or_dash(text_or(c.segment_size)) << "</td><td>"
              << (filter.empty() ? std::string("all") : code_or_dash(filter)) << "</td><td class=\"num\">"
              << html_escape(text_or(c.cases, "0")) << "</td><td>" << code_or_dash(text_or(c.command)) << "</td></tr>";
        }
        o << "</tbody></table>";
    }
}

void expectations_block(std::ostringstream &o, const Run &run)
{
    if (!run.model.expectations)
        return;
    const auto &e = *run.model.expectations;
    const auto file = text_or(e.file);
    if (file.empty())
        return;
    o << "<h3>Expectations</h3><table class=\"kv\">";
    kv(o, "File", file, true);
    kv(o, "Entries (active here)", text_or(e.entries, "?") + " (" + text_or(e.active, "?") + ")");
    kv(o, "Waived clauses", joined(e.waived));
    kv(o, "Unexpected passes (XPASS)", joined(e.xpass));
    kv(o, "Entries that matched nothing", joined(e.unmatched));
    o << "</table>";
}

void run_section(std::ostringstream &o, const Run &run, std::size_t r)
{
    const auto &doc = run.model;
    const auto summary = doc.summary.value_or(results::Summary{});
    const auto gate = gate_of(run);
    const auto &status = doc.run.status;
    const auto &clauses = doc.clauses;
    const bool bench = doc.bench.has_value(); // a benchmark has no clauses to count or table
    o << "<section class=\"run\" id=\"run-" << r << "\" data-gate=\"" << (gate == "PASS" ? "pass" : "fail")
      << "\" data-clauses=\"" << clauses.size() << "\"><h2>" << html_escape(run.label) << " " << badge(gate)
      << "</h2><div class=\"cards\">";
    const auto &props = doc.properties;
    if (!clauses.empty() || (props.empty() && !bench)) {
        o << "<div class=\"card\"><div class=\"big\">" << html_escape(text_or(summary.must_passed, "0"))
          << "<span class=\"muted\"> / " << html_escape(text_or(summary.must_total, "0"))
          << "</span></div>MUST clauses passed";
        if (text_or(summary.must_waived, "0") != "0")
            o << " <span class=\"muted\">(" << html_escape(text_or(summary.must_waived)) << " waived)</span>";
        o << "</div><div class=\"card\"><div class=\"big\">" << clauses.size() << "</div>clauses checked</div>"
          << "<div class=\"card\"><div class=\"big\">" << doc.cases.size() << "</div>cases</div>";
    }
    if (!props.empty()) {
        std::size_t passed = 0;
        for (const auto &p : props)
            passed += p.verdict == Verdict::Pass;
        o << "<div class=\"card\"><div class=\"big\">" << passed << "<span class=\"muted\"> / " << props.size()
          << "</span></div>properties passed</div>";
    }
    if (const auto &lit = doc.litmus; !lit.empty()) {
        std::size_t clean = 0;
        for (const auto &l : lit)
            clean += l.observation == "never" || l.verdict == Verdict::Pass;
        o << "<div class=\"card\"><div class=\"big\">" << clean << "<span class=\"muted\"> / " << lit.size()
          << "</span></div>litmus tests clean</div>";
    }
    o << "<div class=\"card\"><div class=\"big small-big\">" << html_escape(status) << "</div>run status</div></div>";
    if (status != "complete")
        o << "<p class=\"alert\">This run is <b>" << html_escape(status)
          << "</b>, not complete: clauses without a verdict did not run, "
             "and the gate cannot pass.</p>";
    if (const auto why = gate_failures(doc); !why.empty()) {
        o << "<p class=\"why\"><b>The gate fails:</b> ";
        for (std::size_t i = 0; i < why.size(); ++i)
            o << (i ? "; " : "") << html_escape(why[i]);
        o << ".</p>";
    }
    if (const auto &not_run = summary.not_run; !not_run.empty()) {
        o << "<p class=\"alert\" id=\"not-run-" << r << "\"><b>" << not_run.size()
          << " clause(s) not decided by any case</b> (a filtered or cut-short run; the gate cannot pass): <code>"
          << html_escape(joined(not_run)) << "</code></p>";
    }
    o << "<div class=\"chips\">";
    for (const auto v : kAllVerdicts) {
        const auto it = summary.by_verdict.find(name_of(v));
        if (it != summary.by_verdict.end() && it->second != 0)
            o << "<span class=\"chip " << css_class(verdict_name(v)) << "\">" << verdict_name(v) << " <b>" << it->second
              << "</b></span>";
    }
    o << "</div>";
    if (!clauses.empty() || (props.empty() && !bench))
        clause_table(o, run, r);
    function_table(o, run, r);
    optional_part(o, clauses, kProfilesHead, profile_row, "</tbody></table>");
    optional_part(o, doc.litmus, kLitmusHead, litmus_figure, "</div>");
    optional_part(o, props, kPropertiesHead, property_row, "</tbody></table>");
    all_cases(o, run, r);
    if (bench)
        o << bench_html(*doc.bench);
    environment(o, run);
    expectations_block(o, run);
    o << "</section>";
}

void comparison(std::ostringstream &o, std::span<const Run> runs)
{
    const auto rows = compare(runs);
    std::set<std::string> verdicts;
    for (const auto &row : rows)
        for (const auto &v : row.verdicts)
            verdicts.insert(v.empty() ? "NOT RUN" : v);
    o << "<section id=\"comparison\"><h2>Comparison <span class=\"muted\">(" << runs.size() << " runs, " << rows.size()
      << " clauses)</span></h2><p class=\"muted\">Each cell is a clause verdict; the last column counts the runs that "
         "PASS it "
         "(or show an allowed PROFILE).</p>"
      << filter_controls("compare", verdicts, "clauses")
      << "<table class=\"sortable matrix\" id=\"compare\"><thead><tr><th>Clause</th><th>Title</th><th>Kind</th>";
    for (const auto &run : runs)
        o << "<th>" << html_escape(run.label) << "</th>";
    o << "<th class=\"num\">Passed by</th></tr></thead><tbody>";
    for (const auto &row : rows) {
        std::string worst = "PASS";
        for (const auto &v : row.verdicts)
            if (expectations::verdict_rank(v) > expectations::verdict_rank(worst))
                worst = v;
        o << "<tr class=\"compare-row\" data-verdict=\"" << html_escape(worst) << "\" data-passed=\"" << row.passed
          << "\"><td><code title=\"" << html_escape(row.title) << "\">" << html_escape(row.clause_id)
          << "</code></td><td class=\"title\">" << html_escape(row.title) << "</td><td>" << html_escape(row.kind)
          << "</td>";
        for (std::size_t r = 0; r < runs.size(); ++r) {
            const auto &v = row.verdicts[r];
            if (v.empty())
                o << "<td data-sort-key=\"-2\">" << badge("NOT RUN") << "</td>";
            else
                o << "<td data-sort-key=\"" << verdict_key(v) << "\"><a href=\"#r" << r << "-"
                  << html_escape(row.clause_id) << "\">" << badge(v) << "</a></td>";
        }
        o << "<td class=\"num\" data-sort-key=\"" << row.passed << "\"><b>" << row.passed << "</b> of " << runs.size()
          << "</td></tr>";
    }
    o << "</tbody></table></section>";
}

} // namespace

std::string selftest_verdict(const json &selftest) { return read_selftest(selftest).ok ? "PASS" : "FAIL"; }

// The kill matrix: a row per mutant, a column per clause that killed any, a mark
// where that clause killed that mutant; then every expectation that did not hold.
std::string suite_strength_html(const json &selftest)
{
    std::ostringstream o;
    const auto st = read_selftest(selftest);
    const auto verdict = st.ok ? "PASS" : "FAIL";
    o << "<section id=\"suite-strength\" data-verdict=\"" << verdict << "\"><h2>Suite strength " << badge(verdict)
      << "</h2><p class=\"lead\" id=\"kill-ratio\">Kill ratio (API-observable mutants): <b>" << st.killed << " of "
      << st.run << "</b>";
    if (st.ratio)
        o << " (" << format_fixed(100.0 * *st.ratio, 1) << "%)";
    else
        o << " <span class=\"muted\">(no API-observable mutant ran)</span>";
    o << ". " << st.entries.size() << " entries judged by hcts-selftest, " << st.failed.size()
      << " expectation(s) did not hold.</p>";
    const auto &columns = st.matrix_clauses;
    const auto &rows = st.matrix_rows;
    if (!rows.empty()) {
        o << "<h3>Kill matrix <span class=\"muted\">(" << rows.size() << " mutants × " << columns.size()
          << " clauses)</span></h3><table class=\"matrix kill\" id=\"kill-matrix\"><thead><tr><th>Mutant</th>"
             "<th>Outcome</th>";
        for (const auto &c : columns)
            o << "<th class=\"clause\"><code>" << html_escape(c) << "</code></th>";
        o << "</tr></thead><tbody>";
        for (const auto &r : rows) {
            const std::set<std::string> by(r.killed_by.begin(), r.killed_by.end());
            o << "<tr data-killed=\"" << (by.empty() ? "0" : "1") << "\"><td><code>" << html_escape(r.mutant)
              << "</code></td><td>" << badge(by.empty() ? text_or(r.outcome, "SURVIVED") : "KILLED") << "</td>";
            for (const auto &c : columns)
                o << "<td>" << (by.count(c) ? "●" : "") << "</td>";
            o << "</tr>";
        }
        o << "</tbody></table>";
    }
    if (!st.entries.empty()) {
        o << "<details class=\"section\"><summary><h3>Entries <span class=\"muted\">(" << st.entries.size()
          << ")</span></h3></summary><table class=\"sortable\" id=\"selftest-entries\"><thead><tr><th>Entry</th>"
             "<th>Kind</th><th>Area</th><th>Verdict</th><th>Held</th><th class=\"num\">Time</th><th>Reproduce</th>"
             "</tr></thead><tbody>";
        for (const auto &e : st.entries)
            o << "<tr><td><code title=\"" << html_escape(text_or(e.what)) << "\">" << html_escape(e.id)
              << "</code></td><td>" << html_escape(text_or(e.kind)) << "</td><td>" << html_escape(text_or(e.area))
              << "</td><td>" << html_escape(text_or(e.verdict)) << "</td><td>" << badge(e.ok ? "PASS" : "FAIL")
              << "</td><td class=\"num\">" << format_seconds(e.seconds) << "</td><td>"
              << code_or_dash(text_or(e.reproducer)) << "</td></tr>";
        o << "</tbody></table></details>";
    }
    if (st.failed.empty()) {
        o << "<p>Every expectation held.</p>";
    } else {
        o << "<h3>Expectations that did not hold</h3><ul id=\"selftest-failed\">";
        for (const auto &f : st.failed)
            o << "<li>" << html_escape(f) << "</li>";
        o << "</ul>";
    }
    o << "</section>";
    return o.str();
}

std::string render_html(std::span<const Run> runs, const RenderInfo &info)
{
    // A report of a self-test run alone: its verdict is the self-test's.
    const auto overall = runs.empty() && info.selftest ? selftest_verdict(*info.selftest) : overall_verdict(runs);
    int passing = 0;
    for (const auto &run : runs)
        passing += gate_of(run) == "PASS";
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">"
      << "<title>hcts report: " << overall << (runs.size() == 1 ? " — " + html_escape(runs[0].label) : "")
      << "</title><style>" << resources::report_css()
      << "</style></head><body data-ready=\"0\"><header class=\"top\"><div><div class=\"brand\">hcts compliance "
         "report</div>"
      << "<div class=\"sub\">";
    if (runs.empty() && info.selftest)
        o << "the suite's self-test";
    else
        o << runs.size() << (runs.size() == 1 ? " run" : " runs");
    if (runs.size() == 1)
        o << " · " << html_escape(runs[0].label) << " on "
          << html_escape(runs[0].model.environment ? text_or(runs[0].model.environment->product, "?") : "?");
    o << " · generated " << html_escape(info.generated) << " by hcts-report " << report_version();
    if (!info.expectations.empty())
        o << " · expectations <code>" << html_escape(info.expectations) << "</code>";
    o << "</div></div><div class=\"overall " << css_class(overall) << "\" id=\"overall-verdict\" data-verdict=\""
      << overall << "\">" << overall << "</div></header>";
    if (runs.size() > 1)
        o << "<p class=\"lead\">" << passing << " of " << runs.size() << " runs pass the gate.</p>";
    o << "<nav class=\"toc\">";
    if (info.selftest)
        o << "<a href=\"#suite-strength\">Suite strength " << badge(selftest_verdict(*info.selftest)) << "</a>";
    if (runs.size() > 1)
        o << "<a href=\"#comparison\">Comparison</a>";
    for (std::size_t r = 0; r < runs.size(); ++r)
        o << "<a href=\"#run-" << r << "\">" << html_escape(runs[r].label) << " " << badge(gate_of(runs[r])) << "</a>";
    o << "</nav><main id=\"report\" data-runs=\"" << runs.size() << "\">";
    if (info.selftest)
        o << suite_strength_html(*info.selftest);
    if (runs.size() > 1)
        comparison(o, runs);
    for (std::size_t r = 0; r < runs.size(); ++r)
        run_section(o, runs[r], r);
    o << "</main><footer>Gate: a run passes when it is complete, every MUST clause is PASS or WAIVED, and nothing is "
         "XPASS. "
         "Verdict order, worst first: CRASH, TIMEOUT, FAIL, XPASS, HAZARD, NOT_SUPPORTED, WAIVED, PROFILE, PASS. "
         "Schema: hcts-results v1.</footer><script>"
      << resources::report_js() << "</script></body></html>\n";
    return o.str();
}

std::string gate_of(const Run &run) { return run.model.summary && run.model.summary->gate == "pass" ? "PASS" : "FAIL"; }

std::string overall_verdict(std::span<const Run> runs)
{
    if (runs.empty())
        return "FAIL";
    for (const auto &run : runs)
        if (gate_of(run) != "PASS")
            return "FAIL";
    return "PASS";
}

std::string_view report_version() { return HCTS_REPORT_VERSION; }

} // namespace hcts::report
