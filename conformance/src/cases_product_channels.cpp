// Channel protocols per product, as the vendor's channel pages state them
// (API.CHN.6): what a product rules out must be refused whatever the library's
// own product table says, and what the world set up on must have been acquired.
// The rules are written here from the documents, not read from
// spec/products.yaml, so a wrong table is caught too.
#include "case_kit.h"
#include "hcts/core/adapter.h"
#include "hcts/core/products.h"

namespace hcts::cases_product_channels {
namespace {

struct Pair {
    CommEngine engine;
    CommProtocol protocol;
};

struct Rules {
    std::vector<Pair> refused;
    std::string source;
};

// The pairs each product's pages rule out (hcomm-api.md §2).
Rules rules_of(const std::string &product, const products::Product *row)
{
    const std::vector<CommProtocol> hccs{COMM_PROTOCOL_HCCS, COMM_PROTOCOL_HCCS_ONLY};
    Rules r;
    if (product == "atlas350") {
        for (CommEngine e : {COMM_ENGINE_AICPU_TS, COMM_ENGINE_AICPU})
            for (CommProtocol p : {COMM_PROTOCOL_ROCE, COMM_PROTOCOL_HCCS, COMM_PROTOCOL_HCCS_ONLY})
                r.refused.push_back({e, p});
        for (CommProtocol p : {COMM_PROTOCOL_ROCE, COMM_PROTOCOL_UB_CTP})
            r.refused.push_back({COMM_ENGINE_CPU, p});
        r.source = "HcommChannelCreate.md: Atlas 350 has no CPU engine and no AICPU_TS over ROCE; HCCS is A2/A3 only";
    } else if (row != nullptr && row->generation == products::Generation::Ascend950) {
        for (CommEngine e : {COMM_ENGINE_AICPU_TS, COMM_ENGINE_CPU})
            for (CommProtocol p : hccs)
                r.refused.push_back({e, p});
        r.source = "api §2: HCCS and HCCS_ONLY are A2/A3 only";
    }
    return r;
}

std::string pair_name(const Pair &p)
{
    return std::string(products::engine_name(p.engine)) + " over " + std::string(products::protocol_name(p.protocol));
}

} // namespace

// Ranks 0 and 1 each try every ruled-out pair towards the other (matching
// descriptors, as a real acquisition needs): each must return non-zero and no
// handle; a channel acquired all the same is destroyed again. The pairs the
// world's channels use were acquired at set-up: that is the evidence they work.
HCTS_CASE(DeviceOnly, ChannelProtocolsByProduct, clauses("API.CHN.6"), needs())
{
    const Ctx c = ctx();
    const World &w = c.w;
    const HcommApi &api = iut().api();
    const std::string product = adapter().product();
    const Rules rules = rules_of(product, products::Table::builtin().find(product));
    ev().observe("product", product);
    if (w.rank <= 1) {
        const std::string engine(products::engine_name(w.setup_engine));
        ev().check("API.CHN.6", w.channel_to(w.rank == 0 ? 1 : 0) != 0,
                   "the world's channels (" + engine + " over " + std::string(products::protocol_name(w.protocol)) +
                       ") were not acquired on product '" + product + "'");
        for (const Pair &p : rules.refused) {
            HcclChannelDesc d;
            HcclChannelDescInit(&d, 1);
            d.remoteRank = static_cast<uint32_t>(w.rank == 0 ? 1 : 0);
            d.channelProtocol = p.protocol;
            d.notifyNum = 8;
            ChannelHandle ch = 0;
            const HcclResult rc = api.HcclChannelAcquire(w.comm, p.engine, &d, 1, &ch);
            if (rc == HCCL_SUCCESS && ch != 0 && api.HcclChannelDestroy != nullptr)
                (void)api.HcclChannelDestroy(w.comm, &ch, 1);
            ev().check("API.CHN.6", rc != HCCL_SUCCESS,
                       "HcclChannelAcquire of a channel on " + pair_name(p) + " on product '" + product +
                           "' returned HCCL_SUCCESS (handle " + hex(ch) + "); expected a refusal (" + rules.source +
                           ")");
        }
    }
    mpi::phase_barrier("channel protocols by product");
}

} // namespace hcts::cases_product_channels
