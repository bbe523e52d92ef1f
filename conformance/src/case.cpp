#include "case.h"

#include <algorithm>
#include <stdexcept>

#include "device.h"
#include "hcts/core/products.h"
#include "suite.h"

namespace hcts {

namespace {

std::vector<CaseSpec> &registry()
{
    static std::vector<CaseSpec> cases;
    return cases;
}

// Why the IUT, its product or the world cannot give `f`; empty when it can.
std::string unmet(Feature f, const Suite &s)
{
    const HcommApi &api = s.iut->api();
    const auto lacks = [](const char *symbol) { return std::string("the IUT lacks ") + symbol; };
    switch (f) {
    case Feature::WriteWithNotify: {
        if (api.HcommWriteWithNotifyOnThread == nullptr)
            return lacks("HcommWriteWithNotifyOnThread");
        const std::string product = s.adapter->product();
        const products::Product *row = products::Table::builtin().find(product);
        if (row == nullptr || !row->write_with_notify)
            return "product '" + product + "' has no HcommWriteWithNotifyOnThread (spec/products.yaml)";
        return {};
    }
    case Feature::NotifyWait: return api.HcommChannelNotifyWaitOnThread ? "" : lacks("HcommChannelNotifyWaitOnThread");
    case Feature::NotifyRecord:
        return api.HcommChannelNotifyRecordOnThread ? "" : lacks("HcommChannelNotifyRecordOnThread");
    case Feature::Write: return api.HcommWriteOnThread ? "" : lacks("HcommWriteOnThread");
    case Feature::Read: return api.HcommReadOnThread ? "" : lacks("HcommReadOnThread");
    case Feature::LocalCopy:
        return api.HcommLocalCopyOnThread ? "" : lacks("HcommLocalCopyOnThread") + " (device-stream snapshots)";
    case Feature::ChannelFence: return api.HcommChannelFenceOnThread ? "" : lacks("HcommChannelFenceOnThread");
    case Feature::ChannelDestroy: return api.HcclChannelDestroy ? "" : lacks("HcclChannelDestroy");
    case Feature::DefaultTimeoutWait:
        return api.HcommChannelNotifyWaitOnThreadWithDefaultTimeout
                   ? ""
                   : lacks("HcommChannelNotifyWaitOnThreadWithDefaultTimeout");
    case Feature::SetWaitTimeout: return api.HcommSetNotifyWaitTimeOut ? "" : lacks("HcommSetNotifyWaitTimeOut");
    case Feature::ProductRow: return {};
    case Feature::ThreadNotify:
        return !api.HcommThreadNotifyRecordOnThread ? lacks("HcommThreadNotifyRecordOnThread")
               : !api.HcommThreadNotifyWaitOnThread ? lacks("HcommThreadNotifyWaitOnThread")
                                                    : "";
    case Feature::ThreadDefaultWait:
        return api.HcommThreadNotifyWaitOnThreadWithDefaultTimeout
                   ? ""
                   : lacks("HcommThreadNotifyWaitOnThreadWithDefaultTimeout");
    case Feature::AclrtNotify:
        return !api.HcommAclrtNotifyRecordOnThread ? lacks("HcommAclrtNotifyRecordOnThread")
               : !api.HcommAclrtNotifyWaitOnThread ? lacks("HcommAclrtNotifyWaitOnThread")
                                                   : "";
    case Feature::HostOnlyCalls:
        return !api.HcommChannelNotifyRecord ? lacks("HcommChannelNotifyRecord")
               : !api.HcommChannelNotifyWait ? lacks("HcommChannelNotifyWait")
               : !api.HcommChannelFence      ? lacks("HcommChannelFence")
               : !api.HcommFenceOnThread     ? lacks("HcommFenceOnThread")
                                             : "";
    case Feature::Drain: return api.HcommChannelDrainOnThread ? "" : lacks("HcommChannelDrainOnThread");
    case Feature::BatchTransfer: return api.HcommBatchTransferOnThread ? "" : lacks("HcommBatchTransferOnThread");
    case Feature::BatchMode:
        return !api.HcommBatchModeStart ? lacks("HcommBatchModeStart")
               : !api.HcommBatchModeEnd ? lacks("HcommBatchModeEnd")
                                        : "";
    case Feature::CommAccess:
        return !api.HcommAcquireComm   ? lacks("HcommAcquireComm")
               : !api.HcommReleaseComm ? lacks("HcommReleaseComm")
                                       : "";
    case Feature::TaskCache:
        return !api.HcommAicpuTsTaskCacheLookup    ? lacks("HcommAicpuTsTaskCacheLookup")
               : !api.HcommAicpuTsTaskCacheStart   ? lacks("HcommAicpuTsTaskCacheStart")
               : !api.HcommAicpuTsTaskCacheEnd     ? lacks("HcommAicpuTsTaskCacheEnd")
               : !api.HcommAicpuTsTaskCacheExecute ? lacks("HcommAicpuTsTaskCacheExecute")
               : !api.HcommAicpuTsTaskCacheClear   ? lacks("HcommAicpuTsTaskCacheClear")
                                                   : "";
    case Feature::ThreadJoin: return api.HcommThreadJoin ? "" : lacks("HcommThreadJoin");
    case Feature::LocalReduce: return api.HcommLocalReduceOnThread ? "" : lacks("HcommLocalReduceOnThread");
    case Feature::WriteReduce: return api.HcommWriteReduceOnThread ? "" : lacks("HcommWriteReduceOnThread");
    case Feature::ReadReduce: return api.HcommReadReduceOnThread ? "" : lacks("HcommReadReduceOnThread");
    case Feature::WriteReduceWithNotify: {
        if (api.HcommWriteReduceWithNotifyOnThread == nullptr)
            return lacks("HcommWriteReduceWithNotifyOnThread");
        const std::string product = s.adapter->product();
        const products::Product *row = products::Table::builtin().find(product);
        if (row == nullptr || !row->write_with_notify)
            return "product '" + product + "' has no HcommWriteReduceWithNotifyOnThread (api §8, spec/products.yaml)";
        return {};
    }
    case Feature::Nbi:
        for (const auto &[fn, name] :
             {std::pair{api.HcommWriteNbiOnThread != nullptr, "HcommWriteNbiOnThread"},
              {api.HcommWriteNbi != nullptr, "HcommWriteNbi"},
              {api.HcommWriteWithNotifyNbiOnThread != nullptr, "HcommWriteWithNotifyNbiOnThread"},
              {api.HcommWriteWithNotifyNbi != nullptr, "HcommWriteWithNotifyNbi"},
              {api.HcommReadNbiOnThread != nullptr, "HcommReadNbiOnThread"},
              {api.HcommReadNbi != nullptr, "HcommReadNbi"}})
            if (!fn)
                return lacks(name);
        return {};
    case Feature::DeviceThreads:
        return s.world->setup_engine == COMM_ENGINE_AICPU_TS
                   ? ""
                   : "the product row has no AICPU_TS engine: the world's threads are host-side (" +
                         std::string(products::engine_name(s.world->setup_engine)) + ")";
    case Feature::ThreeRanks:
        return s.world->size >= 3
                   ? ""
                   : "needs 3 ranks, the world has " + std::to_string(s.world->size) + " (run with mpirun -np 3)";
    }
    return "unknown feature";
}

} // namespace

std::string_view feature_name(Feature f)
{
    switch (f) {
    case Feature::WriteWithNotify: return "WriteWithNotify";
    case Feature::NotifyWait: return "NotifyWait";
    case Feature::NotifyRecord: return "NotifyRecord";
    case Feature::Write: return "Write";
    case Feature::Read: return "Read";
    case Feature::LocalCopy: return "LocalCopy";
    case Feature::ChannelFence: return "ChannelFence";
    case Feature::ChannelDestroy: return "ChannelDestroy";
    case Feature::DefaultTimeoutWait: return "DefaultTimeoutWait";
    case Feature::SetWaitTimeout: return "SetWaitTimeout";
    case Feature::ThreeRanks: return "ThreeRanks";
    case Feature::ProductRow: return "ProductRow";
    case Feature::ThreadNotify: return "ThreadNotify";
    case Feature::ThreadDefaultWait: return "ThreadDefaultWait";
    case Feature::AclrtNotify: return "AclrtNotify";
    case Feature::HostOnlyCalls: return "HostOnlyCalls";
    case Feature::Drain: return "Drain";
    case Feature::BatchTransfer: return "BatchTransfer";
    case Feature::BatchMode: return "BatchMode";
    case Feature::CommAccess: return "CommAccess";
    case Feature::TaskCache: return "TaskCache";
    case Feature::ThreadJoin: return "ThreadJoin";
    case Feature::LocalReduce: return "LocalReduce";
    case Feature::WriteReduce: return "WriteReduce";
    case Feature::ReadReduce: return "ReadReduce";
    case Feature::WriteReduceWithNotify: return "WriteReduceWithNotify";
    case Feature::Nbi: return "Nbi";
    case Feature::DeviceThreads: return "DeviceThreads";
    }
    return "?";
}

bool CaseSpec::has(Feature f) const { return std::find(features.begin(), features.end(), f) != features.end(); }

const std::vector<CaseSpec> &case_registry() { return registry(); }

const CaseSpec *find_case(std::string_view name)
{
    for (const auto &c : registry())
        if (c.name == name)
            return &c;
    return nullptr;
}

CaseRegistration::CaseRegistration(const char *name, Clauses c, Needs n)
{
    registry().push_back(CaseSpec{name, std::move(c.ids), std::move(n.features)});
}

void CaseFixture::SetUp()
{
    Suite &s = the_suite();
    if (s.spec == nullptr || !s.evidence)
        throw std::logic_error("hcts: a case started outside the suite's listener");
    // checkSupport: every rank decides the same from the same IUT and product.
    std::string why;
    for (Feature f : s.spec->features)
        if (const std::string u = unmet(f, s); !u.empty()) {
            why = u;
            break;
        }
    if (!why.empty()) {
        s.evidence->case_not_supported(why);
        GTEST_SKIP() << why;
    }
    const std::string did = s.world->isolate();
    if (!did.empty())
        s.evidence->observe("isolation", did);
}

World &CaseFixture::world() const { return *the_suite().world; }
const Device &CaseFixture::device() const { return the_suite().world->device(); }
const Library &CaseFixture::iut() const { return *the_suite().iut; }
const Adapter &CaseFixture::adapter() const { return *the_suite().adapter; }
const Options &CaseFixture::options() const { return the_suite().options; }
const Catalogue &CaseFixture::catalogue() const { return the_suite().catalogue; }
uint64_t CaseFixture::segment_size() const { return the_suite().segment_size; }
Evidence &CaseFixture::ev() const { return *the_suite().evidence; }
const CaseSpec &CaseFixture::spec() const { return *the_suite().spec; }
Ctx CaseFixture::ctx() const
{
    const Suite &s = the_suite();
    return Ctx{*s.world, *s.spec, *the_suite().evidence, s.options.seed, s.options.repeat};
}

LaunchResult Ctx::run(Script &s, uint32_t timeout_ms) const { return w.device().run(s, timeout_ms, &spec); }
const Device &Ctx::device() const { return w.device(); }
int Ctx::rank() const { return w.rank; }

} // namespace hcts
