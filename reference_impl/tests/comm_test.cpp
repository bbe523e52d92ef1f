// Communicator life cycle, memory and root-info bootstrap (no verbs needed).
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "job.h"

using namespace hcts_test;

TEST(Comm, OneToEightRanksInOneProcess)
{
    for (uint32_t n : {1U, 2U, 3U, 8U}) {
        Job job(n);
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS) << n << " ranks";
        std::set<void *> buffers;
        std::set<std::string> names;
        for (uint32_t r = 0; r < n; ++r) {
            uint32_t rank = 99;
            uint32_t size = 99;
            EXPECT_EQ(HcclGetRankId(job[r], &rank), HCCL_SUCCESS);
            EXPECT_EQ(HcclGetRankSize(job[r], &size), HCCL_SUCCESS);
            EXPECT_EQ(rank, r);
            EXPECT_EQ(size, n);
            buffers.insert(buffer_of(job[r]).base);
            char name[64] = {};
            EXPECT_EQ(HcommRefGetCommName(job[r], name, sizeof(name)), HCCL_SUCCESS);
            names.insert(name);
        }
        EXPECT_EQ(buffers.size(), n) << "each rank has its own communication memory";
        EXPECT_EQ(names.size(), 1U) << "every rank of a job shares the comm name";
    }
}

TEST(Comm, TwoJobsAtOnceStayApart)
{
    Job a(2);
    Job b(2);
    ASSERT_EQ(a.init_result(), HCCL_SUCCESS);
    ASSERT_EQ(b.init_result(), HCCL_SUCCESS);
    char na[64] = {};
    char nb[64] = {};
    ASSERT_EQ(HcommRefGetCommName(a[0], na, sizeof(na)), HCCL_SUCCESS);
    ASSERT_EQ(HcommRefGetCommName(b[0], nb, sizeof(nb)), HCCL_SUCCESS);
    EXPECT_STRNE(na, nb) << "each job has its own random token";
}

TEST(Comm, InitRejections)
{
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    HcclComm comm = reinterpret_cast<HcclComm>(0x1234);
    EXPECT_EQ(HcclGetRootInfo(nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclCommInitRootInfo(1, nullptr, 0, &comm), HCCL_E_PTR);
    EXPECT_EQ(HcclCommInitRootInfo(1, &root, 0, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclCommInitRootInfo(0, &root, 0, &comm), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitRootInfo(2, &root, 2, &comm), HCCL_E_PARA);
    HcclRootInfo garbage{};
    std::memset(garbage.internal, 0x5a, sizeof(garbage.internal));
    EXPECT_EQ(HcclCommInitRootInfo(1, &garbage, 0, &comm), HCCL_E_PARA);
    EXPECT_EQ(comm, reinterpret_cast<HcclComm>(0x1234)) << "a refused init leaves *comm alone";
    // The untouched root still serves its job.
    ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_E_PARA) << "a destroyed comm is stale";
    uint32_t value = 0;
    EXPECT_EQ(HcclGetRankId(comm, &value), HCCL_E_PARA);
    EXPECT_EQ(HcclGetRankSize(comm, &value), HCCL_E_PARA);
    EXPECT_EQ(HcclCommDestroy(nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclGetRankId(nullptr, &value), HCCL_E_PTR);
    EXPECT_EQ(HcclGetRankSize(nullptr, &value), HCCL_E_PTR);
}

TEST(Comm, PeerWithoutTokenIsRefused)
{
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    HcclRootInfo forged = root;
    forged.internal[24] = static_cast<char>(forged.internal[24] ^ 0x01); // inside the token
    HcclComm comm = nullptr;
    EXPECT_NE(HcclCommInitRootInfo(1, &forged, 0, &comm), HCCL_SUCCESS);
    EXPECT_EQ(comm, nullptr);
    ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS) << "the genuine rank still joins";
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
}

// Before, the rendezvous served one connection at a time with a 10 s read each, so
// a few idle connections (no job token needed) made every rank time out.
TEST(Comm, IdleConnectionsDoNotStallTheRendezvous)
{
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    uint32_t ipv4 = 0; // the root info's layout: magic[8], version, ipv4 (network order), port (host order)
    uint16_t port = 0;
    std::memcpy(&ipv4, root.internal + 12, sizeof ipv4);
    std::memcpy(&port, root.internal + 16, sizeof port);
    std::vector<int> idle;
    for (int i = 0; i < 3; ++i) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = ipv4;
        addr.sin_port = htons(port);
        ASSERT_EQ(connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof addr), 0) << "connection " << i;
        idle.push_back(fd);
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<HcclComm> comms(2, nullptr);
    std::vector<std::future<HcclResult>> results;
    for (uint32_t r = 0; r < 2; ++r)
        results.push_back(
            std::async(std::launch::async, [&, r] { return HcclCommInitRootInfo(2, &root, r, &comms[r]); }));
    for (auto &f : results)
        EXPECT_EQ(f.get(), HCCL_SUCCESS);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(5)) << "the ranks waited behind the idle connections";
    for (HcclComm c : comms) {
        if (c != nullptr) {
            EXPECT_EQ(HcclCommDestroy(c), HCCL_SUCCESS);
        }
    }
    for (int fd : idle)
        close(fd);
}

TEST(Comm, ClusterInfoIsNotSupported)
{
    HcclComm comm = nullptr;
    EXPECT_EQ(HcclCommInitClusterInfo(nullptr, 0, &comm), HCCL_E_PTR);
    EXPECT_EQ(HcclCommInitClusterInfo("/tmp/ranktable.json", 0, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclCommInitClusterInfo("/tmp/ranktable.json", 0, &comm), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(comm, nullptr);
}

// The refusal says why, with what it found in the file, as a warning a program's author
// sees; a path beyond the vendor's 4096 bytes (with its NUL) or empty is a bad parameter.
TEST(Comm, ClusterInfoRefusalSaysWhy)
{
    HcclComm comm = nullptr;
    const std::string long_path(4096, 'x');
    EXPECT_EQ(HcclCommInitClusterInfo(long_path.c_str(), 0, &comm), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitClusterInfo("", 0, &comm), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitClusterInfo(std::string(4095, 'x').c_str(), 0, &comm), HCCL_E_NOT_SUPPORT)
        << "4095 characters and the NUL are within the bound";
    const std::string table = ::testing::TempDir() + "hcts_rank_table_" + std::to_string(::getpid()) + ".json";
    {
        std::ofstream out(table);
        out << R"({"version": "1.0", "server_count": "1", "server_list": [{"server_id": "10.0.0.1", "device": [)"
            << R"({"device_id": "0", "device_ip": "192.168.1.8", "rank_id": "0"},)"
            << R"({"device_id": "1", "device_ip": "192.168.1.9", "rank_id": "1"}]}], "status": "completed"})";
    }
    const auto refusal = [&](const std::string &path, uint32_t rank) {
        ::testing::internal::CaptureStderr();
        EXPECT_EQ(HcclCommInitClusterInfo(path.c_str(), rank, &comm), HCCL_E_NOT_SUPPORT);
        return ::testing::internal::GetCapturedStderr();
    };
    std::string said = refusal(table, 1);
    EXPECT_NE(said.find("'" + table + "' lists 2 rank(s), this rank among them"), std::string::npos) << said;
    EXPECT_NE(said.find("HcclGetRootInfo on one rank and HcclCommInitRootInfo on every rank"), std::string::npos)
        << said;
    said = refusal(table, 5);
    EXPECT_NE(said.find("lists 2 rank(s), but not rank 5"), std::string::npos) << said;
    said = refusal(table + ".missing", 0);
    EXPECT_NE(said.find("cannot be opened (No such file or directory)"), std::string::npos) << said;
    said = refusal("/tmp", 0);
    EXPECT_NE(said.find("is not a regular file"), std::string::npos) << said;
    EXPECT_EQ(comm, nullptr);
    std::remove(table.c_str());
}

TEST(Memory, SizeIsTwiceHcclBuffsize)
{
    const char *saved = std::getenv("HCCL_BUFFSIZE");
    const std::string keep = saved != nullptr ? saved : "";
    unsetenv("HCCL_BUFFSIZE");
    {
        Job job(1);
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        EXPECT_EQ(buffer_of(job[0]).size, 400ULL << 20) << "default HCCL_BUFFSIZE 200 MB, returned size 2x";
    }
    setenv("HCCL_BUFFSIZE", "3", 1);
    {
        Job job(1);
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        EXPECT_EQ(buffer_of(job[0]).size, 6ULL << 20);
    }
    for (const char *bad : {"0", "abc", "12x", "-4"}) {
        setenv("HCCL_BUFFSIZE", bad, 1);
        Job job(1);
        EXPECT_EQ(job.init_result(), HCCL_E_PARA) << "HCCL_BUFFSIZE=" << bad;
    }
    if (saved != nullptr)
        setenv("HCCL_BUFFSIZE", keep.c_str(), 1);
    else
        unsetenv("HCCL_BUFFSIZE");
}

TEST(Memory, UntouchedMemoryCostsNothing)
{
    unsetenv("HCCL_BUFFSIZE");
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    const Buffer b = buffer_of(job[0]);
    // mincore reports which pages are resident: none of the 400 MB until touched.
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> resident(b.size / page);
    ASSERT_EQ(mincore(b.base, b.size, resident.data()), 0);
    size_t count = 0;
    for (unsigned char v : resident)
        count += v & 1;
    EXPECT_EQ(count, 0U);
    b.base[b.size - 1] = 1;
    ASSERT_EQ(mincore(b.base, b.size, resident.data()), 0);
    EXPECT_EQ(resident.back() & 1, 1);
    setenv("HCCL_BUFFSIZE", "8", 1);
}

TEST(Memory, ClearedBufferReadsZero)
{
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Buffer b = buffer_of(job[0]);
    std::memset(b.base, 0xab, 4096);
    b.base[b.size - 1] = 0xcd;
    void *p = nullptr;
    uint64_t size = 0;
    ASSERT_EQ(HcclGetHcclBufferCleared(job[0], &p, &size), HCCL_SUCCESS);
    EXPECT_EQ(p, b.base);
    EXPECT_EQ(size, b.size);
    for (int i = 0; i < 4096; ++i)
        ASSERT_EQ(b.base[i], 0) << i;
    EXPECT_EQ(b.base[b.size - 1], 0);
}

TEST(Memory, Rejections)
{
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    void *p = reinterpret_cast<void *>(0x77);
    uint64_t size = 77;
    EXPECT_EQ(HcclGetHcclBuffer(nullptr, &p, &size), HCCL_E_PTR);
    EXPECT_EQ(HcclGetHcclBuffer(job[0], nullptr, &size), HCCL_E_PTR);
    EXPECT_EQ(HcclGetHcclBuffer(job[0], &p, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclGetHcclBufferCleared(nullptr, &p, &size), HCCL_E_PTR);
    EXPECT_EQ(HcclGetHcclBuffer(reinterpret_cast<HcclComm>(&size), &p, &size), HCCL_E_PARA);
    EXPECT_EQ(HcclGetHcclBufferCleared(reinterpret_cast<HcclComm>(&size), &p, &size), HCCL_E_PARA);
    EXPECT_EQ(p, reinterpret_cast<void *>(0x77));
    EXPECT_EQ(size, 77U);
}
