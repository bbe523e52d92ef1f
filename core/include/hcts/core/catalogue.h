// The clause catalogue (conformance/spec/clauses.yaml), parsed with yaml-cpp:
// what the suite checks, one stable ID per requirement. Cases, properties and
// the results writer all name clauses by these IDs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hcts {

// The strongest promise a clause rests on, strongest first. A MUST clause cites a
// promise of the vendor (seed page, vendor document, code or unit test); a clause
// that rests only on the reference's own decision is STRICT or PROFILE.
inline constexpr const char *kSourceClasses[] = {"seed", "vendor-doc", "vendor-code", "vendor-test", "reference"};

struct Clause {
    std::string id, title, statement, source, kind, area;
    std::string source_class;           // one of kSourceClasses
    std::vector<std::string> allowed;   // PROFILE: the allowed observations
    std::vector<std::string> hazard;    // PROFILE: observations reported as HAZARD
    std::vector<std::string> functions; // the exported API functions the clause judges
};

class Catalogue {
  public:
    // Throws std::runtime_error naming the file, the clause and the problem
    // (missing field, duplicate id, kind not MUST/PROFILE/STRICT, source_class
    // not one of kSourceClasses).
    static Catalogue load(const std::string &path);
    static Catalogue parse(std::string_view yaml_text, std::string_view origin);
    const std::vector<Clause> &clauses() const { return clauses_; }
    const Clause *find(std::string_view id) const;
    // `catalogue_version`: raised whenever a clause is added or its meaning changes
    // (CHANGELOG.md), so a vendor's waivers name the catalogue they were written for.
    int version() const { return version_; }

  private:
    std::vector<Clause> clauses_;
    int version_ = 0;
};

} // namespace hcts
