#include "hcts/core/products.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "hcts_core_resources.h"

namespace hcts::products {
namespace {

constexpr std::array<std::pair<std::string_view, CommEngine>, 6> kEngines{{
    {"CPU", COMM_ENGINE_CPU},
    {"CPU_TS", COMM_ENGINE_CPU_TS},
    {"AICPU", COMM_ENGINE_AICPU},
    {"AICPU_TS", COMM_ENGINE_AICPU_TS},
    {"AIV", COMM_ENGINE_AIV},
    {"CCU", COMM_ENGINE_CCU},
}};

constexpr std::array<std::pair<std::string_view, CommProtocol>, 9> kProtocols{{
    {"HCCS", COMM_PROTOCOL_HCCS},
    {"ROCE", COMM_PROTOCOL_ROCE},
    {"PCIE", COMM_PROTOCOL_PCIE},
    {"SIO", COMM_PROTOCOL_SIO},
    {"UB_CTP", COMM_PROTOCOL_UB_CTP},
    {"UBC_TP", COMM_PROTOCOL_UBC_TP},
    {"UB_MEM", COMM_PROTOCOL_UB_MEM},
    {"UBOE", COMM_PROTOCOL_UBOE},
    {"HCCS_ONLY", COMM_PROTOCOL_HCCS_ONLY},
}};

template <typename Table>
std::string allowed_names(const Table &table)
{
    std::string out;
    for (const auto &[name, value] : table)
        out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

class Parser {
  public:
    explicit Parser(std::string_view origin) : origin_(origin) {}

    [[noreturn]] void fail(const YAML::Node &at, const std::string &problem) const
    {
        const int line = at.IsDefined() ? at.Mark().line + 1 : 0;
        throw std::runtime_error(origin_ + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + problem);
    }

    YAML::Node need(const YAML::Node &map, const char *key, const std::string &where) const
    {
        const YAML::Node n = map[key];
        if (!n)
            fail(map, where + " lacks '" + key + "'");
        return n;
    }

    std::string text(const YAML::Node &map, const char *key, const std::string &where) const
    {
        const YAML::Node n = need(map, key, where);
        if (!n.IsScalar())
            fail(n, where + "." + key + " must be a string");
        return n.as<std::string>();
    }

    bool flag(const YAML::Node &map, const char *key, const std::string &where) const
    {
        const std::string v = text(map, key, where);
        if (v != "true" && v != "false")
            fail(map[key], where + "." + key + " is '" + v + "'; allowed: true, false");
        return v == "true";
    }

    Product product(const YAML::Node &n, size_t i) const
    {
        const std::string where = "products[" + std::to_string(i) + "]";
        if (!n.IsMap())
            fail(n, where + " must be a mapping");
        for (const auto &kv : n) {
            static constexpr std::array<std::string_view, 7> kKeys{
                "name", "title", "seed_row", "write_with_notify", "generation", "engines", "source"};
            const std::string key = kv.first.as<std::string>();
            if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
                fail(kv.first, where + " has unknown key '" + key +
                                   "'; allowed: name, title, seed_row, write_with_notify, generation, engines, source");
        }
        Product p;
        p.name = text(n, "name", where);
        p.title = text(n, "title", where);
        p.source = text(n, "source", where);
        p.seed_row = flag(n, "seed_row", where);
        p.write_with_notify = flag(n, "write_with_notify", where);
        const std::string gen = text(n, "generation", where);
        if (gen != "ascend950" && gen != "legacy")
            fail(n["generation"], where + ".generation is '" + gen + "'; allowed: ascend950, legacy");
        p.generation = gen == "ascend950" ? Generation::Ascend950 : Generation::Legacy;
        const YAML::Node engines = need(n, "engines", where);
        if (!engines.IsMap() || engines.size() == 0)
            fail(engines, where + ".engines must be a non-empty mapping of engine to protocol list");
        for (const auto &kv : engines) {
            const std::string ename = kv.first.as<std::string>();
            const auto engine = engine_from_name(ename);
            if (!engine)
                fail(kv.first,
                     where + ".engines has unknown engine '" + ename + "'; allowed: " + allowed_names(kEngines));
            if (p.has_engine(*engine))
                fail(kv.first, where + ".engines names " + ename + " twice");
            if (!kv.second.IsSequence())
                fail(kv.second, where + ".engines." + ename + " must be a list of protocols ([] for none)");
            EngineRow row{*engine, {}};
            for (const auto &pn : kv.second) {
                const std::string pname = pn.as<std::string>();
                const auto protocol = protocol_from_name(pname);
                if (!protocol)
                    fail(pn, where + ".engines." + ename + " has unknown protocol '" + pname +
                                 "'; allowed: " + allowed_names(kProtocols));
                row.protocols.push_back(*protocol);
            }
            p.engines.push_back(std::move(row));
        }
        if (p.write_with_notify && !(p.generation == Generation::Ascend950 && p.has_engine(COMM_ENGINE_AICPU_TS)))
            fail(n, where + " (" + p.name + ") has write_with_notify but is not an ascend950 product with AICPU_TS");
        return p;
    }

  private:
    std::string origin_;
};

} // namespace

bool Product::has_engine(CommEngine e) const
{
    return std::any_of(engines.begin(), engines.end(), [e](const EngineRow &r) { return r.engine == e; });
}

std::span<const CommProtocol> Product::protocols(CommEngine e) const
{
    for (const EngineRow &r : engines)
        if (r.engine == e)
            return r.protocols;
    return {};
}

bool Product::allows(CommEngine e, CommProtocol p) const
{
    const auto ps = protocols(e);
    return std::find(ps.begin(), ps.end(), p) != ps.end();
}

Table Table::parse(std::string_view yaml_text, std::string_view origin)
{
    const Parser parser(origin);
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml_text));
    } catch (const YAML::Exception &e) {
        throw std::runtime_error(std::string(origin) + ":" + std::to_string(e.mark.line + 1) +
                                 ": malformed YAML: " + e.msg);
    }
    if (!root.IsMap())
        parser.fail(root, "the document must be a mapping");
    if (parser.text(root, "schema", "the document") != "hcts-products")
        parser.fail(root["schema"], "schema is '" + root["schema"].as<std::string>() + "'; allowed: hcts-products");
    if (parser.text(root, "schema_version", "the document") != "1")
        parser.fail(root["schema_version"],
                    "schema_version " + root["schema_version"].as<std::string>() + " is not known; allowed: 1");
    const YAML::Node list = parser.need(root, "products", "the document");
    if (!list.IsSequence() || list.size() == 0)
        parser.fail(list, "products must be a non-empty list");
    Table t;
    for (size_t i = 0; i < list.size(); ++i) {
        Product p = parser.product(list[i], i);
        if (t.find(p.name) != nullptr)
            parser.fail(list[i], "product '" + p.name + "' is listed twice");
        t.products_.push_back(std::move(p));
    }
    const std::string def = parser.text(root, "default", "the document");
    const auto it =
        std::find_if(t.products_.begin(), t.products_.end(), [&](const Product &p) { return p.name == def; });
    if (it == t.products_.end())
        parser.fail(root["default"], "default '" + def + "' is not a product; allowed: " + t.names());
    t.default_ = static_cast<size_t>(it - t.products_.begin());
    return t;
}

const Table &Table::builtin()
{
    static const Table table = parse(hcts::core::products_yaml(), "spec/products.yaml");
    return table;
}

const Product *Table::find(std::string_view name) const
{
    const auto it = std::ranges::find(products_, name, &Product::name);
    return it != products_.end() ? &*it : nullptr;
}

std::string Table::names(bool seed_rows_only) const
{
    std::string out;
    for (const Product &p : products_)
        if (!seed_rows_only || p.seed_row)
            out += (out.empty() ? "" : ", ") + p.name;
    return out;
}

std::optional<CommEngine> engine_from_name(std::string_view name)
{
    for (const auto &[n, e] : kEngines)
        if (n == name)
            return e;
    return std::nullopt;
}

std::optional<CommProtocol> protocol_from_name(std::string_view name)
{
    for (const auto &[n, p] : kProtocols)
        if (n == name)
            return p;
    return std::nullopt;
}

std::string_view engine_name(CommEngine e)
{
    for (const auto &[n, v] : kEngines)
        if (v == e)
            return n;
    return "?";
}

std::string_view protocol_name(CommProtocol p)
{
    for (const auto &[n, v] : kProtocols)
        if (v == p)
            return n;
    return "?";
}

} // namespace hcts::products
