#include "results_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <hcts/expectations.h>

#include "text.h"

namespace hcts::report {
namespace {

[[noreturn]] void fail(std::string_view origin, const std::string &problem)
{
    throw std::runtime_error(std::string(origin) + ": " + problem);
}

// 1-based line and column of byte `offset` in `text`.
std::pair<std::size_t, std::size_t> line_col(std::string_view text, std::size_t offset)
{
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

std::string type_of(const nlohmann::json &j) { return j.type_name(); }

// What check_results needs before the document is typed: a member that is a string, else "".
std::string string_member(const nlohmann::json &obj, const char *key)
{
    const auto it = obj.is_object() ? obj.find(key) : obj.end();
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void require_array_of_objects(const nlohmann::json &doc, const char *key, std::string_view origin, bool required)
{
    const auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) {
        if (required)
            fail(origin, std::string("missing '") + key + "'; it must be an array (possibly empty)");
        return;
    }
    if (!it->is_array())
        fail(origin, std::string("'") + key + "' is " + type_of(*it) + "; it must be an array");
    for (std::size_t i = 0; i < it->size(); ++i)
        if (!(*it)[i].is_object())
            fail(origin,
                 std::string(key) + "[" + std::to_string(i) + "] is " + type_of((*it)[i]) + "; it must be an object");
}

void check_verdict(const nlohmann::json &item, const std::string &where, std::string_view origin, bool allow_null)
{
    const auto it = item.find("verdict");
    if (it == item.end() || it->is_null()) {
        if (allow_null)
            return;
        fail(origin, where + " has no verdict");
    }
    if (!it->is_string() || expectations::verdict_rank(it->get<std::string>()) < 0) {
        std::string allowed;
        for (const auto v : expectations::all_verdicts())
            allowed += (allowed.empty() ? "" : ", ") + std::string(v);
        fail(origin, where + ".verdict is " + it->dump() + "; allowed: " + allowed + (allow_null ? ", null" : ""));
    }
}

} // namespace

nlohmann::json parse_results(std::string_view text, std::string_view origin)
{
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        const auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string what = e.what();
        // nlohmann prefixes "[json.exception.parse_error.101] parse error at line L, column C: "; keep the tail.
        if (const auto colon = what.find(": "); colon != std::string::npos)
            what = what.substr(colon + 2);
        throw std::runtime_error(std::string(origin) + ":" + std::to_string(line) + ":" + std::to_string(col) +
                                 ": malformed JSON: " + what);
    }
    check_results(doc, origin);
    return doc;
}

void check_results(const nlohmann::json &doc, std::string_view origin)
{
    if (!doc.is_object())
        fail(origin, "the document is " + type_of(doc) + "; it must be an hcts-results object");
    const auto schema = string_member(doc, "schema");
    if (schema != "hcts-results")
        fail(origin, "schema is '" + schema + "'; allowed: 'hcts-results' (is this a results.json?)");
    const auto version = doc.find("schema_version");
    if (version == doc.end() || !version->is_number_integer())
        fail(origin, "schema_version is missing or not an integer; allowed: 1");
    const auto v = version->get<long long>();
    if (v > kResultsSchemaVersion)
        fail(origin,
             "schema_version " + std::to_string(v) + " is newer than this hcts-report reads; allowed: 1 (update hcts)");
    if (v < 1)
        fail(origin, "schema_version " + std::to_string(v) + " is not valid; allowed: 1");
    for (const char *key : {"run", "iut", "adapter", "environment", "expectations", "summary"}) {
        const auto it = doc.find(key);
        if (it != doc.end() && !it->is_null() && !it->is_object())
            fail(origin, std::string("'") + key + "' is " + type_of(*it) + "; it must be an object");
    }
    if (!doc.contains("run"))
        fail(origin, "missing 'run'; it must be an object with id and status");
    require_array_of_objects(doc, "clauses", origin, true);
    require_array_of_objects(doc, "cases", origin, false);
    require_array_of_objects(doc, "litmus", origin, false);
    require_array_of_objects(doc, "properties", origin, false);
    std::map<std::string, int> seen;
    const auto &clauses = doc["clauses"];
    for (std::size_t i = 0; i < clauses.size(); ++i) {
        const auto where = "clauses[" + std::to_string(i) + "]";
        const auto id = string_member(clauses[i], "id");
        if (id.empty())
            fail(origin, where + " has no 'id'");
        if (seen[id]++)
            fail(origin, where + " repeats clause id '" + id + "'");
        check_verdict(clauses[i], where + " (" + id + ")", origin, true); // null: not decided yet
        const auto cases = clauses[i].find("cases");
        if (cases != clauses[i].end() && !cases->is_null() && !cases->is_array())
            fail(origin, where + ".cases is " + type_of(*cases) + "; it must be an array of case names");
    }
    const auto cases = doc.find("cases");
    for (std::size_t i = 0; cases != doc.end() && cases->is_array() && i < cases->size(); ++i) {
        const auto where = "cases[" + std::to_string(i) + "]";
        const auto name = string_member((*cases)[i], "name");
        if (name.empty())
            fail(origin, where + " has no 'name'");
        check_verdict((*cases)[i], where + " (" + name + ")", origin, false);
    }
    // Every field of the type the schema gives it: what the renderers read (results_model.h).
    try {
        (void)results::read_document(doc);
    } catch (const std::runtime_error &e) {
        fail(origin, e.what());
    }
}

std::string read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open for reading: " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw std::runtime_error(path + ": read error");
    return text.str();
}

Run load_run(const std::string &path)
{
    Run run;
    run.path = path;
    run.bytes = read_file(path);
    run.doc = parse_results(run.bytes, path);
    return run;
}

void prepare_runs(std::span<Run> runs, const expectations::ExpectationSet *expectations)
{
    std::map<std::string, int> count;
    for (auto &run : runs) {
        if (expectations)
            expectations->apply(run.doc);
        else
            expectations::summarize(run.doc);
        try {
            run.model = results::read_document(run.doc);
        } catch (const std::runtime_error &e) {
            fail(run.path, e.what());
        }
        const auto iut = run.model.iut.value_or(results::Iut{});
        run.label = text_or(iut.name, text_or(iut.path, "run"));
        if (const auto slash = run.label.find_last_of('/'); slash != std::string::npos)
            run.label = run.label.substr(slash + 1);
        ++count[run.label];
    }
    // Same implementation twice (e.g. two products): tell them apart by product, then by position.
    std::map<std::string, int> used;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto &run = runs[i];
        if (count[run.label] < 2)
            continue;
        const auto env = run.model.environment.value_or(results::Environment{});
        const auto product = text_or(env.product);
        const auto ranks = text_or(env.ranks);
        std::string candidate =
            run.label + (product.empty() ? "" : " · " + product) + (ranks.empty() ? "" : " · " + ranks + "r");
        if (used[candidate]++)
            candidate += " #" + std::to_string(i + 1);
        run.label = candidate;
    }
}

} // namespace hcts::report
