// Every property names the catalogue clauses it checks, and every one of them
// is in conformance/spec/clauses.yaml (loaded with core's catalogue).
#include <gtest/gtest.h>

#include <set>

#include "hcts/core/catalogue.h"
#include "machine/properties.h"

namespace hcts::prop {
namespace {

TEST(Clauses, EveryNamedClauseIsInTheCatalogue)
{
    const Catalogue cat = Catalogue::load(HCTS_CLAUSES_YAML);
    for (const auto &p : all_properties()) {
        EXPECT_FALSE(p.clauses.empty()) << p.name << " names no clause";
        for (const auto &id : p.clauses)
            EXPECT_NE(cat.find(id), nullptr) << p.name << " names unknown clause " << id;
    }
}

TEST(Clauses, FullModelChecksWhatEveryOtherPropertyChecks)
{
    const auto *full = find_property("FullModel");
    ASSERT_NE(full, nullptr);
    const std::set<std::string> all(full->clauses.begin(), full->clauses.end());
    EXPECT_EQ(all.size(), full->clauses.size()) << "a clause listed twice";
    for (const auto &p : all_properties())
        for (const auto &id : p.clauses)
            EXPECT_TRUE(all.count(id)) << id << " of " << p.name;
}

} // namespace
} // namespace hcts::prop
