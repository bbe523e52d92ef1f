// ibv_get_sysfs_path and ibv_read_sysfs_file as rdma-core defines them: the path
// follows $SYSFS_PATH (trailing slashes dropped), else /sys, and the device's paths
// are built from it — softverbs-run's non-root mode (README, "System paths") relies
// on both. Run three times by ctest: without SYSFS_PATH, with one ending in '/', and
// with a relative one (refused: /sys).
#include <infiniband/verbs.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

extern "C" const char *ibv_get_sysfs_path(void);
extern "C" int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

namespace {

std::string expected_root()
{
    const char *env = std::getenv("SYSFS_PATH");
    std::string want = env && *env ? env : "/sys";
    while (want.size() > 1 && want.back() == '/')
        want.pop_back();
    // A relative path, or one too long for ibv_device's paths, is refused (with a message).
    if (want.front() != '/' || want.size() > IBV_SYSFS_PATH_MAX - sizeof "/class/infiniband_verbs/uverbs0")
        return "/sys";
    return want;
}

TEST(Sysfs, PathFollowsSysfsPathAndDevicePathsUseIt)
{
    std::string root = expected_root();
    ASSERT_STREQ(ibv_get_sysfs_path(), root.c_str());
    int n = 0;
    ibv_device **list = ibv_get_device_list(&n);
    ASSERT_NE(list, nullptr);
    ASSERT_EQ(n, 1);
    EXPECT_EQ(std::string(list[0]->ibdev_path), root + "/class/infiniband/softverbs0");
    EXPECT_EQ(std::string(list[0]->dev_path), root + "/class/infiniband_verbs/uverbs0");
    EXPECT_STREQ(list[0]->dev_name, "uverbs0");
    ibv_free_device_list(list);
}

class ReadSysfsFile : public ::testing::Test {
  protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/softverbs_sysfs_test.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr) << std::strerror(errno);
        dir_ = tmpl;
        std::ofstream(dir_ + "/state") << "4: ACTIVE\n";
        std::ofstream(dir_ + "/raw") << "abcdef";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string dir_;
};

TEST_F(ReadSysfsFile, DropsOneTrailingNewlineAndTerminates)
{
    char buf[64];
    std::memset(buf, 'x', sizeof buf);
    EXPECT_EQ(ibv_read_sysfs_file(dir_.c_str(), "state", buf, sizeof buf), 9);
    EXPECT_STREQ(buf, "4: ACTIVE");
    EXPECT_EQ(ibv_read_sysfs_file(dir_.c_str(), "raw", buf, sizeof buf), 6);
    EXPECT_STREQ(buf, "abcdef");
}

TEST_F(ReadSysfsFile, RefusesContentsWithNoRoomForTheTerminator)
{
    char buf[6];
    errno = 0;
    EXPECT_EQ(ibv_read_sysfs_file(dir_.c_str(), "raw", buf, sizeof buf), -1);
    EXPECT_EQ(errno, EOVERFLOW);
    char fits[7];
    EXPECT_EQ(ibv_read_sysfs_file(dir_.c_str(), "raw", fits, sizeof fits), 6);
    EXPECT_STREQ(fits, "abcdef");
}

TEST_F(ReadSysfsFile, MissingFileAndBadArgumentsFail)
{
    char buf[16];
    errno = 0;
    EXPECT_EQ(ibv_read_sysfs_file(dir_.c_str(), "absent", buf, sizeof buf), -1);
    EXPECT_EQ(errno, ENOENT);
    errno = 0;
    EXPECT_EQ(ibv_read_sysfs_file(dir_.c_str(), "raw", buf, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(ibv_read_sysfs_file(nullptr, "raw", buf, sizeof buf), -1);
}

} // namespace
