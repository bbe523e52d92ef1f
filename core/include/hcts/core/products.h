// The product table (spec/products.yaml), embedded at build time: which products
// exist, which have HcommWriteWithNotifyOnThread, which engines they offer and
// which protocols each engine's channels may use. The reference implementation
// builds its product profiles from it; the suite checks the adapter's product
// against it and picks the engine and protocols a case sets up on.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hcomm/hcomm_res_defs.h"

namespace hcts::products {

enum class Generation { Ascend950, Legacy };

struct EngineRow {
    CommEngine engine;
    std::vector<CommProtocol> protocols; // empty: threads only, no channels
};

struct Product {
    std::string name, title, source;
    bool seed_row = false;
    bool write_with_notify = false;
    Generation generation = Generation::Legacy;
    std::vector<EngineRow> engines; // in the file's order

    bool has_engine(CommEngine e) const;
    bool allows(CommEngine e, CommProtocol p) const;
    // The protocols of engine `e`'s channels, in the file's order (empty if none).
    std::span<const CommProtocol> protocols(CommEngine e) const;
};

class Table {
  public:
    // Parses a table; throws std::runtime_error "ORIGIN:LINE: problem" naming the
    // field, the value and what is allowed.
    static Table parse(std::string_view yaml_text, std::string_view origin);
    // The table built into this binary (spec/products.yaml).
    static const Table &builtin();

    std::span<const Product> all() const { return products_; }
    const Product *find(std::string_view name) const;
    const Product &default_product() const { return products_.at(default_); }
    // "a, b, c": the names of every product (or only the seed's rows), for messages.
    std::string names(bool seed_rows_only = false) const;

  private:
    std::vector<Product> products_;
    size_t default_ = 0;
};

// Names as the YAML file spells them ("AICPU_TS", "UB_CTP"); nullopt when unknown.
std::optional<CommEngine> engine_from_name(std::string_view name);
std::optional<CommProtocol> protocol_from_name(std::string_view name);
std::string_view engine_name(CommEngine e);
std::string_view protocol_name(CommProtocol p);

} // namespace hcts::products
