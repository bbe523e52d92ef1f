#include "profile.h"

#include <hcts/mutant.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "device_context.h"
#include "hcts/core/products.h"
#include "log.h"
#include "settings.h"

namespace hcomm_ref {
namespace {

constexpr uint32_t bit(int value) { return 1U << static_cast<uint32_t>(value); }

// The product table (spec/products.yaml, embedded in hcts::products) as this
// library's profiles: one per row, in the table's order.
Profile profile_of(const hcts::products::Product &p)
{
    Profile out{p.name, p.generation == hcts::products::Generation::Ascend950, 0, {}};
    for (const auto &row : p.engines) {
        out.engines |= bit(row.engine);
        for (CommProtocol protocol : row.protocols)
            out.protocols[row.engine] |= bit(protocol);
    }
    // A row with AICPU_TS offers AICPU too, with the same protocols: the vendor
    // serves both with one engine (engine_family).
    if ((out.engines & bit(COMM_ENGINE_AICPU_TS)) != 0) {
        out.engines |= bit(COMM_ENGINE_AICPU);
        out.protocols[COMM_ENGINE_AICPU] |= out.protocols[COMM_ENGINE_AICPU_TS];
    }
    return out;
}

const Profile &choose()
{
    static const std::vector<Profile> profiles = [] {
        std::vector<Profile> all;
        for (const auto &p : hcts::products::Table::builtin().all())
            all.push_back(profile_of(p));
        return all;
    }();
    // settings::product allows the table's names in the table's order, as `profiles` has them.
    const auto chosen = hcts::settings::get_enum(settings::product);
    if (chosen.bad())
        HREF_LOG_ERROR(-1, chosen.error, "; using ", hcts::products::Table::builtin().default_product().name);
    const Profile &candidate = profiles.at(chosen.value);
    HREF_LOG_INFO(-1, "product profile ", candidate.name);
    return candidate;
}

bool side_matches(CommEngine engine) { return engine_on_device(engine) == is_device_side(); }

} // namespace

const Profile &profile()
{
    static const Profile &chosen = choose();
    return chosen;
}

bool engine_is_valid(int32_t engine) { return engine >= COMM_ENGINE_CPU && engine <= COMM_ENGINE_CCU; }

bool protocol_is_valid(int32_t protocol) { return protocol >= COMM_PROTOCOL_HCCS && protocol <= COMM_PROTOCOL_UB_RTP; }

bool engine_on_device(CommEngine engine) { return engine == COMM_ENGINE_AICPU || engine == COMM_ENGINE_AICPU_TS; }

CommEngine engine_family(CommEngine engine) { return engine == COMM_ENGINE_AICPU ? COMM_ENGINE_AICPU_TS : engine; }

bool profile_has_engine(CommEngine engine) { return engine_is_valid(engine) && (profile().engines & bit(engine)) != 0; }

bool profile_allows_protocol(CommEngine engine, CommProtocol protocol)
{
    // Mutant: every 950 row takes AICPU_TS channels over RoCE, Atlas 350 too (its channel page rules it out).
    if (hcts::mutant("ref_atlas350_aicpu_ts_roce") && profile().ascend950 && protocol == COMM_PROTOCOL_ROCE &&
        engine_family(engine) == COMM_ENGINE_AICPU_TS)
        return true;
    return profile_has_engine(engine) && protocol_is_valid(protocol) &&
           (profile().protocols[engine] & bit(protocol)) != 0;
}

HcclResult check_support(Api api, CommEngine engine)
{
    const Profile &p = profile();
    bool ok = false;
    switch (api) {
    case Api::write_with_notify:
        // Mutant: support inferred from an AICPU_TS engine in the row, not from the row's generation.
        // The seed's "AICPU_TS mode": an AICPU thread is the same engine (engine_family).
        // Mutant: only threads acquired as AICPU_TS pass, an AICPU one is refused.
        ok = (hcts::mutant("ref_wwn_support_from_aicpu_ts") ? profile_has_engine(COMM_ENGINE_AICPU_TS) : p.ascend950) &&
             is_device_side() &&
             (hcts::mutant("ref_wwn_aicpu_ts_only") ? engine == COMM_ENGINE_AICPU_TS
                                                    : engine_family(engine) == COMM_ENGINE_AICPU_TS);
        break;
    case Api::nbi:
        ok = p.ascend950 && !is_device_side() && engine == COMM_ENGINE_CPU && profile_has_engine(engine);
        // Mutant: the Nbi support rule checks the side only, so a host call on any engine's thread or channel passes.
        if (hcts::mutant("ref_nbi_host_any_engine"))
            ok = p.ascend950 && !is_device_side();
        // Mutant: the Nbi support rule checks the engine only where the call has a thread (AICPU passes on the device).
        if (hcts::mutant("ref_nbi_device_side_accepted"))
            ok = ok || (p.ascend950 && is_device_side());
        break;
    case Api::on_thread: ok = side_matches(engine); break;
    case Api::host_channel: ok = !is_device_side() && engine == COMM_ENGINE_CPU; break;
    case Api::channel_fence_on_thread:
        // Mutant: the fence takes the legacy products' rule (drain's), so 950 refuses it.
        ok = (hcts::mutant("ref_channel_fence_refused_on_950") ? !p.ascend950 : p.ascend950) && side_matches(engine);
        break;
    case Api::fence_on_thread:
        // Mutant: the host-only fence takes the channel fence's rule, so the device accepts it.
        ok = p.ascend950 &&
             (hcts::mutant("ref_fence_on_thread_device_ok") ? side_matches(engine)
                                                            : !is_device_side() && engine == COMM_ENGINE_CPU);
        break;
    case Api::drain:
    case Api::aclrt_notify:
        // Mutant: the legacy-only calls are allowed on every product.
        ok = (!p.ascend950 || hcts::mutant("ref_legacy_calls_on_950")) && side_matches(engine);
        break;
    }
    return ok ? HCCL_SUCCESS : HCCL_E_NOT_SUPPORT;
}

} // namespace hcomm_ref
