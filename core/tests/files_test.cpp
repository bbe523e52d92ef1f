// hcts::files::write_atomic: the whole new content or the old one, never a part;
// a failed write names the path and leaves the old file and no temporary behind.
#include "hcts/core/files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path fresh_dir(const std::string &name)
{
    const fs::path d = fs::path(HCTS_TEST_TMP) / name;
    fs::remove_all(d);
    return d;
}

} // namespace

TEST(WriteAtomic, CreatesParentsAndReplacesWholeFiles)
{
    const fs::path d = fresh_dir("replace");
    const fs::path p = d / "deep" / "results.json";
    hcts::files::write_atomic(p, std::string(100000, 'a'));
    EXPECT_EQ(read(p), std::string(100000, 'a'));
    hcts::files::write_atomic(p, "short\n");
    EXPECT_EQ(read(p), "short\n");
    for (const auto &e : fs::directory_iterator(p.parent_path()))
        EXPECT_EQ(e.path().filename(), "results.json") << "a temporary was left behind: " << e.path();
}

TEST(WriteAtomic, AFailedRenameKeepsTheOldFileAndNamesThePath)
{
    const fs::path d = fresh_dir("fails");
    // A directory where the file should be: the rename over it fails.
    const fs::path p = d / "taken";
    fs::create_directories(p / "inside");
    try {
        hcts::files::write_atomic(p, "data");
        FAIL() << "writing over a non-empty directory succeeded";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_directory(p / "inside"));
    for (const auto &e : fs::directory_iterator(d))
        EXPECT_EQ(e.path().filename(), "taken") << "a temporary was left behind: " << e.path();
}

TEST(WriteAtomic, AFileWhereADirectoryShouldBeIsAnError)
{
    const fs::path d = fresh_dir("file-in-the-way");
    fs::create_directories(d);
    std::ofstream(d / "plain") << "x";
    try {
        hcts::files::write_atomic(d / "plain" / "results.json", "data");
        FAIL() << "writing under a regular file succeeded";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find((d / "plain").string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(read(d / "plain"), "x");
}
