#include "rotation.h"

#include "hcts/core/command.h"

#include <regex>
#include <set>
#include <sstream>

namespace hcts::selftest {
namespace {

// "reference_impl/src/x.cpp:12" -> ("reference_impl/src/x.cpp", 12); line 0 when there is none.
std::pair<std::string, uint32_t> split_where(const std::string &where)
{
    const auto colon = where.rfind(':');
    if (colon == std::string::npos)
        return {where, 0};
    try {
        return {where.substr(0, colon), static_cast<uint32_t>(std::stoul(where.substr(colon + 1)))};
    } catch (const std::exception &) {
        return {where, 0};
    }
}

bool near(const ChangedLines &c, uint32_t line, uint32_t reach)
{
    return line != 0 && c.first <= line + reach && line <= c.last + reach;
}

// The clause ids named on lines [first, last] (1-based, clamped) of `text`.
std::set<std::string> clauses_named(const std::string &text, uint32_t first, uint32_t last)
{
    static const std::regex id(R"(\b(?:WWN|API)\.[A-Z]+\.[0-9]+N?\b)");
    std::set<std::string> out;
    std::istringstream in(text);
    std::string line;
    for (uint32_t n = 1; std::getline(in, line) && n <= last; ++n) {
        if (n < first)
            continue;
        for (std::sregex_iterator it(line.begin(), line.end(), id), end; it != end; ++it)
            out.insert(it->str());
    }
    return out;
}

// Runs `command` and returns its standard output; nullopt when it failed.
std::optional<std::string> output_of(const std::string &command)
{
    hcts::CommandOutput out = hcts::capture_command(command);
    if (!out.ok())
        return std::nullopt;
    return std::move(out.text);
}

} // namespace

uint32_t bucket_of(std::string_view id, uint32_t shares)
{
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : id) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return shares == 0 ? 0 : static_cast<uint32_t>(h % shares);
}

std::string why_selected(const Entry &e, const Rotation &r, const std::vector<Guard> &guards,
                         const std::function<std::string(const std::string &)> &read)
{
    if (e.kind != "mutant")
        return "always (" + e.kind + ")";
    for (const Guard &g : guards) {
        if (g.id != e.id)
            continue;
        const auto [file, line] = split_where(g.where);
        for (const auto &c : r.changes)
            if (c.file == file && near(c, line, kGuardReach))
                return "changed: its guard at " + g.where;
    }
    // The entry itself, when its lines in the catalogue changed.
    const auto [entry_file, entry_line] = split_where(e.file);
    for (const auto &c : r.changes)
        if (c.file == "selftest/catalogue/" + entry_file && near(c, entry_line, 15))
            return "changed: its entry at " + e.file;
    if (e.fails && !e.fails->empty()) {
        for (const auto &c : r.changes) {
            if (c.file.rfind("conformance/src/", 0) != 0)
                continue;
            const std::string text = read(c.file);
            const auto named =
                clauses_named(text, c.first > kCaseReach ? c.first - kCaseReach : 1, c.last + kCaseReach);
            for (const auto &clause : *e.fails)
                if (named.count(clause))
                    return "changed: a case of " + clause + " at " + c.file + ":" + std::to_string(c.first);
        }
    }
    const uint32_t share = r.shares == 0 ? 0 : static_cast<uint32_t>(r.commit_number % r.shares);
    if (bucket_of(e.id, r.shares) == share)
        return "share " + std::to_string(share + 1) + " of " + std::to_string(r.shares);
    return {};
}

std::vector<ChangedLines> parse_unified_diff(std::string_view diff)
{
    std::vector<ChangedLines> out;
    std::string file;
    size_t pos = 0;
    while (pos < diff.size()) {
        const size_t eol = diff.find('\n', pos);
        const std::string_view line =
            diff.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
        pos = eol == std::string_view::npos ? diff.size() : eol + 1;
        if (line.rfind("+++ ", 0) == 0) {
            const std::string_view path = line.substr(4);
            file = path.rfind("b/", 0) == 0 ? std::string(path.substr(2)) : std::string();
            continue;
        }
        if (line.rfind("@@ ", 0) != 0 || file.empty())
            continue;
        // "@@ -a[,b] +c[,d] @@": the new side starts at c and spans d lines (1 when absent).
        const size_t plus = line.find(" +");
        if (plus == std::string_view::npos)
            continue;
        unsigned long start = 0, count = 1;
        const std::string rest(line.substr(plus + 2));
        if (std::sscanf(rest.c_str(), "%lu,%lu", &start, &count) < 1)
            continue;
        // A pure deletion (count 0) touches the line it was removed before.
        const auto first = static_cast<uint32_t>(start == 0 ? 1 : start);
        out.push_back({file, first, static_cast<uint32_t>(count == 0 ? first : start + count - 1)});
    }
    return out;
}

std::optional<Rotation> rotation_from_git(const std::filesystem::path &root, uint32_t shares, std::string &why_not)
{
    const std::string git = "git -C " + hcts::shell_quote(root.string()) + " ";
    const auto count = output_of(git + "rev-list --count HEAD 2>/dev/null");
    if (!count) {
        why_not = root.string() + " is not a git work tree with history";
        return std::nullopt;
    }
    Rotation r;
    r.shares = shares;
    try {
        r.commit_number = std::stoull(*count);
    } catch (const std::exception &) {
        why_not = "git rev-list --count HEAD printed '" + *count + "'";
        return std::nullopt;
    }
    // The previous commit against the work tree: the last commit's changes and
    // any not yet committed. A first commit has no previous one: no changes.
    r.since = "HEAD~1";
    const auto diff = output_of(git + "diff -U0 --no-color --no-ext-diff HEAD~1 2>/dev/null");
    if (!diff) {
        r.since = "nothing (no previous commit)";
        return r;
    }
    r.changes = parse_unified_diff(*diff);
    return r;
}

} // namespace hcts::selftest
