// Run by the cluster test across simulated nodes: ranks land on distinct hosts
// round-robin (so ranks 0 and 1, the two parties of two-party cases, are on
// different nodes), each sees its node's veth0 address, and MPI works between nodes.
#include "hcts/mpi_harness.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace hm = hcts::mpi;

std::vector<std::string> all_hostnames()
{
    char mine[64] = {};
    gethostname(mine, sizeof mine - 1);
    std::vector<char> all(64 * static_cast<size_t>(hm::size()));
    MPI_Allgather(mine, 64, MPI_CHAR, all.data(), 64, MPI_CHAR, hm::comm());
    std::vector<std::string> names;
    for (int r = 0; r < hm::size(); ++r)
        names.emplace_back(all.data() + 64 * r);
    return names;
}

std::string address_of(const char *ifname)
{
    ifaddrs *list = nullptr;
    std::string addr;
    if (getifaddrs(&list) != 0)
        return addr;
    for (ifaddrs *a = list; a; a = a->ifa_next) {
        if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && std::strcmp(a->ifa_name, ifname) == 0) {
            char buf[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(a->ifa_addr)->sin_addr, buf, sizeof buf);
            addr = buf;
        }
    }
    freeifaddrs(list);
    return addr;
}

// The node of `rank` when ranks are placed round-robin over HCTS_EXPECT_NODES nodes.
int node_of(int rank)
{
    const char *s = std::getenv("HCTS_EXPECT_NODES");
    const int nodes = s != nullptr ? std::atoi(s) : 0;
    return nodes > 0 ? rank % nodes + 1 : 0;
}

TEST(Cluster, RanksSpreadOverDistinctHosts)
{
    ASSERT_GT(node_of(0), 0) << "set HCTS_EXPECT_NODES to the number of nodes";
    const auto names = all_hostnames();
    for (int a = 0; a < hm::size(); ++a) {
        for (int b = 0; b < hm::size(); ++b) {
            const bool same_node = node_of(a) == node_of(b);
            EXPECT_EQ(names[static_cast<size_t>(a)] == names[static_cast<size_t>(b)], same_node)
                << "ranks " << a << " (" << names[static_cast<size_t>(a)] << ") and " << b << " ("
                << names[static_cast<size_t>(b)] << ")";
        }
    }
    EXPECT_EQ(names[static_cast<size_t>(hm::rank())], "n" + std::to_string(node_of(hm::rank())));
    if (hm::size() > 1) {
        EXPECT_NE(names[0], names[1]) << "ranks 0 and 1 (the two parties) must be on different nodes";
    }
}

TEST(Cluster, NodeAddressAndEnvironment)
{
    const char *listen = std::getenv("SOFTVERBS_LISTEN");
    const char *boot = std::getenv("HCOMM_REF_BOOTSTRAP_IF");
    ASSERT_NE(listen, nullptr);
    ASSERT_NE(boot, nullptr);
    EXPECT_STREQ(listen, "veth0");
    EXPECT_STREQ(boot, "veth0");
    EXPECT_EQ(address_of("veth0"), "10.77.0." + std::to_string(node_of(hm::rank())));
}

TEST(Cluster, ExchangeBetweenNodes)
{
    std::vector<long> mine(1 << 14, hm::rank() + 1), sum(mine.size());
    ASSERT_EQ(MPI_Allreduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_LONG, MPI_SUM, hm::comm()),
              MPI_SUCCESS);
    const long expect = static_cast<long>(hm::size()) * (hm::size() + 1) / 2;
    for (size_t i = 0; i < sum.size(); ++i)
        ASSERT_EQ(sum[i], expect) << "element " << i;
    hm::phase_barrier("after exchange", std::chrono::seconds(10));
}

} // namespace

int main(int argc, char **argv) { return hm::run_main(argc, argv); }
