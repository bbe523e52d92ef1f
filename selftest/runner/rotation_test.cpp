// The self-test's CI selection (rotation.h): every mutant runs at least once in
// any five consecutive commits, a change near a guard or in a case of a declared
// clause selects its mutant at once, and the other entries always run.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "hcts/core/catalogue.h"
#include "rotation.h"

namespace hcts::selftest {
namespace {

LoadedCatalogue real_catalogue()
{
    static const Catalogue clauses = Catalogue::load(std::string(HCTS_SOURCE_DIR) + "/conformance/spec/clauses.yaml");
    return load_catalogue(std::string(HCTS_SOURCE_DIR) + "/selftest/catalogue", clauses);
}

Entry mutant(const std::string &id, std::vector<std::string> fails = {})
{
    Entry e;
    e.id = id;
    e.kind = "mutant";
    if (!fails.empty())
        e.fails = fails;
    e.file = "x.yaml:1";
    return e;
}

std::string none(const std::string &) { return {}; }

TEST(Rotation, EveryMutantOfTheCatalogueRunsInAnyFiveConsecutiveCommits)
{
    const auto cat = real_catalogue();
    size_t mutants = 0;
    for (uint64_t start = 0; start < 12; ++start) {
        std::map<std::string, int> runs;
        for (uint64_t n = start; n < start + 5; ++n) {
            Rotation r;
            r.commit_number = n;
            for (const Entry &e : cat.entries)
                if (e.kind == "mutant" && !why_selected(e, r, {}, none).empty())
                    ++runs[e.id];
        }
        mutants = 0;
        for (const Entry &e : cat.entries) {
            if (e.kind != "mutant")
                continue;
            ++mutants;
            EXPECT_EQ(runs[e.id], 1) << e.id << " in commits " << start << ".." << start + 4;
        }
    }
    EXPECT_GE(mutants, 40u) << "the catalogue's mutants were not found";
}

TEST(Rotation, AShareIsAboutAFifthAndTheOtherEntriesAlwaysRun)
{
    const auto cat = real_catalogue();
    for (uint64_t n = 0; n < 5; ++n) {
        Rotation r;
        r.commit_number = n;
        size_t mutants = 0, picked = 0;
        for (const Entry &e : cat.entries) {
            const std::string why = why_selected(e, r, {}, none);
            if (e.kind != "mutant") {
                EXPECT_EQ(why, "always (" + e.kind + ")") << e.id;
                continue;
            }
            ++mutants;
            picked += !why.empty();
        }
        EXPECT_GT(picked, mutants / 10) << "commit " << n;
        EXPECT_LT(picked, mutants * 3 / 10) << "commit " << n;
    }
}

TEST(Rotation, AChangeNearAGuardSelectsItsMutant)
{
    const Entry m = mutant("ref_x");
    Rotation r;
    r.commit_number = bucket_of("ref_x", 5) + 1; // not its share
    ASSERT_EQ(why_selected(m, r, {{"ref_x", "reference_impl/src/a.cpp:100"}}, none), "");
    r.changes = {{"reference_impl/src/a.cpp", 120, 121}};
    EXPECT_EQ(why_selected(m, r, {{"ref_x", "reference_impl/src/a.cpp:100"}}, none),
              "changed: its guard at reference_impl/src/a.cpp:100");
    r.changes = {{"reference_impl/src/a.cpp", 200, 210}};
    EXPECT_EQ(why_selected(m, r, {{"ref_x", "reference_impl/src/a.cpp:100"}}, none), "") << "too far away";
    r.changes = {{"reference_impl/src/b.cpp", 100, 100}};
    EXPECT_EQ(why_selected(m, r, {{"ref_x", "reference_impl/src/a.cpp:100"}}, none), "") << "another file";
}

TEST(Rotation, AChangedCaseOfADeclaredClauseSelectsItsMutant)
{
    const Entry m = mutant("ref_y", {"WWN.VIS.4"});
    Rotation r;
    r.commit_number = bucket_of("ref_y", 5) + 1;
    std::string text;
    for (int i = 1; i <= 300; ++i)
        text += i == 150 ? "HCTS_CASE(Visibility, X, {\"WWN.VIS.4\"})\n" : "// line\n";
    const auto read = [&](const std::string &) { return text; };
    r.changes = {{"conformance/src/cases_visibility.cpp", 170, 172}};
    EXPECT_EQ(why_selected(m, r, {}, read), "changed: a case of WWN.VIS.4 at conformance/src/cases_visibility.cpp:170");
    r.changes = {{"conformance/src/cases_visibility.cpp", 290, 290}};
    EXPECT_EQ(why_selected(m, r, {}, read), "") << "a change far from the case";
    EXPECT_EQ(why_selected(mutant("ref_z", {"WWN.VIS.5"}), r, {}, read).rfind("changed", 0), std::string::npos);
}

TEST(Rotation, ParsesTheChangedLinesOfAZeroContextDiff)
{
    const std::string diff = "diff --git a/x.cpp b/x.cpp\n--- a/x.cpp\n+++ b/x.cpp\n@@ -10,2 +10,3 @@ f\n-a\n+b\n"
                             "@@ -40 +41 @@\n-c\n+d\n@@ -50,3 +52,0 @@\n-e\n"
                             "diff --git a/gone.cpp b/gone.cpp\n--- a/gone.cpp\n+++ /dev/null\n@@ -1,5 +0,0 @@\n";
    const auto c = parse_unified_diff(diff);
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ(c[0].file, "x.cpp");
    EXPECT_EQ(c[0].first, 10u);
    EXPECT_EQ(c[0].last, 12u);
    EXPECT_EQ(c[1].first, 41u);
    EXPECT_EQ(c[1].last, 41u);
    EXPECT_EQ(c[2].first, 52u);
    EXPECT_EQ(c[2].last, 52u);
}

TEST(Rotation, ReadsThisTreesGitHistory)
{
    std::string why;
    const auto r = rotation_from_git(HCTS_SOURCE_DIR, 5, why);
    ASSERT_TRUE(r.has_value()) << why;
    EXPECT_GT(r->commit_number, 0u);
    EXPECT_EQ(r->shares, 5u);
}

} // namespace
} // namespace hcts::selftest
