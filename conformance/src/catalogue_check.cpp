#include "catalogue_check.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <string_view>

#include "case.h"
#include "hcts/core/catalogue.h"

namespace hcts {

namespace {
// Every function declared in include/hccl and include/hcomm (generated from the
// headers at configure time).
constexpr std::string_view kApiFunctions[] = {
#include "api_functions.inc"
};
} // namespace

int check_catalogue(const Catalogue &cat, bool print_ok)
{
    int problems = 0;
    const auto problem = [&problems](const std::string &s) {
        std::fprintf(stderr, "hcts: %s\n", s.c_str());
        ++problems;
    };
    std::set<std::string> covered;
    for (const auto &c : case_registry()) {
        if (c.clauses.empty())
            problem("case " + c.name + " names no clause");
        for (const auto &id : c.clauses) {
            if (cat.find(id) == nullptr)
                problem("case " + c.name + " names clause " + id + ", which clauses.yaml does not define");
            covered.insert(id);
        }
    }
    for (const auto &cl : cat.clauses())
        if (covered.count(cl.id) == 0)
            problem("clause " + cl.id + " (" + cl.title + ") has no case");
    const std::set<std::string_view> api(std::begin(kApiFunctions), std::end(kApiFunctions));
    std::set<std::string> named;
    for (const auto &cl : cat.clauses()) {
        if (cl.functions.empty())
            problem("clause " + cl.id + " names no function (field 'functions')");
        for (const auto &f : cl.functions) {
            if (api.count(f) == 0)
                problem("clause " + cl.id + " names function '" + f +
                        "', which include/hccl and include/hcomm do not declare");
            named.insert(f);
        }
    }
    for (const auto f : kApiFunctions)
        if (named.count(std::string(f)) == 0)
            problem("function " + std::string(f) + " (declared in include/) is named by no clause's 'functions'");
    const auto *ut = testing::UnitTest::GetInstance();
    for (int s = 0; s < ut->total_test_suite_count(); ++s) {
        const auto *suite = ut->GetTestSuite(s);
        for (int t = 0; t < suite->total_test_count(); ++t) {
            const std::string name = std::string(suite->name()) + "." + suite->GetTestInfo(t)->name();
            if (find_case(name) == nullptr)
                problem("test " + name + " is not declared with HCTS_CASE");
        }
    }
    if (problems == 0 && print_ok)
        std::printf("hcts: catalogue consistent: %zu clauses, %zu cases, every clause covered, all %zu API functions "
                    "named\n",
                    cat.clauses().size(), case_registry().size(), std::size(kApiFunctions));
    return problems;
}

} // namespace hcts
