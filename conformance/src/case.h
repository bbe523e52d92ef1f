// Cases: GoogleTest tests that name the clauses they check and the IUT features
// they need (as test262's `features:` and the Vulkan CTS's checkSupport). The
// features are checked before the body runs: a case whose needs the IUT cannot
// meet is NOT_SUPPORTED with the reason, never PASS.
//
//   HCTS_SUITE(Visibility);
//   HCTS_CASE(Visibility, LengthSweep, clauses("WWN.VIS.1", "WWN.NTF.5"),
//             needs(Feature::WriteWithNotify, Feature::LocalCopy))
//   { ... ev().check("WWN.VIS.1", ok, why) ... }
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "evidence.h"

namespace hcts {

class World;
class Device;
class Script;
struct LaunchResult;
class Library;
class Adapter;
struct Options;
class Catalogue;

// What a case may need from the IUT, its product and the run. Every device op a
// case issues must be covered by a declared feature (Device::run enforces it).
enum class Feature {
    WriteWithNotify,    // HcommWriteWithNotifyOnThread, on a product whose table row has it
    NotifyWait,         // HcommChannelNotifyWaitOnThread
    NotifyRecord,       // HcommChannelNotifyRecordOnThread
    Write,              // HcommWriteOnThread
    Read,               // HcommReadOnThread
    LocalCopy,          // HcommLocalCopyOnThread (device-stream snapshots and delays)
    ChannelFence,       // HcommChannelFenceOnThread
    ChannelDestroy,     // HcclChannelDestroy (channels with other parameters)
    DefaultTimeoutWait, // HcommChannelNotifyWaitOnThreadWithDefaultTimeout
    SetWaitTimeout,     // HcommSetNotifyWaitTimeOut (the default of the waits above)
    ThreeRanks,         // a world of at least 3 ranks
    ThreadNotify,       // HcommThreadNotifyRecordOnThread + HcommThreadNotifyWaitOnThread
    ThreadDefaultWait,  // HcommThreadNotifyWaitOnThreadWithDefaultTimeout
    AclrtNotify,        // HcommAclrtNotifyRecordOnThread + HcommAclrtNotifyWaitOnThread
    HostOnlyCalls,      // HcommChannelNotifyRecord/Wait, HcommChannelFence, HcommFenceOnThread
    Drain,              // HcommChannelDrainOnThread
    BatchTransfer,      // HcommBatchTransferOnThread
    BatchMode,          // HcommBatchModeStart + HcommBatchModeEnd
    CommAccess,         // HcommAcquireComm + HcommReleaseComm
    TaskCache,          // the five HcommAicpuTsTaskCache* calls
    ThreadJoin,         // HcommThreadJoin (called on the host)
    LocalReduce,        // HcommLocalReduceOnThread
    WriteReduce,        // HcommWriteReduceOnThread
    ReadReduce,         // HcommReadReduceOnThread
    // HcommWriteReduceWithNotifyOnThread, on a product whose table row has write with notify (api §8)
    WriteReduceWithNotify,
    Nbi, // the six HcommWrite/WriteWithNotify/ReadNbi(OnThread) calls, only to see them refused on the device
    // The world's threads are AICPU_TS (device side): a product row without that
    // engine sets up on host-side CPU_TS threads, where device-side data calls are refused.
    DeviceThreads,
    // Judges the product table itself: may issue HcommWriteWithNotifyOnThread on
    // any product (that is what it checks), so it is never NOT_SUPPORTED for it.
    ProductRow,
};
std::string_view feature_name(Feature f);

struct CaseSpec {
    std::string name; // "Suite.Name", as GoogleTest names it
    std::vector<std::string> clauses;
    std::vector<Feature> features;
    bool has(Feature f) const;
};

const std::vector<CaseSpec> &case_registry();
const CaseSpec *find_case(std::string_view name);

// Argument lists of HCTS_CASE, so a declaration reads as what it says.
struct Clauses {
    std::vector<std::string> ids;
};
template <typename... Ids>
Clauses clauses(Ids... ids)
{
    return {{std::string(ids)...}};
}
struct Needs {
    std::vector<Feature> features;
};
template <typename... F>
Needs needs(F... f)
{
    return {{f...}};
}

// What a case's helpers work with: the world, the case's declarations (every
// launch is checked against them) and where its evidence goes.
struct Ctx {
    const World &w;
    const CaseSpec &spec;
    Evidence &ev;
    uint64_t seed;   // the run's seed
    uint32_t repeat; // litmus repetitions (--repeat)
    LaunchResult run(Script &s, uint32_t timeout_ms = 0) const;
    const Device &device() const;
    int rank() const;
};

struct CaseRegistration {
    CaseRegistration(const char *name, Clauses c, Needs n);
};

// What a case body works with. The fixture reads the run's objects once; the
// helpers it calls take what they need as arguments.
class CaseFixture : public testing::Test {
  protected:
    void SetUp() override;

    World &world() const;
    const Device &device() const;
    const Library &iut() const;
    const Adapter &adapter() const;
    const Options &options() const;
    const Catalogue &catalogue() const;
    // The IUT's segment size that transfers should straddle (--segment-size); 0 = none.
    uint64_t segment_size() const;
    Evidence &ev() const;
    const CaseSpec &spec() const;
    Ctx ctx() const;
};

} // namespace hcts

#define HCTS_SUITE(suite)                                                                                              \
    class suite : public ::hcts::CaseFixture {}

#define HCTS_CASE(suite, name, clause_list, feature_list)                                                              \
    static const ::hcts::CaseRegistration hcts_reg_##suite##_##name{#suite "." #name, clause_list, feature_list};      \
    TEST_F(suite, name)
