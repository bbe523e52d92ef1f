// The *_str helpers and rate conversions: pure functions, same text as rdma-core's.
#include <infiniband/verbs.h>

#include <cstddef>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "softverbs_resources.h"

namespace {

// The tables of verbs_strings.txt: "[name]" starts one, then a name per line.
const std::map<std::string, std::vector<std::string>, std::less<>> &tables()
{
    using Tables = std::map<std::string, std::vector<std::string>, std::less<>>;
    // Never destroyed: a progress thread may name a status while exit handlers run.
    static const Tables &parsed = *new Tables([] {
        Tables out;
        std::istringstream in{std::string(softverbs::verbs_strings_txt())};
        std::vector<std::string> *current = nullptr;
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#')
                continue;
            if (line.front() == '[' && line.back() == ']')
                current = &out[line.substr(1, line.size() - 2)];
            else if (current != nullptr)
                current->push_back(line);
        }
        return out;
    }());
    return parsed;
}

// rdma-core's *_str: the name at the enum's value, "unknown" past the table.
const char *name_at(std::string_view table, size_t i)
{
    const auto it = tables().find(table);
    return it != tables().end() && i < it->second.size() ? it->second[i].c_str() : "unknown";
}

} // namespace

extern "C" {

const char *ibv_wc_status_str(enum ibv_wc_status s) { return name_at("wc_status", static_cast<size_t>(s)); }

const char *ibv_node_type_str(enum ibv_node_type t)
{
    switch (t) {
    case IBV_NODE_CA: return "InfiniBand channel adapter";
    case IBV_NODE_SWITCH: return "InfiniBand switch";
    case IBV_NODE_ROUTER: return "InfiniBand router";
    case IBV_NODE_RNIC: return "iWARP NIC";
    case IBV_NODE_USNIC: return "usNIC";
    case IBV_NODE_USNIC_UDP: return "usNIC UDP";
    case IBV_NODE_UNSPECIFIED: return "unspecified";
    default: return "unknown";
    }
}

const char *ibv_port_state_str(enum ibv_port_state s) { return name_at("port_state", static_cast<size_t>(s)); }

const char *ibv_event_type_str(enum ibv_event_type e) { return name_at("event_type", static_cast<size_t>(e)); }

} // extern "C"

namespace {
struct RateRow {
    ibv_rate rate;
    int mult, mbps;
};
constexpr RateRow kRates[] = {
    {IBV_RATE_2_5_GBPS, 1, 2500},    {IBV_RATE_5_GBPS, 2, 5000},       {IBV_RATE_10_GBPS, 4, 10000},
    {IBV_RATE_20_GBPS, 8, 20000},    {IBV_RATE_30_GBPS, 12, 30000},    {IBV_RATE_40_GBPS, 16, 40000},
    {IBV_RATE_60_GBPS, 24, 60000},   {IBV_RATE_80_GBPS, 32, 80000},    {IBV_RATE_120_GBPS, 48, 120000},
    {IBV_RATE_14_GBPS, 5, 14062},    {IBV_RATE_56_GBPS, 22, 56250},    {IBV_RATE_112_GBPS, 45, 112500},
    {IBV_RATE_168_GBPS, 67, 168750}, {IBV_RATE_25_GBPS, 10, 25781},    {IBV_RATE_100_GBPS, 40, 103125},
    {IBV_RATE_200_GBPS, 80, 206250}, {IBV_RATE_300_GBPS, 120, 309375}, {IBV_RATE_28_GBPS, 11, 28125},
    {IBV_RATE_50_GBPS, 20, 53125},   {IBV_RATE_400_GBPS, 160, 425000}, {IBV_RATE_600_GBPS, 240, 637500},
};

// Each conversion finds the row whose `From` column equals `key` and answers its
// `To` column, or `missing`.
template <auto From, auto To, typename Key, typename Value>
Value convert_rate(Key key, Value missing)
{
    for (const RateRow &x : kRates)
        if (x.*From == key)
            return x.*To;
    return missing;
}
} // namespace

extern "C" {

int ibv_rate_to_mult(enum ibv_rate r) { return convert_rate<&RateRow::rate, &RateRow::mult>(r, -1); }
enum ibv_rate mult_to_ibv_rate(int mult) { return convert_rate<&RateRow::mult, &RateRow::rate>(mult, IBV_RATE_MAX); }
int ibv_rate_to_mbps(enum ibv_rate r) { return convert_rate<&RateRow::rate, &RateRow::mbps>(r, -1); }
enum ibv_rate mbps_to_ibv_rate(int mbps) { return convert_rate<&RateRow::mbps, &RateRow::rate>(mbps, IBV_RATE_MAX); }

} // extern "C"
