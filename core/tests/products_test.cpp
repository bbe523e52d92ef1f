// The product table both the reference and the suite read: the built-in one is
// the seed's table, and a broken file is refused with its line and what is allowed.
#include <gtest/gtest.h>

#include <string>

#include "hcts/core/products.h"

using namespace hcts::products;

namespace {

std::string error_of(const std::string &yaml)
{
    try {
        (void)Table::parse(yaml, "t.yaml");
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "(accepted)";
}

const std::string kHead = "schema: hcts-products\nschema_version: 1\ndefault: p\nproducts:\n";
const std::string kGood = "  - name: p\n    title: P\n    seed_row: true\n    write_with_notify: false\n"
                          "    generation: legacy\n    engines: {CPU_TS: [ROCE]}\n    source: s\n";

} // namespace

TEST(Products, BuiltinIsTheSeedTable)
{
    const Table &t = Table::builtin();
    EXPECT_EQ(t.default_product().name, "atlas350");
    EXPECT_EQ(t.names(true), "atlas350, a3, a2, atlas200i_500_a2, inference, training");
    for (const Product &p : t.all())
        EXPECT_EQ(p.write_with_notify, p.name == "atlas350" || p.name == "ascend950") << p.name;
    const Product *a350 = t.find("atlas350");
    ASSERT_NE(a350, nullptr);
    EXPECT_TRUE(a350->allows(COMM_ENGINE_AICPU_TS, COMM_PROTOCOL_UB_CTP));
    EXPECT_FALSE(a350->allows(COMM_ENGINE_AICPU_TS, COMM_PROTOCOL_ROCE));
    EXPECT_TRUE(a350->has_engine(COMM_ENGINE_CPU_TS));
    EXPECT_TRUE(a350->protocols(COMM_ENGINE_CPU_TS).empty());
    EXPECT_FALSE(a350->has_engine(COMM_ENGINE_CPU));
    const Product *a2 = t.find("a2");
    ASSERT_NE(a2, nullptr);
    EXPECT_FALSE(a2->has_engine(COMM_ENGINE_AICPU_TS));
    EXPECT_EQ(a2->protocols(COMM_ENGINE_CPU_TS).front(), COMM_PROTOCOL_ROCE);
    EXPECT_EQ(t.find("atlas 350"), nullptr);
    EXPECT_FALSE(t.find("ascend950")->seed_row);
}

TEST(Products, NamesRoundTrip)
{
    for (const char *e : {"CPU", "CPU_TS", "AICPU", "AICPU_TS", "AIV", "CCU"})
        EXPECT_EQ(engine_name(*engine_from_name(e)), e);
    for (const char *p : {"HCCS", "ROCE", "UB_CTP", "UBOE", "HCCS_ONLY", "UB_MEM"})
        EXPECT_EQ(protocol_name(*protocol_from_name(p)), p);
    EXPECT_FALSE(engine_from_name("GPU"));
    EXPECT_FALSE(protocol_from_name("roce"));
}

TEST(Products, AcceptsAMinimalTable)
{
    const Table t = Table::parse(kHead + kGood, "t.yaml");
    EXPECT_EQ(t.all().size(), 1U);
    EXPECT_EQ(t.default_product().name, "p");
}

TEST(Products, RefusesBrokenTablesWithLineAndAllowedValues)
{
    auto with = [](const std::string &from, const std::string &to) {
        std::string s = kHead + kGood;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    EXPECT_EQ(error_of(with("[ROCE]", "[RoCE]")),
              "t.yaml:10: products[0].engines.CPU_TS has unknown protocol 'RoCE'; allowed: HCCS, ROCE, PCIE, SIO, "
              "UB_CTP, UBC_TP, UB_MEM, UBOE, HCCS_ONLY");
    EXPECT_NE(error_of(with("CPU_TS:", "GPU:")).find("unknown engine 'GPU'; allowed: CPU, CPU_TS"), std::string::npos);
    EXPECT_NE(
        error_of(with("legacy", "a5")).find("t.yaml:9: products[0].generation is 'a5'; allowed: ascend950, legacy"),
        std::string::npos);
    EXPECT_NE(error_of(with("seed_row: true", "seed_row: yes")).find("allowed: true, false"), std::string::npos);
    EXPECT_NE(error_of(with("write_with_notify: false", "write_with_notify: true")).find("not an ascend950 product"),
              std::string::npos);
    EXPECT_NE(error_of(with("    source: s\n", "    source: s\n    colour: red\n")).find("unknown key 'colour'"),
              std::string::npos);
    EXPECT_NE(error_of(kHead + kGood + kGood).find("product 'p' is listed twice"), std::string::npos);
    EXPECT_NE(error_of(with("default: p", "default: q")).find("default 'q' is not a product; allowed: p"),
              std::string::npos);
    EXPECT_NE(error_of(with("schema_version: 1", "schema_version: 2")).find("allowed: 1"), std::string::npos);
    EXPECT_NE(error_of(with("    title: P\n", "")).find("products[0] lacks 'title'"), std::string::npos);
    EXPECT_NE(error_of("products: [").find("malformed YAML"), std::string::npos);
}
