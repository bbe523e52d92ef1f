// The typed results document (results_model.h): every fixture reads and writes back
// as it was (unknown fields and nulls included), wrong fields are named with their
// value and what is allowed, and the gate rule is the one the schema states.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hcts/core/clause_kind.h"
#include "hcts/core/results_model.h"

using namespace hcts;
using nlohmann::json;

namespace {

json fixture(const std::string &name)
{
    std::ifstream in(std::string(HCTS_REPORT_FIXTURES) + "/" + name);
    EXPECT_TRUE(in) << name;
    return json::parse(in);
}

// Numbers the model holds as double come back as doubles (12 -> 12.0): compare values, not types.
void expect_same(const json &a, const json &b, const std::string &where)
{
    if (a.is_number() && b.is_number()) {
        EXPECT_DOUBLE_EQ(a.get<double>(), b.get<double>()) << where;
        return;
    }
    ASSERT_EQ(a.type(), b.type()) << where << ": " << a.dump() << " vs " << b.dump();
    if (a.is_object()) {
        for (const auto &[key, value] : a.items()) {
            ASSERT_TRUE(b.contains(key)) << where << "." << key << " lost";
            expect_same(value, b.at(key), where + "." + key);
        }
        for (const auto &[key, value] : b.items())
            EXPECT_TRUE(a.contains(key)) << where << "." << key << " added: " << value.dump();
    } else if (a.is_array()) {
        ASSERT_EQ(a.size(), b.size()) << where;
        for (std::size_t i = 0; i < a.size(); ++i)
            expect_same(a[i], b[i], where + "[" + std::to_string(i) + "]");
    } else {
        EXPECT_EQ(a, b) << where;
    }
}

std::string error_of(const json &doc)
{
    try {
        (void)results::read_document(doc);
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(ResultsModel, EveryFixtureRoundTrips)
{
    for (const auto &entry : std::filesystem::directory_iterator(HCTS_REPORT_FIXTURES)) {
        if (entry.path().extension() != ".json")
            continue;
        const auto name = entry.path().filename().string();
        const json original = fixture(name);
        const auto doc = results::read_document(original);
        expect_same(original, results::to_json_document(doc), name);
    }
}

TEST(ResultsModel, ReadsTheFields)
{
    const auto doc = fixture("failures.json").get<results::Document>();
    EXPECT_EQ(doc.schema_version, 1);
    ASSERT_FALSE(doc.clauses.empty());
    EXPECT_FALSE(doc.clauses.front().id.empty());
    ASSERT_FALSE(doc.cases.empty());
    EXPECT_EQ(doc.find_case(doc.cases.back().name), &doc.cases.back());
    EXPECT_EQ(doc.find_case("no such case"), nullptr);
}

TEST(ResultsModel, KeepsUnknownFieldsThroughReadModifyWrite)
{
    json original = fixture("pass.json");
    original["future_section"] = {{"x", 1}};
    original["run"]["future_field"] = "kept";
    original["cases"][0]["future_field"] = json::array({1, 2});
    auto doc = results::read_document(original);
    doc.cases[0].reason = "changed";
    const json written = doc;
    EXPECT_EQ(written.at("future_section"), original.at("future_section"));
    EXPECT_EQ(written.at("run").at("future_field"), "kept");
    EXPECT_EQ(written.at("cases")[0].at("future_field"), json::array({1, 2}));
    EXPECT_EQ(written.at("cases")[0].at("reason"), "changed");
}

TEST(ResultsModel, ErrorsNameTheFieldTheValueAndWhatIsAllowed)
{
    json doc = fixture("pass.json");
    doc["cases"][1]["verdict"] = "PASSED";
    EXPECT_EQ(error_of(doc), "cases[1].verdict is \"PASSED\"; allowed: " + std::string(verdict_names()));

    doc = fixture("pass.json");
    doc["clauses"][0]["kind"] = "SHOULD";
    EXPECT_EQ(error_of(doc), "clauses[0].kind is \"SHOULD\"; allowed: MUST, PROFILE, STRICT");

    doc = fixture("pass.json");
    doc["run"]["status"] = "done";
    EXPECT_EQ(error_of(doc), "run.status is \"done\"; allowed: running, complete, aborted");

    doc = fixture("pass.json");
    doc["environment"]["ranks"] = "two";
    EXPECT_EQ(error_of(doc), "environment.ranks is \"two\"; allowed: an integer");

    doc = fixture("pass.json");
    doc["schema_version"] = 2;
    EXPECT_EQ(error_of(doc), "schema_version is 2; allowed: 1");

    doc = fixture("pass.json");
    doc["run"].erase("id");
    EXPECT_EQ(error_of(doc), "run.id is missing; it is required");
}

TEST(GateRule, MustAlwaysStrictUnderTheStrictGateProfileNever)
{
    EXPECT_TRUE(gates_on(ClauseKind::Must, GateMode::Default));
    EXPECT_TRUE(gates_on(ClauseKind::Must, GateMode::Strict));
    EXPECT_FALSE(gates_on(ClauseKind::Strict, GateMode::Default));
    EXPECT_TRUE(gates_on(ClauseKind::Strict, GateMode::Strict));
    EXPECT_FALSE(gates_on(ClauseKind::Profile, GateMode::Default));
    EXPECT_FALSE(gates_on(ClauseKind::Profile, GateMode::Strict));
    EXPECT_FALSE(gates_on("SHOULD", GateMode::Strict));
    EXPECT_TRUE(gates_on("SHOULD", GateMode::Default, /*unknown_gates=*/true));
    for (const auto k : {ClauseKind::Must, ClauseKind::Profile, ClauseKind::Strict})
        EXPECT_EQ(parse_clause_kind(clause_kind_name(k)), k);
    EXPECT_EQ(parse_gate_mode("strict"), GateMode::Strict);
    EXPECT_FALSE(parse_gate_mode("STRICT"));
}
