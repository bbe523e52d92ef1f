// User memory registered with the comm (HcclCommMemReg): registration and
// its refusals, handles in HcclChannelDesc.memHandles exchanged when the channel
// connects, HcclChannelGetRemoteMems listing them, and transfers with registered
// memory as the local and the remote side. MemRegKnob.* follows
// HCOMM_REF_LOCAL_UNREGISTERED (refuse by default; the reference_verbs_local_warn
// variant sets warn).
#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "verbs_job.h"

using namespace hcts_test;

namespace {

// Page-aligned memory of this process, standing in for aclrtMalloc memory.
struct Pages {
    explicit Pages(size_t n, int prot = PROT_READ | PROT_WRITE) : size(n)
    {
        void *p = mmap(nullptr, n, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        base = p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
    }
    ~Pages()
    {
        if (base != nullptr)
            munmap(base, size);
    }
    Pages(const Pages &) = delete;
    Pages &operator=(const Pages &) = delete;
    uint8_t *base = nullptr;
    size_t size;
};

HcclResult reg(HcclComm comm, const char *tag, void *addr, uint64_t size, HcclMemHandle *handle,
               CommMemType type = COMM_MEM_TYPE_DEVICE)
{
    const CommMem mem{type, addr, size};
    return HcclCommMemReg(comm, tag, &mem, handle);
}

// Both ranks of a pair acquire one channel to each other (AICPU_TS, 4 notifies),
// naming `mems[r]` as rank r's memories.
HcclResult pair_with_mems(const Job &job, Mesh &mesh, const std::vector<HcclMemHandle> mems[2])
{
    mesh.thread.assign(2, 0);
    mesh.channel.assign(2, std::vector<ChannelHandle>(2, 0));
    std::future<HcclResult> results[2];
    for (int r = 0; r < 2; ++r) {
        results[r] = std::async(std::launch::async, [&, r]() -> HcclResult {
            HcclResult rc = HcclThreadAcquire(job[r], COMM_ENGINE_AICPU_TS, 1, 4, &mesh.thread[r]);
            if (rc != HCCL_SUCCESS)
                return rc;
            HcclChannelDesc d;
            HcclChannelDescInit(&d, 1);
            d.remoteRank = static_cast<uint32_t>(1 - r);
            d.channelProtocol = default_protocol();
            d.notifyNum = 4;
            d.memHandles = const_cast<HcclMemHandle *>(mems[r].data());
            d.memHandleNum = static_cast<uint32_t>(mems[r].size());
            return HcclChannelAcquire(job[r], COMM_ENGINE_AICPU_TS, &d, 1, &mesh.channel[r][1 - r]);
        });
    }
    const HcclResult a = results[0].get();
    const HcclResult b = results[1].get();
    return a != HCCL_SUCCESS ? a : b;
}

HcclChannelDesc desc_to(uint32_t peer, HcclMemHandle *mems, uint32_t n)
{
    HcclChannelDesc d;
    HcclChannelDescInit(&d, 1);
    d.remoteRank = peer;
    d.channelProtocol = default_protocol();
    d.notifyNum = 4;
    d.memHandles = mems;
    d.memHandleNum = n;
    return d;
}

} // namespace

TEST(MemReg, SameTagSameMemoryIsTheSameHandleOtherMemoryIsRefused)
{
    Job job(2);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Pages a(1 << 16);
    Pages b(1 << 16);
    ASSERT_NE(a.base, nullptr);
    ASSERT_NE(b.base, nullptr);
    HcclMemHandle h1 = nullptr;
    ASSERT_EQ(reg(job[0], "input", a.base, a.size, &h1), HCCL_SUCCESS) << "registration before any channel";
    EXPECT_NE(h1, nullptr);
    HcclMemHandle again = nullptr;
    EXPECT_EQ(reg(job[0], "input", a.base, a.size, &again), HCCL_SUCCESS);
    EXPECT_EQ(again, h1) << "the same tag and memory answer the first handle";
    HcclMemHandle other = reinterpret_cast<HcclMemHandle>(0x77);
    EXPECT_EQ(reg(job[0], "input", b.base, b.size, &other), HCCL_E_PARA) << "a tag names one memory";
    EXPECT_EQ(reg(job[0], "input", a.base, a.size - 4096, &other), HCCL_E_PARA);
    EXPECT_EQ(reg(job[0], "input", a.base, a.size, &other, COMM_MEM_TYPE_HOST), HCCL_E_PARA);
    EXPECT_EQ(other, reinterpret_cast<HcclMemHandle>(0x77)) << "a refusal writes no handle";
    HcclMemHandle h2 = nullptr;
    ASSERT_EQ(reg(job[0], "output", b.base, b.size, &h2, COMM_MEM_TYPE_HOST), HCCL_SUCCESS);
    EXPECT_NE(h2, h1);
    HcclMemHandle alias = nullptr;
    ASSERT_EQ(reg(job[0], "input-alias", a.base, a.size, &alias), HCCL_SUCCESS) << "another tag, same memory";
    EXPECT_NE(alias, h1);
    // Each comm keeps its own registrations: the same tag on rank 1 is a new handle.
    HcclMemHandle h1_rank1 = nullptr;
    ASSERT_EQ(reg(job[1], "input", b.base, b.size, &h1_rank1), HCCL_SUCCESS);
    EXPECT_NE(h1_rank1, h1);
}

TEST(MemReg, BadInputIsRefusedAndChangesNothing)
{
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    HcclComm comm = job[0];
    Pages mem(1 << 16);
    Pages none(1 << 16, PROT_NONE);
    Pages read_only(1 << 16, PROT_READ);
    ASSERT_NE(mem.base, nullptr);
    const Buffer hccl = buffer_of(comm);
    const std::string tag255(255, 't');
    const std::string tag256(256, 't');
    const auto sentinel = reinterpret_cast<HcclMemHandle>(0x5eed);
    HcclMemHandle h = sentinel;
    const CommMem good{COMM_MEM_TYPE_DEVICE, mem.base, mem.size};
    EXPECT_EQ(HcclCommMemReg(nullptr, "t", &good, &h), HCCL_E_PTR);
    EXPECT_EQ(HcclCommMemReg(comm, nullptr, &good, &h), HCCL_E_PTR);
    EXPECT_EQ(HcclCommMemReg(comm, "t", nullptr, &h), HCCL_E_PTR);
    EXPECT_EQ(HcclCommMemReg(comm, "t", &good, nullptr), HCCL_E_PTR);
    EXPECT_EQ(reg(comm, "t", nullptr, 4096, &h), HCCL_E_PTR) << "mem->addr NULL";
    EXPECT_EQ(reg(comm, "t", mem.base, 0, &h), HCCL_E_PARA) << "size 0";
    EXPECT_EQ(reg(comm, "t", mem.base, mem.size, &h, static_cast<CommMemType>(2)), HCCL_E_PARA) << "type 2";
    EXPECT_EQ(reg(comm, "t", mem.base, mem.size, &h, COMM_MEM_TYPE_INVALID), HCCL_E_PARA) << "type INVALID";
    EXPECT_EQ(reg(comm, "", mem.base, mem.size, &h), HCCL_E_PARA) << "empty tag";
    EXPECT_EQ(reg(comm, tag256.c_str(), mem.base, mem.size, &h), HCCL_E_PARA) << "a 256-character tag";
    EXPECT_EQ(reg(comm, "t", reinterpret_cast<void *>(UINT64_MAX - 4095), 8192, &h), HCCL_E_PARA) << "wraps";
    EXPECT_EQ(reg(comm, "t", none.base, none.size, &h), HCCL_E_PARA) << "inaccessible memory";
    EXPECT_EQ(reg(comm, "t", read_only.base, read_only.size, &h), HCCL_E_PARA) << "read-only memory";
    EXPECT_EQ(reg(comm, "t", mem.base, mem.size + 4096 * 1024, &h), HCCL_E_PARA) << "runs past the mapping";
    EXPECT_EQ(reg(comm, "t", hccl.base + 4096, 4096, &h), HCCL_E_PARA) << "inside the communication memory";
    EXPECT_EQ(reg(comm, "t", hccl.base + hccl.size - 4096, 8192, &h), HCCL_E_PARA) << "straddles its end";
    EXPECT_EQ(h, sentinel) << "a refusal writes no handle";
    // Nothing was kept: the tag is free and a 255-character tag is fine.
    ASSERT_EQ(reg(comm, "t", mem.base, mem.size, &h), HCCL_SUCCESS);
    EXPECT_NE(h, sentinel);
    HcclMemHandle h255 = nullptr;
    EXPECT_EQ(reg(comm, tag255.c_str(), mem.base, 4096, &h255), HCCL_SUCCESS);
}

TEST(MemReg, AcquireRefusesHandlesThatAreNotLiveRegistrations)
{
    Job job(2);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Pages mem(1 << 16);
    HcclMemHandle mine = nullptr;
    HcclMemHandle theirs = nullptr;
    ASSERT_EQ(reg(job[0], "m", mem.base, mem.size, &mine), HCCL_SUCCESS);
    ASSERT_EQ(reg(job[1], "m", mem.base, mem.size, &theirs), HCCL_SUCCESS);
    int on_stack = 0;
    const struct {
        const char *what;
        std::vector<HcclMemHandle> handles;
    } bad[] = {
        {"a small integer", {reinterpret_cast<HcclMemHandle>(0x1234)}},
        {"a pointer into the stack", {&on_stack}},
        {"a handle of another comm", {theirs}},
        {"a good handle then garbage", {mine, reinterpret_cast<HcclMemHandle>(~uintptr_t{0})}},
        {"a repeated handle", {mine, mine}},
    };
    ChannelHandle ch = 0;
    for (const auto &b : bad) {
        std::vector<HcclMemHandle> copy = b.handles;
        const HcclChannelDesc d = desc_to(1, copy.data(), static_cast<uint32_t>(copy.size()));
        EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA) << b.what;
    }
    HcclChannelDesc d = desc_to(1, nullptr, 1);
    EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PTR) << "memHandles NULL";
    std::vector<HcclMemHandle> many(257, mine);
    d = desc_to(1, many.data(), 257);
    EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA) << "257 handles";
    Pages none(4096, PROT_NONE);
    d = desc_to(1, reinterpret_cast<HcclMemHandle *>(none.base), 4);
    EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA) << "unreadable array";
    EXPECT_EQ(ch, 0U) << "no channel was made";
}

namespace {

// Two ranks, each with two registered memories ("in" and "out"), acquired into the channel.
class MemRegPair : public ::testing::Test {
  protected:
    void SetUp() override
    {
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        for (int r = 0; r < 2; ++r) {
            ASSERT_NE(in[r].base, nullptr);
            ASSERT_NE(out[r].base, nullptr);
            hccl[r] = buffer_of(job[r]);
            ASSERT_EQ(reg(job[r], "in", in[r].base, in[r].size, &h_in[r]), HCCL_SUCCESS);
            ASSERT_EQ(reg(job[r], "out", out[r].base, out[r].size, &h_out[r], COMM_MEM_TYPE_HOST), HCCL_SUCCESS);
            mems[r] = {h_in[r], h_out[r]};
        }
        ASSERT_EQ(pair_with_mems(job, mesh, mems), HCCL_SUCCESS);
    }
    Job job{2};
    Mesh mesh;
    Pages in[2] = {Pages(1 << 20), Pages(1 << 20)};
    Pages out[2] = {Pages(1 << 20), Pages(1 << 20)};
    HcclMemHandle h_in[2] = {};
    HcclMemHandle h_out[2] = {};
    std::vector<HcclMemHandle> mems[2];
    Buffer hccl[2];
};

} // namespace

TEST_F(MemRegPair, RemoteMemsListTheCommunicationMemoryThenThePeersMemories)
{
    for (int r = 0; r < 2; ++r) {
        const int p = 1 - r;
        uint32_t num = 0;
        CommMem *mems_out = nullptr;
        char **tags = nullptr;
        ASSERT_EQ(HcclChannelGetRemoteMems(job[r], mesh.channel[r][p], &num, &mems_out, &tags), HCCL_SUCCESS);
        ASSERT_EQ(num, 3U) << "rank " << r;
        EXPECT_STREQ(tags[0], "HcclBuffer");
        EXPECT_EQ(mems_out[0].addr, hccl[p].base);
        EXPECT_EQ(mems_out[0].size, hccl[p].size);
        EXPECT_STREQ(tags[1], "in");
        EXPECT_EQ(mems_out[1].addr, in[p].base);
        EXPECT_EQ(mems_out[1].size, in[p].size);
        EXPECT_EQ(mems_out[1].type, COMM_MEM_TYPE_DEVICE);
        EXPECT_STREQ(tags[2], "out");
        EXPECT_EQ(mems_out[2].addr, out[p].base);
        EXPECT_EQ(mems_out[2].type, COMM_MEM_TYPE_HOST);
    }
    // The channel is reused by a descriptor naming the same memories or none; other memories are refused.
    ChannelHandle again = 0;
    HcclChannelDesc d = desc_to(1, mems[0].data(), 2);
    ASSERT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &again), HCCL_SUCCESS);
    EXPECT_EQ(again, mesh.channel[0][1]);
    d = desc_to(1, nullptr, 0);
    ASSERT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &again), HCCL_SUCCESS);
    EXPECT_EQ(again, mesh.channel[0][1]);
    d = desc_to(1, mems[0].data(), 1);
    EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &again), HCCL_E_PARA)
        << "a reused channel cannot exchange other memories";
}

TEST_F(MemRegPair, WritesAndReadsBetweenRegisteredMemories)
{
    const uint64_t len = 200000 + 3;
    fill_stamped(in[0].base + 5, len, 35, 1, 0);
    fill_stamped(in[0].base + 300000, 4096, 35, 2, 0);
    fill_stamped(out[1].base + 7, len, 35, 3, 1);
    fill_stamped(hccl[0].base + 64, 1000, 35, 4, 0);
    std::memset(in[1].base, 0xEE, in[1].size);
    std::vector<Program> programs(2);
    const ThreadHandle t0 = mesh.thread[0];
    const ThreadHandle t1 = mesh.thread[1];
    const ChannelHandle c01 = mesh.channel[0][1];
    const ChannelHandle c10 = mesh.channel[1][0];
    programs[0] = [&] {
        // Registered user memory to the peer's registered memory, with a notify.
        int32_t rc = HcommWriteWithNotifyOnThread(t0, c01, in[1].base + 11, in[0].base + 5, len, 0);
        // Registered memory to the peer's communication memory, then a notify record.
        rc |= HcommWriteOnThread(t0, c01, hccl[1].base + 4096, in[0].base + 300000, 4096);
        // Communication memory to the peer's registered memory.
        rc |= HcommWriteOnThread(t0, c01, out[1].base + (1 << 19), hccl[0].base + 64, 1000);
        rc |= HcommChannelNotifyRecordOnThread(t0, c01, 1);
        // The peer's registered memory read into this rank's registered memory.
        rc |= HcommReadOnThread(t0, c01, out[0].base + 3, out[1].base + 7, len);
        return static_cast<uint32_t>(rc);
    };
    programs[1] = [&] {
        int32_t rc = HcommChannelNotifyWaitOnThread(t1, c10, 0, 20);
        rc |= HcommChannelNotifyWaitOnThread(t1, c10, 1, 20);
        return static_cast<uint32_t>(rc);
    };
    const auto r = launch_all(job, programs);
    ASSERT_EQ(r[0].programReturn, 0U);
    ASSERT_EQ(r[0].taskError, 0);
    ASSERT_EQ(r[1].programReturn, 0U);
    ASSERT_EQ(r[1].taskError, 0);
    EXPECT_EQ(first_bad_stamp(in[1].base + 11, len, 35, 1, 0), len);
    EXPECT_EQ(in[1].base[10], 0xEE) << "the byte before the destination";
    EXPECT_EQ(in[1].base[11 + len], 0xEE) << "the byte after it";
    EXPECT_EQ(first_bad_stamp(hccl[1].base + 4096, 4096, 35, 2, 0), 4096U);
    EXPECT_EQ(first_bad_stamp(out[1].base + (1 << 19), 1000, 35, 4, 0), 1000U);
    EXPECT_EQ(first_bad_stamp(out[0].base + 3, len, 35, 3, 1), len);
}

TEST_F(MemRegPair, RangesOutsideOneRegisteredMemoryAreRefused)
{
    const ThreadHandle t0 = mesh.thread[0];
    const ChannelHandle c01 = mesh.channel[0][1];
    Pages unregistered(1 << 16);
    std::memset(in[1].base, 0xEE, 4096);
    std::vector<int32_t> codes;
    const auto r = launch(job[0], [&] {
        // Local ranges: past the end of a registered memory, and unregistered memory
        // (the latter only under the default HCOMM_REF_LOCAL_UNREGISTERED=refuse).
        codes.push_back(HcommWriteOnThread(t0, c01, in[1].base, in[0].base + in[0].size - 8, 16));
        codes.push_back(HcommWriteWithNotifyOnThread(t0, c01, in[1].base, in[0].base + in[0].size - 8, 16, 0));
        codes.push_back(HcommReadOnThread(t0, c01, out[0].base + out[0].size - 8, in[1].base, 16));
        // Remote ranges: one byte past the peer's memory, the peer's memory this rank
        // registered (not the peer), and memory of the peer it never sent.
        codes.push_back(HcommWriteOnThread(t0, c01, in[1].base + in[1].size - 8, in[0].base, 9));
        codes.push_back(HcommWriteWithNotifyOnThread(t0, c01, in[0].base, in[0].base + 64, 16, 0));
        codes.push_back(HcommReadOnThread(t0, c01, in[0].base, out[1].base + out[1].size - 4, 8));
        return 0U;
    });
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(codes, std::vector<int32_t>(6, HCCL_E_PARA));
    for (int i = 0; i < 4096; ++i)
        ASSERT_EQ(in[1].base[i], 0xEE) << "byte " << i << " changed";
}

// HCOMM_REF_LOCAL_UNREGISTERED: refused by default; under warn, accepted when this
// process may access the range, refused when it may not.
TEST(MemRegKnob, UnregisteredLocalMemoryFollowsTheKnob)
{
    const char *knob = std::getenv("HCOMM_REF_LOCAL_UNREGISTERED");
    const bool warn = knob != nullptr && std::string(knob) == "warn";
    Job job(2);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Mesh mesh;
    ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS);
    const Buffer peer = buffer_of(job[1]);
    Pages src(1 << 16);
    Pages dst(1 << 16);
    Pages none(1 << 16, PROT_NONE);
    Pages read_only(1 << 16, PROT_READ);
    std::unique_ptr<uint8_t[]> heap(new uint8_t[5000]);
    fill_stamped(src.base + 1, 30000, 35, 7, 0);
    fill_stamped(heap.get(), 5000, 35, 8, 0);
    fill_stamped(peer.base + 65536, 20000, 35, 9, 1);
    std::memset(peer.base, 0xEE, 65536);
    const ThreadHandle t0 = mesh.thread[0];
    const ThreadHandle t1 = mesh.thread[1];
    const ChannelHandle c01 = mesh.channel[0][1];
    const ChannelHandle c10 = mesh.channel[1][0];
    std::vector<int32_t> codes;
    std::vector<Program> programs(2);
    programs[0] = [&] {
        codes.push_back(HcommWriteWithNotifyOnThread(t0, c01, peer.base + 8, src.base + 1, 30000, 2));
        codes.push_back(HcommWriteOnThread(t0, c01, peer.base + 40000, heap.get(), 5000));
        codes.push_back(HcommReadOnThread(t0, c01, dst.base + 2, peer.base + 65536, 20000));
        // Never accepted: memory this process cannot read, or (for a read) write.
        codes.push_back(HcommWriteOnThread(t0, c01, peer.base, none.base, 64));
        codes.push_back(HcommReadOnThread(t0, c01, read_only.base, peer.base + 65536, 64));
        return 0U;
    };
    programs[1] = [&] { return warn ? static_cast<uint32_t>(HcommChannelNotifyWaitOnThread(t1, c10, 2, 20)) : 0U; };
    const auto r = launch_all(job, programs);
    ASSERT_EQ(r[0].taskError, 0);
    ASSERT_EQ(r[1].programReturn, 0U);
    const int32_t accepted = warn ? HCCL_SUCCESS : HCCL_E_PARA;
    EXPECT_EQ(codes, (std::vector<int32_t>{accepted, accepted, accepted, HCCL_E_PARA, HCCL_E_PARA}))
        << "HCOMM_REF_LOCAL_UNREGISTERED=" << (knob ? knob : "");
    if (warn) {
        EXPECT_EQ(first_bad_stamp(peer.base + 8, 30000, 35, 7, 0), 30000U);
        EXPECT_EQ(first_bad_stamp(peer.base + 40000, 5000, 35, 8, 0), 5000U);
        EXPECT_EQ(first_bad_stamp(dst.base + 2, 20000, 35, 9, 1), 20000U);
    } else {
        for (int i = 0; i < 65536; ++i)
            ASSERT_EQ(peer.base[i], 0xEE) << "byte " << i << " changed by a refused call";
    }
}
