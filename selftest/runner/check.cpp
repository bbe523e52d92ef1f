#include "check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace hcts::selftest {

std::vector<Guard> guards_in(const std::string &text, const std::string &where)
{
    static const std::regex guard(R"(hcts::mutant\s*\(\s*"([^"]*)\"\s*\))");
    std::vector<Guard> out;
    std::istringstream in(text);
    int line = 0;
    for (std::string s; std::getline(in, s);) {
        ++line;
        for (std::sregex_iterator it(s.begin(), s.end(), guard), end; it != end; ++it)
            out.push_back({(*it)[1].str(), where + ":" + std::to_string(line)});
    }
    return out;
}

std::vector<Guard> scan_guards(const std::string &root, const std::vector<std::string> &dirs)
{
    namespace fs = std::filesystem;
    static const std::set<std::string> exts{".c", ".cc", ".cpp", ".h", ".hpp", ".inc"};
    std::vector<fs::path> files;
    for (const auto &d : dirs) {
        std::error_code ec;
        if (!fs::is_directory(fs::path(root) / d, ec))
            continue;
        for (const auto &f : fs::recursive_directory_iterator(fs::path(root) / d))
            if (f.is_regular_file() && exts.count(f.path().extension().string()) != 0)
                files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<Guard> out;
    for (const auto &f : files) {
        std::ifstream in(f, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        auto g = guards_in(text.str(), fs::relative(f, root).string());
        out.insert(out.end(), g.begin(), g.end());
    }
    return out;
}

std::vector<std::string> check_coverage(const std::vector<Entry> &entries, const Catalogue &clauses,
                                        const std::vector<Guard> &guards,
                                        const std::optional<nlohmann::json> &reference)
{
    std::vector<std::string> problems;
    // 0. A MUST clause gates every library, the vendor's included, so it rests on a
    // promise of the vendor; the reference's own decisions are STRICT or PROFILE.
    for (const auto &c : clauses.clauses())
        if (c.kind == "MUST" && c.source_class == "reference")
            problems.push_back("MUST clause " + c.id + " has source_class 'reference'; a MUST clause cites the " +
                               "seed, a vendor document, vendor code or a vendor unit test (seed, vendor-doc, " +
                               "vendor-code, vendor-test), else it is STRICT or PROFILE");
    // 1. Every MUST and STRICT clause is broken by some wrong or mutant entry.
    std::set<std::string> broken;
    for (const auto &e : entries)
        if ((e.kind == "wrong" || e.kind == "mutant") && e.fails)
            broken.insert(e.fails->begin(), e.fails->end());
    std::vector<std::string> uncovered;
    for (const auto &c : clauses.clauses())
        if ((c.kind == "MUST" || c.kind == "STRICT") && broken.count(c.id) == 0)
            uncovered.push_back(c.id + " (" + c.kind + ")");
    for (const auto &id : uncovered)
        problems.push_back("no wrong or mutant entry fails " + id);

    // 2. Every allowed outcome of every PROFILE clause is produced by a profile entry
    // or is the reference's own outcome.
    std::map<std::string, std::string> reference_outcome;
    if (reference)
        for (const auto &c : reference->value("clauses", nlohmann::json::array()))
            if (c.contains("profile") && c["profile"].is_object() && c["profile"].contains("observed") &&
                c["profile"]["observed"].is_string())
                reference_outcome[c.value("id", "")] = c["profile"]["observed"].get<std::string>();
    std::set<std::pair<std::string, std::string>> produced;
    for (const auto &e : entries)
        if (e.kind == "profile" && e.profile)
            produced.insert({e.profile->clause, e.profile->outcome});
    for (const auto &c : clauses.clauses()) {
        if (c.kind != "PROFILE")
            continue;
        std::vector<std::string> missing;
        for (const auto &o : c.allowed)
            if (produced.count({c.id, o}) == 0)
                missing.push_back(o);
        if (missing.empty())
            continue;
        if (reference) {
            const auto it = reference_outcome.find(c.id);
            const std::string own = it == reference_outcome.end() ? "" : it->second;
            for (const auto &o : missing)
                if (o != own)
                    problems.push_back("no profile entry produces " + c.id + " outcome '" + o + "'" +
                                       (own.empty() ? " (the reference run reports no outcome for it)"
                                                    : " (the reference's own is '" + own + "')"));
        } else if (missing.size() > 1) {
            std::string list;
            for (const auto &o : missing)
                list += (list.empty() ? "" : ", ") + o;
            problems.push_back("no profile entry produces " + c.id + " outcomes " + list + "; without --reference " +
                               "one of them may be the reference's own, so " + std::to_string(missing.size() - 1) +
                               " more entr" + (missing.size() == 2 ? "y is" : "ies are") + " needed");
        }
    }

    // 3. Guards and mutant entries match one to one; enough mutants.
    std::map<std::string, std::string> guard_at;
    for (const auto &g : guards)
        guard_at.emplace(g.id, g.where);
    std::set<std::string> mutant_ids;
    for (const auto &e : entries)
        if (e.kind == "mutant") {
            mutant_ids.insert(e.id);
            if (guard_at.count(e.id) == 0)
                problems.push_back(e.file + ": mutant '" + e.id + "' has no hcts::mutant(\"" + e.id +
                                   "\") guard in reference_impl/ or softverbs/");
        }
    for (const auto &[id, where] : guard_at)
        if (mutant_ids.count(id) == 0)
            problems.push_back(where + ": guard hcts::mutant(\"" + id + "\") has no mutant entry in the catalogue");
    if (mutant_ids.size() < kMinMutants)
        problems.push_back(std::to_string(mutant_ids.size()) + " mutants in the catalogue; at least " +
                           std::to_string(kMinMutants) + " are required");
    return problems;
}

} // namespace hcts::selftest
