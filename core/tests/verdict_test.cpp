// The verdict list in the code is the schema's: a verdict added to one and not
// the other would be written by the suite and refused by every reader.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "hcts/core/verdict.h"

using namespace hcts;

TEST(Verdicts, NamesRoundTripInSeverityOrder)
{
    for (size_t i = 0; i < kAllVerdicts.size(); ++i) {
        EXPECT_EQ(parse_verdict(verdict_name(kAllVerdicts[i])), kAllVerdicts[i]);
        EXPECT_EQ(static_cast<size_t>(kAllVerdicts[i]), i) << "kAllVerdicts must list the enum in order";
    }
    EXPECT_FALSE(parse_verdict("pass"));
    EXPECT_EQ(worst(Verdict::Error, Verdict::NotSupported), Verdict::Error);
    EXPECT_EQ(worst(Verdict::Error, Verdict::Fail), Verdict::Fail);
    std::string listed;
    for (Verdict v : kAllVerdicts)
        listed += (listed.empty() ? "" : ", ") + std::string(verdict_name(v));
    EXPECT_EQ(verdict_names(), listed);
}

TEST(Verdicts, ErrorGatesAndIsNeverAPass)
{
    EXPECT_TRUE(fails_gate(Verdict::Error));
    EXPECT_FALSE(is_bad(Verdict::Error)) << "a waiver must name ERROR to cover it";
    for (Verdict v : {Verdict::Pass, Verdict::Profile, Verdict::Waived, Verdict::NotSupported, Verdict::Hazard})
        EXPECT_FALSE(fails_gate(v)) << verdict_name(v);
}

TEST(Verdicts, MatchTheSchema)
{
    std::ifstream in(HCTS_RESULTS_SCHEMA);
    ASSERT_TRUE(in) << HCTS_RESULTS_SCHEMA;
    const auto schema = nlohmann::json::parse(in);
    std::set<std::string> in_schema, in_code;
    for (const auto &v : schema.at("$defs").at("verdict").at("enum"))
        in_schema.insert(v.get<std::string>());
    for (Verdict v : kAllVerdicts)
        in_code.insert(std::string(verdict_name(v)));
    EXPECT_EQ(in_schema, in_code);
    std::set<std::string> waivable;
    for (const auto &v : schema.at("$defs").at("waiver").at("properties").at("expected").at("enum"))
        waivable.insert(v.get<std::string>());
    EXPECT_EQ(waivable, (std::set<std::string>{"FAIL", "TIMEOUT", "CRASH", "HAZARD", "ERROR", "NOT_SUPPORTED"}));
}
