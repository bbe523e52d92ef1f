#include "profile.h"

#include <array>
#include <cstdlib>
#include <string>

#include "device_context.h"
#include "log.h"

namespace hcomm_ref {
namespace {

constexpr uint32_t bit(int value) { return 1U << static_cast<uint32_t>(value); }

constexpr uint32_t kUb = bit(COMM_PROTOCOL_UB_CTP) | bit(COMM_PROTOCOL_UBOE);
constexpr uint32_t kLegacy = bit(COMM_PROTOCOL_ROCE) | bit(COMM_PROTOCOL_HCCS) | bit(COMM_PROTOCOL_HCCS_ONLY);

// Index by CommEngine: CPU, CPU_TS, AICPU, AICPU_TS, AIV, CCU.
constexpr std::array<Profile, 7> kProfiles{{
    // Atlas 350: AICPU_TS over UB only (UB_CTP, UBoE), no CPU engine, no RoCE. The host
    // keeps a CPU_TS thread for handing work to the device, but it carries no channels.
    {"atlas350", true, bit(COMM_ENGINE_CPU_TS) | bit(COMM_ENGINE_AICPU_TS), {0, 0, 0, kUb, 0, 0}},
    {"a3", false, bit(COMM_ENGINE_CPU_TS) | bit(COMM_ENGINE_AICPU_TS), {0, 0, 0, kLegacy, 0, 0}},
    {"a2", false, bit(COMM_ENGINE_CPU) | bit(COMM_ENGINE_CPU_TS),
     {bit(COMM_PROTOCOL_ROCE), kLegacy, 0, 0, 0, 0}},
    {"atlas200i_500_a2", false, bit(COMM_ENGINE_CPU) | bit(COMM_ENGINE_CPU_TS),
     {bit(COMM_PROTOCOL_ROCE), kLegacy, 0, 0, 0, 0}},
    {"inference", false, bit(COMM_ENGINE_CPU) | bit(COMM_ENGINE_CPU_TS),
     {bit(COMM_PROTOCOL_ROCE), kLegacy, 0, 0, 0, 0}},
    {"training", false, bit(COMM_ENGINE_CPU) | bit(COMM_ENGINE_CPU_TS),
     {bit(COMM_PROTOCOL_ROCE), kLegacy, 0, 0, 0, 0}},
    // Not a row of the product table: a 950PR/DT board without Atlas 350's limits (CPU
    // engine with RoCE, AICPU_TS also over RoCE), so the host Nbi calls have a home.
    {"ascend950", true, bit(COMM_ENGINE_CPU) | bit(COMM_ENGINE_CPU_TS) | bit(COMM_ENGINE_AICPU_TS),
     {bit(COMM_PROTOCOL_ROCE) | bit(COMM_PROTOCOL_UB_CTP), 0, 0, kUb | bit(COMM_PROTOCOL_ROCE), 0, 0}},
}};

const Profile &choose()
{
    const char *value = std::getenv("HCOMM_REF_PRODUCT");
    const std::string_view wanted = value == nullptr || *value == '\0' ? "atlas350" : value;
    for (const Profile &candidate : kProfiles) {
        if (candidate.name == wanted) {
            HREF_LOG_INFO(-1, "product profile ", candidate.name);
            return candidate;
        }
    }
    std::string allowed;
    for (const Profile &candidate : kProfiles) {
        allowed += allowed.empty() ? "" : ", ";
        allowed += candidate.name;
    }
    HREF_LOG_ERROR(-1, "HCOMM_REF_PRODUCT='", wanted, "' is unknown (allowed: ", allowed, "); using atlas350");
    return kProfiles[0];
}

bool side_matches(CommEngine engine) { return engine_on_device(engine) == is_device_side(); }

}  // namespace

const Profile &profile()
{
    static const Profile &chosen = choose();
    return chosen;
}

bool engine_is_valid(int32_t engine) { return engine >= COMM_ENGINE_CPU && engine <= COMM_ENGINE_CCU; }

bool protocol_is_valid(int32_t protocol) { return protocol >= COMM_PROTOCOL_HCCS && protocol <= COMM_PROTOCOL_UB_RTP; }

bool engine_on_device(CommEngine engine) { return engine == COMM_ENGINE_AICPU || engine == COMM_ENGINE_AICPU_TS; }

bool profile_has_engine(CommEngine engine)
{
    return engine_is_valid(engine) && (profile().engines & bit(engine)) != 0;
}

bool profile_allows_protocol(CommEngine engine, CommProtocol protocol)
{
    return profile_has_engine(engine) && protocol_is_valid(protocol) &&
           (profile().protocols[engine] & bit(protocol)) != 0;
}

HcclResult check_support(Api api, CommEngine engine)
{
    const Profile &p = profile();
    bool ok = false;
    switch (api) {
    case Api::write_with_notify:
        ok = p.ascend950 && is_device_side() && engine == COMM_ENGINE_AICPU_TS;
        break;
    case Api::nbi:
        ok = p.ascend950 && !is_device_side() && engine == COMM_ENGINE_CPU && profile_has_engine(engine);
        break;
    case Api::on_thread:
        ok = side_matches(engine);
        break;
    case Api::host_channel:
        ok = !is_device_side() && engine == COMM_ENGINE_CPU;
        break;
    case Api::channel_fence_on_thread:
        ok = p.ascend950 && side_matches(engine);
        break;
    case Api::fence_on_thread:
        ok = p.ascend950 && !is_device_side() && engine == COMM_ENGINE_CPU;
        break;
    case Api::drain:
    case Api::aclrt_notify:
        ok = !p.ascend950 && side_matches(engine);
        break;
    }
    return ok ? HCCL_SUCCESS : HCCL_E_NOT_SUPPORT;
}

}  // namespace hcomm_ref
