// Test support for the verbs data path: a job whose ranks all hold a thread and
// a channel to every other rank (full mesh), acquired collectively.
#pragma once

#include <string>

#include "job.h"

namespace hcts_test {

struct Mesh {
    std::vector<ThreadHandle> thread;                // per rank, AICPU_TS
    std::vector<std::vector<ChannelHandle>> channel; // [rank][peer], 0 on the diagonal
};

inline CommProtocol default_protocol()
{
    const std::string product = HcommRefProductName();
    return product == "atlas350" || product == "ascend950" ? COMM_PROTOCOL_UB_CTP : COMM_PROTOCOL_ROCE;
}

// Every rank acquires, in one call, a channel to every other rank (concurrently:
// acquisition is collective per pair).
inline HcclResult build_mesh(const Job &job, Mesh &mesh, uint32_t notify_num = 4,
                             CommEngine engine = COMM_ENGINE_AICPU_TS, CommProtocol protocol = default_protocol())
{
    const size_t n = job.size();
    mesh.thread.assign(n, 0);
    mesh.channel.assign(n, std::vector<ChannelHandle>(n, 0));
    std::vector<std::future<HcclResult>> results;
    for (size_t r = 0; r < n; ++r) {
        results.push_back(std::async(std::launch::async, [&, r]() -> HcclResult {
            HcclResult rc = HcclThreadAcquire(job[r], engine, 1, 4, &mesh.thread[r]);
            if (rc != HCCL_SUCCESS)
                return rc;
            std::vector<HcclChannelDesc> descs(n - 1);
            HcclChannelDescInit(descs.data(), static_cast<uint32_t>(n - 1));
            std::vector<uint32_t> peers;
            for (size_t p = 0; p < n; ++p) {
                if (p == r)
                    continue;
                HcclChannelDesc &d = descs[peers.size()];
                d.remoteRank = static_cast<uint32_t>(p);
                d.channelProtocol = protocol;
                d.notifyNum = notify_num;
                peers.push_back(static_cast<uint32_t>(p));
            }
            std::vector<ChannelHandle> handles(n - 1, 0);
            rc = HcclChannelAcquire(job[r], engine, descs.data(), static_cast<uint32_t>(n - 1), handles.data());
            if (rc != HCCL_SUCCESS)
                return rc;
            for (size_t i = 0; i < peers.size(); ++i)
                mesh.channel[r][peers[i]] = handles[i];
            return HCCL_SUCCESS;
        }));
    }
    HcclResult outcome = HCCL_SUCCESS;
    for (auto &f : results) {
        const HcclResult rc = f.get();
        if (rc != HCCL_SUCCESS)
            outcome = rc;
    }
    return outcome;
}

} // namespace hcts_test
