// Loading expectation files: the accepted format and the messages for mistakes.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "hcts/expectations.h"

namespace {

using hcts::expectations::ExpectationSet;

// The message of the runtime_error `text` causes, or a marker if it parses.
std::string error_of(const std::string &text)
{
    try {
        ExpectationSet::parse(text, "exp.yaml");
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "<parsed without error>";
}

const char *kHeader = "schema: hcts-expectations\nschema_version: 1\n";

TEST(ExpectationsParse, ReadsEveryField)
{
    const auto set = ExpectationSet::parse(std::string(kHeader) +
                                               "expectations:\n"
                                               "  - clause: WWN.IDX.2\n"
                                               "    expected: FAIL\n"
                                               "    reason: \"vendor ticket 1234\"\n"
                                               "    when: { iut: \"libvendor*.so\", product: atlas350, ranks: 2 }\n"
                                               "  - case: \"Bounds.*\"\n"
                                               "    expected: NOT_SUPPORTED\n"
                                               "    reason: no host API\n",
                                           "exp.yaml");
    ASSERT_EQ(set.entries().size(), 2U);
    const auto &a = set.entries()[0];
    EXPECT_EQ(a.clause, "WWN.IDX.2");
    EXPECT_TRUE(a.case_glob.empty());
    EXPECT_EQ(a.expected, "FAIL");
    EXPECT_EQ(a.reason, "vendor ticket 1234");
    EXPECT_EQ(a.when.iut.value_or(""), "libvendor*.so");
    EXPECT_EQ(a.when.product.value_or(""), "atlas350");
    EXPECT_EQ(a.when.ranks.value_or(0), 2);
    EXPECT_EQ(a.line, 4);
    const auto &b = set.entries()[1];
    EXPECT_EQ(b.case_glob, "Bounds.*");
    EXPECT_EQ(b.expected, "NOT_SUPPORTED");
    EXPECT_FALSE(b.when.iut.has_value());
    EXPECT_FALSE(b.when.ranks.has_value());
    EXPECT_EQ(b.line, 8);
    EXPECT_EQ(set.origin(), "exp.yaml");
}

TEST(ExpectationsParse, EmptyListIsValid)
{
    EXPECT_TRUE(ExpectationSet::parse(std::string(kHeader) + "expectations: []\n", "e").entries().empty());
    EXPECT_TRUE(ExpectationSet::parse(std::string(kHeader) + "expectations:\n", "e").entries().empty());
}

TEST(ExpectationsParse, ErrorsNameFileLineAndProblem)
{
    const std::string list = std::string(kHeader) + "expectations:\n";
    // line 4 is the entry's first line.
    EXPECT_EQ(error_of(list + "  - clause: A\n    expected: FAILED\n    reason: r\n"),
              "exp.yaml:5: expectations[0].expected is 'FAILED'; allowed: FAIL, TIMEOUT, CRASH, HAZARD, ERROR, "
              "NOT_SUPPORTED");
    EXPECT_EQ(error_of(list + "  - clause: A\n    case: B\n    expected: FAIL\n    reason: r\n"),
              "exp.yaml:4: expectations[0] must have exactly one of 'clause' or 'case'");
    EXPECT_EQ(error_of(list + "  - clause: A\n    expected: FAIL\n"),
              "exp.yaml:4: expectations[0] is missing 'reason' (say why, e.g. a ticket)");
    EXPECT_EQ(error_of(list + "  - clause: A\n    expected: FAIL\n    reason: r\n    wen: {}\n"),
              "exp.yaml:7: unknown key 'wen' in expectations[0]; allowed: case, clause, expected, reason, when");
    EXPECT_EQ(error_of(list + "  - clause: A\n    expected: FAIL\n    reason: r\n    when: { ranks: two }\n"),
              "exp.yaml:7: expectations[0].when.ranks 'two' is not an integer");
    EXPECT_EQ(
        error_of(list + "  - clause: A\n    expected: PASS\n    reason: r\n"),
        "exp.yaml:5: expectations[0].expected is 'PASS'; allowed: FAIL, TIMEOUT, CRASH, HAZARD, ERROR, NOT_SUPPORTED");
}

TEST(ExpectationsParse, RefusesOtherSchemasAndNewerVersions)
{
    EXPECT_EQ(error_of("schema: hcts-results\nschema_version: 1\nexpectations: []\n"),
              "exp.yaml:1: schema is 'hcts-results'; it must be 'hcts-expectations'");
    EXPECT_EQ(error_of("schema: hcts-expectations\nschema_version: 2\nexpectations: []\n"),
              "exp.yaml:2: schema_version 2 is newer than this reader knows (1); update hcts");
    EXPECT_EQ(error_of("schema: hcts-expectations\nexpectations: []\n"),
              "exp.yaml:1: missing key 'schema_version'; this reader knows version 1");
    EXPECT_EQ(error_of(""), "exp.yaml:1: the file is empty; it needs schema, schema_version, expectations");
}

TEST(ExpectationsParse, MalformedYamlGivesLine)
{
    const auto msg = error_of(std::string(kHeader) + "expectations:\n  - clause: [A\n");
    EXPECT_EQ(msg.rfind("exp.yaml:", 0), 0U) << msg;
    EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
}

TEST(ExpectationsLoad, MissingFileIsNamed)
{
    const std::string path = std::string(HCTS_EXPECTATIONS_TEST_DIR) + "/does-not-exist.yaml";
    try {
        ExpectationSet::load(path);
        FAIL() << "load of a missing file succeeded";
    } catch (const std::runtime_error &e) {
        EXPECT_EQ(std::string(e.what()), path + ":0: cannot open the expectations file for reading");
    }
}

TEST(ExpectationsLoad, ReadsAFile)
{
    const std::string path = std::string(HCTS_EXPECTATIONS_TEST_DIR) + "/load-test.yaml";
    {
        std::ofstream out(path);
        out << kHeader << "expectations:\n  - case: \"X.*\"\n    expected: TIMEOUT\n    reason: slow\n";
    }
    const auto set = ExpectationSet::load(path);
    ASSERT_EQ(set.entries().size(), 1U);
    EXPECT_EQ(set.entries()[0].expected, "TIMEOUT");
    EXPECT_EQ(set.origin(), path);
    std::remove(path.c_str());
}

} // namespace
