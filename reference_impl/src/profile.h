// Product profiles: which calls a product supports, from which side, on which
// engine and over which protocols (hcomm-api.md §2 and §8). The rows come from
// the project's one product table (spec/products.yaml); the rules per family of
// calls are here. Chosen once per process by HCOMM_REF_PRODUCT.
#pragma once

#include <cstdint>
#include <string_view>

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

namespace hcomm_ref {

// Families of calls that share one support rule.
enum class Api {
    write_with_notify,       // HcommWrite(Reduce)WithNotifyOnThread
    nbi,                     // HcommWriteNbi*, HcommReadNbi*, HcommWriteWithNotifyNbi*
    on_thread,               // every other *OnThread call: the side must match the thread's engine
    host_channel,            // HcommChannelNotifyRecord/Wait, HcommChannelFence (no thread)
    channel_fence_on_thread, // HcommChannelFenceOnThread
    fence_on_thread,         // HcommFenceOnThread
    drain,                   // HcommChannelDrainOnThread
    aclrt_notify,            // HcommAclrtNotifyRecord/WaitOnThread
};

struct Profile {
    std::string_view name;
    bool ascend950;        // the A5 generation (950PR/DT): WWN, fences
    uint32_t engines;      // bit per CommEngine the product offers
    uint32_t protocols[6]; // per CommEngine: bit per CommProtocol allowed for channels
};

const Profile &profile();

bool engine_is_valid(int32_t engine);
bool protocol_is_valid(int32_t protocol);
bool engine_on_device(CommEngine engine);
// AICPU and AICPU_TS are one engine to the vendor (HcclThreadAcquire maps
// AICPU_TS to AICPU, hcomm-api.md §9.5; its 950 sample uses AICPU channels with
// AICPU_TS threads, §9.6): both give AICPU_TS here, every other engine itself.
CommEngine engine_family(CommEngine engine);
bool profile_has_engine(CommEngine engine);
bool profile_allows_protocol(CommEngine engine, CommProtocol protocol);

// HCCL_SUCCESS or HCCL_E_NOT_SUPPORT for `api` called from the current side with
// a thread (or, for host_channel/nbi without a thread, a channel) of `engine`.
HcclResult check_support(Api api, CommEngine engine);

} // namespace hcomm_ref
