// Reading and validating an expectations file. Every error names the file and
// the line, because the person fixing it has the file open in an editor.
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "hcts/expectations.h"

namespace hcts::expectations {
namespace {

constexpr int kSchemaVersion = 1;

class Parser {
  public:
    explicit Parser(std::string_view origin) : origin_(origin) {}

    [[noreturn]] void fail(const YAML::Node &at, const std::string &problem) const { fail_at(at.Mark().line, problem); }
    [[noreturn]] void fail_at(int zero_based_line, const std::string &problem) const
    {
        std::ostringstream msg;
        msg << origin_ << ':' << (zero_based_line >= 0 ? zero_based_line + 1 : 0) << ": " << problem;
        throw std::runtime_error(msg.str());
    }

    std::string scalar(const YAML::Node &node, const std::string &what) const
    {
        if (!node.IsScalar())
            fail(node, what + " must be a string");
        return node.Scalar();
    }

    std::vector<Expectation> document(const YAML::Node &root) const
    {
        if (!root.IsMap())
            fail(root, "the document must be a mapping with keys schema, schema_version, expectations");
        check_keys(root, {"schema", "schema_version", "expectations"}, "the top level");
        const auto schema = root["schema"];
        if (!schema)
            fail(root, "missing key 'schema'; it must be 'hcts-expectations'");
        if (scalar(schema, "schema") != "hcts-expectations")
            fail(schema, "schema is '" + schema.Scalar() + "'; it must be 'hcts-expectations'");
        const auto version = root["schema_version"];
        if (!version)
            fail(root, "missing key 'schema_version'; this reader knows version 1");
        int v = 0;
        try {
            v = version.as<int>();
        } catch (const YAML::Exception &) {
            fail(version, "schema_version '" + version.Scalar() + "' is not an integer; this reader knows version 1");
        }
        if (v > kSchemaVersion)
            fail(version, "schema_version " + std::to_string(v) + " is newer than this reader knows (1); update hcts");
        if (v < 1)
            fail(version, "schema_version " + std::to_string(v) + " is not valid; versions start at 1");
        const auto list = root["expectations"];
        if (!list)
            fail(root, "missing key 'expectations' (a list, possibly empty)");
        if (list.IsNull())
            return {};
        if (!list.IsSequence())
            fail(list, "'expectations' must be a list of entries");
        std::vector<Expectation> out;
        for (std::size_t i = 0; i < list.size(); ++i)
            out.push_back(entry(list[i], i));
        return out;
    }

  private:
    void check_keys(const YAML::Node &map, const std::set<std::string> &allowed, const std::string &where) const
    {
        for (const auto &kv : map) {
            const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
            if (!allowed.contains(key)) {
                std::string list;
                for (const auto &a : allowed)
                    list += (list.empty() ? "" : ", ") + a;
                fail(kv.first, "unknown key '" + key + "' in " + where + "; allowed: " + list);
            }
        }
    }

    Expectation entry(const YAML::Node &node, std::size_t index) const
    {
        const std::string where = "expectations[" + std::to_string(index) + "]";
        if (!node.IsMap())
            fail(node, where + " must be a mapping (clause or case, expected, reason, when)");
        check_keys(node, {"clause", "case", "expected", "reason", "when"}, where);
        Expectation e;
        e.line = node.Mark().line + 1;
        const bool has_clause = static_cast<bool>(node["clause"]);
        const bool has_case = static_cast<bool>(node["case"]);
        if (has_clause == has_case)
            fail(node, where + " must have exactly one of 'clause' or 'case'");
        if (has_clause)
            e.clause = scalar(node["clause"], where + ".clause");
        if (has_case)
            e.case_glob = scalar(node["case"], where + ".case");
        if ((has_clause ? e.clause : e.case_glob).empty())
            fail(node, where + " has an empty " + (has_clause ? "clause" : "case"));

        if (!node["expected"])
            fail(node, where + " is missing 'expected' (FAIL, TIMEOUT, CRASH, HAZARD, ERROR or NOT_SUPPORTED)");
        e.expected = scalar(node["expected"], where + ".expected");
        // ERROR and NOT_SUPPORTED say the suite could not judge; a waiver must name them.
        if (!is_bad(e.expected) && e.expected != "NOT_SUPPORTED" && e.expected != "ERROR")
            fail(node["expected"], where + ".expected is '" + e.expected +
                                       "'; allowed: FAIL, TIMEOUT, CRASH, HAZARD, ERROR, NOT_SUPPORTED");

        if (!node["reason"])
            fail(node, where + " is missing 'reason' (say why, e.g. a ticket)");
        e.reason = scalar(node["reason"], where + ".reason");
        if (e.reason.empty())
            fail(node["reason"], where + ".reason is empty; say why, e.g. a ticket");

        if (const auto when = node["when"]) {
            if (!when.IsMap())
                fail(when, where + ".when must be a mapping of iut, product, ranks");
            check_keys(when, {"iut", "product", "ranks"}, where + ".when");
            if (when["iut"])
                e.when.iut = scalar(when["iut"], where + ".when.iut");
            if (when["product"])
                e.when.product = scalar(when["product"], where + ".when.product");
            if (const auto ranks = when["ranks"]) {
                try {
                    e.when.ranks = ranks.as<std::int64_t>();
                } catch (const YAML::Exception &) {
                    fail(ranks,
                         where + ".when.ranks '" + (ranks.IsScalar() ? ranks.Scalar() : "?") + "' is not an integer");
                }
                if (*e.when.ranks < 1)
                    fail(ranks, where + ".when.ranks must be at least 1");
            }
        }
        return e;
    }

    std::string origin_;
};

} // namespace

ExpectationSet ExpectationSet::parse(std::string_view yaml_text, std::string_view origin)
{
    Parser parser(origin);
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml_text));
    } catch (const YAML::Exception &e) {
        parser.fail_at(e.mark.line, "malformed YAML: " + e.msg);
    }
    if (!root || root.IsNull())
        parser.fail_at(0, "the file is empty; it needs schema, schema_version, expectations");
    ExpectationSet set;
    set.origin_ = std::string(origin);
    set.entries_ = parser.document(root);
    return set;
}

ExpectationSet ExpectationSet::load(std::string_view path)
{
    const std::string name(path);
    std::ifstream in(name, std::ios::binary);
    if (!in)
        throw std::runtime_error(name + ":0: cannot open the expectations file for reading");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw std::runtime_error(name + ":0: read error");
    return parse(text.str(), name);
}

} // namespace hcts::expectations
