// Cases and what they found. A case is a GoogleTest test declared with HCTS_CASE,
// naming the clauses it covers; inside it, every check names the clause it
// decides, so a broken behaviour fails exactly its clause and not its neighbours.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verdict.h"

namespace hcts {

struct CaseInfo {
    std::string name; // "Suite.Name", as GoogleTest names it
    std::vector<std::string> clauses;
};

std::vector<CaseInfo> &case_registry();
const CaseInfo *find_case(std::string_view name);

struct CaseReg {
    CaseReg(const char *name, std::initializer_list<const char *> clauses);
};

#define HCTS_CASE(suite, name, ...)                                                                                    \
    static const ::hcts::CaseReg hcts_reg_##suite##_##name{#suite "." #name, {__VA_ARGS__}};                            \
    TEST(suite, name)

// The whole case cannot run on this IUT (same decision on every rank).
#define HCTS_NOT_SUPPORTED(reason)                                                                                     \
    do {                                                                                                               \
        const std::string hcts_reason_ = (reason);                                                                     \
        ::hcts::Case::current().not_supported(hcts_reason_);                                                           \
        GTEST_SKIP() << hcts_reason_;                                                                                  \
    } while (0)

struct Finding {
    Verdict verdict = Verdict::Pass;
    std::string reason;
    nlohmann::json profile; // {observed, allowed} for PROFILE clauses
};

class Case {
  public:
    explicit Case(const CaseInfo &info) : info_(info) {}
    static Case &current();
    static void begin(const CaseInfo &info);
    static void end();

    const CaseInfo &info() const { return info_; }
    // Records a failure of `clause` (and a GoogleTest failure). Repeated failures
    // keep the first reason and count the rest.
    void fail(std::string_view clause, const std::string &why);
    bool expect(std::string_view clause, bool ok, const std::string &why)
    {
        if (!ok)
            fail(clause, why);
        return ok;
    }
    void not_supported(const std::string &why);
    // An observed behaviour of a PROFILE clause; HAZARD when the catalogue lists
    // it as hazardous or it is not among the allowed ones.
    void profile(std::string_view clause, const std::string &observed, const std::string &note = {});
    void observe(const std::string &key, nlohmann::json value) { observations_[key] = std::move(value); }
    void message(const std::string &text) { messages_.push_back(text); }
    void seed(uint64_t s) { seed_ = s; }
    void litmus(nlohmann::json entry) { litmus_.push_back(std::move(entry)); }

    // This rank's view, for merging on rank 0.
    nlohmann::json to_json(bool gtest_failed, const std::string &gtest_failure) const;

  private:
    void require_clause(std::string_view clause) const;
    const CaseInfo &info_;
    std::map<std::string, Finding> findings_;
    std::map<std::string, int> extra_failures_;
    std::optional<std::string> not_supported_;
    nlohmann::json observations_ = nlohmann::json::object();
    std::vector<std::string> messages_;
    std::optional<uint64_t> seed_;
    std::vector<nlohmann::json> litmus_;
};

} // namespace hcts
