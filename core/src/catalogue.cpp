#include "hcts/core/catalogue.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>

#include "hcts/core/clause_kind.h"

namespace hcts {

namespace {
std::vector<std::string> strings(const YAML::Node &n)
{
    std::vector<std::string> out;
    if (n && n.IsSequence())
        for (const auto &e : n)
            out.push_back(e.as<std::string>());
    return out;
}
} // namespace

Catalogue Catalogue::load(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open the clause catalogue for reading");
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

Catalogue Catalogue::parse(std::string_view yaml_text, std::string_view origin)
{
    const std::string path(origin);
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml_text));
    } catch (const YAML::Exception &e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    if (!root["clauses"] || !root["clauses"].IsSequence())
        throw std::runtime_error(path + ": no 'clauses' list at the top level");
    Catalogue cat;
    if (!root["catalogue_version"] || !root["catalogue_version"].IsScalar())
        throw std::runtime_error(path + ": no 'catalogue_version' at the top level (a whole number >= 1)");
    try {
        cat.version_ = root["catalogue_version"].as<int>();
    } catch (const YAML::Exception &) {
        cat.version_ = 0;
    }
    if (cat.version_ < 1)
        throw std::runtime_error(path + ": catalogue_version '" + root["catalogue_version"].as<std::string>() +
                                 "'; allowed: a whole number >= 1");
    std::set<std::string> seen;
    for (const auto &n : root["clauses"]) {
        Clause c;
        const int line = n.Mark().line + 1;
        auto field = [&](const char *key) {
            if (!n[key] || !n[key].IsScalar() || n[key].as<std::string>().empty())
                throw std::runtime_error(path + ":" + std::to_string(line) + ": clause '" +
                                         (n["id"] ? n["id"].as<std::string>() : std::string("?")) + "' has no '" + key +
                                         "'");
            return n[key].as<std::string>();
        };
        c.id = field("id");
        c.title = field("title");
        c.statement = field("statement");
        c.source = field("source");
        c.kind = field("kind");
        c.area = field("area");
        c.source_class = field("source_class");
        c.allowed = strings(n["allowed"]);
        c.hazard = strings(n["hazard"]);
        c.functions = strings(n["functions"]);
        if (!parse_clause_kind(c.kind))
            throw std::runtime_error(path + ":" + std::to_string(line) + ": clause '" + c.id + "' has kind '" + c.kind +
                                     "'; allowed: " + std::string(kClauseKindNames));
        if (std::find(std::begin(kSourceClasses), std::end(kSourceClasses), c.source_class) ==
            std::end(kSourceClasses)) {
            std::string allowed;
            for (const char *k : kSourceClasses)
                allowed += (allowed.empty() ? "" : ", ") + std::string(k);
            throw std::runtime_error(path + ":" + std::to_string(line) + ": clause '" + c.id + "' has source_class '" +
                                     c.source_class + "'; allowed: " + allowed);
        }
        if (c.kind == "PROFILE" && c.allowed.empty())
            throw std::runtime_error(path + ":" + std::to_string(line) + ": PROFILE clause '" + c.id +
                                     "' lists no 'allowed' observations");
        if (!seen.insert(c.id).second)
            throw std::runtime_error(path + ":" + std::to_string(line) + ": duplicate clause id '" + c.id + "'");
        cat.clauses_.push_back(std::move(c));
    }
    return cat;
}

const Clause *Catalogue::find(std::string_view id) const
{
    const auto it = std::ranges::find(clauses_, id, &Clause::id);
    return it != clauses_.end() ? &*it : nullptr;
}

} // namespace hcts
