#include "selftest_doc.h"

#include <stdexcept>

namespace hcts::report {
namespace {

using nlohmann::json;

[[noreturn]] void wrong(const std::string &where, const json &v, const char *allowed)
{
    throw std::runtime_error("selftest.json: " + where + " is " + v.dump() + "; allowed: " + allowed);
}

// obj[key], or null when obj is not an object or has no such member.
const json &member(const json &obj, const char *key)
{
    static const json null;
    if (!obj.is_object())
        return null;
    const auto it = obj.find(key);
    return it != obj.end() ? *it : null;
}

std::optional<std::string> opt_string(const json &obj, const char *key, const std::string &where)
{
    const auto &v = member(obj, key);
    if (v.is_null())
        return std::nullopt;
    if (!v.is_string())
        wrong(where + "." + key, v, "a string, null");
    return v.get<std::string>();
}

std::vector<std::string> strings(const json &obj, const char *key, const std::string &where)
{
    const auto &v = member(obj, key);
    std::vector<std::string> out;
    if (v.is_null())
        return out;
    if (!v.is_array())
        wrong(where + key, v, "an array of strings");
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
            wrong(where + key + "[" + std::to_string(i) + "]", v[i], "a string");
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

bool flag(const json &obj, const char *key) { return member(obj, key) == true; }

} // namespace

SelfTest read_selftest(const json &doc)
{
    SelfTest out;
    out.ok = flag(doc, "ok");
    const auto &entries = member(doc, "entries");
    for (std::size_t i = 0; entries.is_array() && i < entries.size(); ++i) {
        const auto &e = entries[i];
        const auto where = "entries[" + std::to_string(i) + "]";
        SelfTestEntry entry;
        entry.id = opt_string(e, "id", where).value_or("");
        entry.kind = opt_string(e, "kind", where);
        entry.area = opt_string(e, "area", where);
        entry.verdict = opt_string(e, "verdict", where);
        entry.what = opt_string(e, "what", where);
        entry.reproducer = opt_string(e, "reproducer", where);
        entry.ok = flag(e, "ok");
        if (const auto &s = member(e, "seconds"); s.is_number())
            entry.seconds = s.get<double>();
        entry.problems = strings(e, "problems", where + ".");
        out.entries.push_back(std::move(entry));
    }
    const auto &matrix = member(doc, "matrix");
    out.matrix_clauses = strings(matrix, "clauses", "matrix.");
    const auto &rows = member(matrix, "rows");
    for (std::size_t i = 0; rows.is_array() && i < rows.size(); ++i) {
        const auto where = "matrix.rows[" + std::to_string(i) + "]";
        out.matrix_rows.push_back({opt_string(rows[i], "mutant", where).value_or(""),
                                   opt_string(rows[i], "outcome", where), strings(rows[i], "killed_by", where + ".")});
    }
    const auto &ratio = member(doc, "kill_ratio");
    if (const auto &k = member(ratio, "killed"); k.is_number_integer())
        out.killed = k.get<int64_t>();
    if (const auto &r = member(ratio, "run"); r.is_number_integer())
        out.run = r.get<int64_t>();
    if (const auto &r = member(ratio, "ratio"); r.is_number())
        out.ratio = r.get<double>();
    out.failed = strings(doc, "failed", "");
    return out;
}

} // namespace hcts::report
