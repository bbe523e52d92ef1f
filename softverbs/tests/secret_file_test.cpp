// The per-user secret file: made on first use with mode 0600 by exactly one of
// many concurrent first users, read back by all of them; an unsafe file is refused, with a
// message that says what is wrong and how to fix it.
#include "secret_file.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using sv::read_secret_file;
using sv::SecretFile;

struct TempDir {
    std::string path;
    TempDir()
    {
        char t[] = "/tmp/sv-secret-XXXXXX";
        if (!mkdtemp(t))
            std::abort();
        path = t;
    }
    ~TempDir() { (void)!std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string slurp(const std::string &p)
{
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_file(const std::string &p, const std::string &text, mode_t mode)
{
    int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0) << p;
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ASSERT_EQ(fchmod(fd, mode), 0);
    close(fd);
}

mode_t mode_of(const std::string &p)
{
    struct stat st {};
    return stat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0xffff;
}

std::vector<std::string> entries(const std::string &dir)
{
    std::vector<std::string> r;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::string n = e->d_name; n != "." && n != "..")
                r.push_back(n);
        closedir(d);
    }
    return r;
}

bool is_hex32(const std::string &s)
{
    return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(SecretFile, MadeOnFirstUseOwnerOnlyThenReadBack)
{
    TempDir t;
    const std::string path = t.path + "/home/.config/softverbs/secret";
    SecretFile a = read_secret_file(path);
    ASSERT_EQ(a.status, SecretFile::kOk) << a.why;
    EXPECT_TRUE(a.created);
    EXPECT_TRUE(is_hex32(a.secret)) << "secret '" << a.secret << "'";
    EXPECT_EQ(slurp(path), a.secret + "\n");
    EXPECT_EQ(mode_of(path), 0600u) << std::oct << mode_of(path);
    EXPECT_EQ(mode_of(t.path + "/home/.config/softverbs"), 0700u);
    EXPECT_EQ(mode_of(t.path + "/home/.config"), 0700u);
    EXPECT_EQ(entries(t.path + "/home/.config/softverbs"), std::vector<std::string>{"secret"})
        << "temporary files left beside the secret";
    SecretFile b = read_secret_file(path);
    ASSERT_EQ(b.status, SecretFile::kOk) << b.why;
    EXPECT_FALSE(b.created);
    EXPECT_EQ(b.secret, a.secret);
    // A second directory gets a secret of its own.
    SecretFile c = read_secret_file(t.path + "/other/secret");
    ASSERT_EQ(c.status, SecretFile::kOk) << c.why;
    EXPECT_NE(c.secret, a.secret);
}

TEST(SecretFile, ASecretWrittenByTheUserIsUsedWithoutTrailingWhiteSpace)
{
    TempDir t;
    const std::string path = t.path + "/secret";
    write_file(path, "our cluster's cookie \r\n\n", 0400);
    SecretFile s = read_secret_file(path);
    ASSERT_EQ(s.status, SecretFile::kOk) << s.why;
    EXPECT_FALSE(s.created);
    EXPECT_EQ(s.secret, "our cluster's cookie");
}

// Many programs of one user starting at once, none finding the file: exactly one makes it,
// every one reads the same secret, no temporary file remains.
TEST(SecretFile, ConcurrentFirstUsersAllReadOneSecret)
{
    constexpr int kProcs = 12, kRounds = 15;
    for (int round = 0; round < kRounds; ++round) {
        TempDir t;
        const std::string path = t.path + "/d/secret";
        int go[2], out[2];
        ASSERT_EQ(pipe(go), 0);
        ASSERT_EQ(pipe(out), 0);
        std::vector<pid_t> kids;
        for (int i = 0; i < kProcs; ++i) {
            pid_t p = fork();
            ASSERT_GE(p, 0);
            if (p == 0) {
                close(go[1]);
                char c;
                (void)!read(go[0], &c, 1); // all start together when the parent closes go[1]
                SecretFile s = read_secret_file(path);
                std::string line = (s.status == SecretFile::kOk ? "ok " : "fail ") +
                                   std::string(s.created ? "1 " : "0 ") +
                                   (s.status == SecretFile::kOk ? s.secret : s.why) + "\n";
                (void)!write(out[1], line.data(), line.size()); // < PIPE_BUF: atomic
                _exit(0);
            }
            kids.push_back(p);
        }
        close(go[0]);
        close(out[1]);
        close(go[1]);
        std::string all;
        char buf[4096];
        for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;)
            all.append(buf, static_cast<size_t>(n));
        close(out[0]);
        for (pid_t p : kids)
            waitpid(p, nullptr, 0);
        std::istringstream lines(all);
        std::set<std::string> secrets;
        int n = 0, creators = 0;
        for (std::string status, created, rest; lines >> status >> created >> rest; ++n) {
            ASSERT_EQ(status, "ok") << "round " << round << ": " << rest;
            creators += created == "1";
            secrets.insert(rest);
        }
        ASSERT_EQ(n, kProcs) << all;
        ASSERT_EQ(secrets.size(), 1u) << "round " << round << ": first users read different secrets:\n" << all;
        EXPECT_EQ(creators, 1) << "round " << round << ":\n" << all;
        EXPECT_EQ(slurp(path), *secrets.begin() + "\n");
        EXPECT_EQ(mode_of(path), 0600u);
        EXPECT_EQ(entries(t.path + "/d"), std::vector<std::string>{"secret"}) << "round " << round;
    }
}

TEST(SecretFile, RefusesAFileOthersMayRead)
{
    for (mode_t mode : {0644, 0640, 0604, 0660, 0606, 0610}) {
        TempDir t;
        const std::string path = t.path + "/secret";
        write_file(path, "abc\n", mode);
        SecretFile s = read_secret_file(path);
        char m[8];
        std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(mode));
        EXPECT_EQ(s.status, SecretFile::kRefused) << m;
        EXPECT_TRUE(s.secret.empty()) << m;
        EXPECT_NE(s.why.find(std::string("has mode ") + m), std::string::npos) << s.why;
        EXPECT_NE(s.why.find("chmod 600 " + path), std::string::npos) << s.why;
        EXPECT_EQ(mode_of(path), mode) << "the file must be left as it was";
    }
}

TEST(SecretFile, RefusesAnotherUsersFile)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to give a file to another user";
    TempDir t;
    const std::string path = t.path + "/secret";
    write_file(path, "theirs\n", 0600);
    ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
    SecretFile s = read_secret_file(path);
    EXPECT_EQ(s.status, SecretFile::kRefused);
    EXPECT_NE(s.why.find("belongs to uid 65534, not to this user (uid 0)"), std::string::npos) << s.why;
}

TEST(SecretFile, RefusesLinksDirectoriesEmptyAndOversizedFiles)
{
    TempDir t;
    write_file(t.path + "/real", "abc\n", 0600);
    ASSERT_EQ(symlink((t.path + "/real").c_str(), (t.path + "/link").c_str()), 0);
    SecretFile s = read_secret_file(t.path + "/link");
    EXPECT_EQ(s.status, SecretFile::kRefused);
    EXPECT_NE(s.why.find("is a symbolic link"), std::string::npos) << s.why;

    ASSERT_EQ(mkdir((t.path + "/dir").c_str(), 0700), 0);
    s = read_secret_file(t.path + "/dir");
    EXPECT_EQ(s.status, SecretFile::kRefused);
    EXPECT_NE(s.why.find("is not a regular file"), std::string::npos) << s.why;

    write_file(t.path + "/empty", " \n", 0600);
    s = read_secret_file(t.path + "/empty");
    EXPECT_EQ(s.status, SecretFile::kRefused);
    EXPECT_NE(s.why.find("is empty"), std::string::npos) << s.why;

    write_file(t.path + "/long", std::string(65, 'x'), 0600);
    s = read_secret_file(t.path + "/long");
    EXPECT_EQ(s.status, SecretFile::kRefused);
    EXPECT_NE(s.why.find("more than 64 bytes"), std::string::npos) << s.why;
    write_file(t.path + "/long", std::string(64, 'x') + "\n", 0600);
    s = read_secret_file(t.path + "/long");
    EXPECT_EQ(s.status, SecretFile::kOk) << s.why;
}

TEST(SecretFile, NoPlaceToMakeItIsUnavailableNotRefused)
{
    TempDir t;
    write_file(t.path + "/plain", "x", 0600);
    SecretFile s = read_secret_file(t.path + "/plain/sub/secret"); // a file where a directory must be
    EXPECT_EQ(s.status, SecretFile::kUnavailable);
    EXPECT_NE(s.why.find(t.path + "/plain/sub/secret: Not a directory"), std::string::npos) << s.why;
    s = read_secret_file("");
    EXPECT_EQ(s.status, SecretFile::kUnavailable);
    EXPECT_NE(s.why.find("no home directory"), std::string::npos) << s.why;
    s = read_secret_file("relative/secret");
    EXPECT_EQ(s.status, SecretFile::kUnavailable);
}

TEST(SecretFile, DefaultPathIsTheHomeDirectoryUnlessSoftverbsSecretFileIsSet)
{
    const char *old_home = std::getenv("HOME");
    const std::string keep = old_home ? old_home : "";
    unsetenv("SOFTVERBS_SECRET_FILE");
    setenv("HOME", "/home/someone/", 1);
    EXPECT_EQ(sv::default_secret_path(), "/home/someone/.config/softverbs/secret");
    setenv("SOFTVERBS_SECRET_FILE", "/etc/cluster/secret", 1);
    EXPECT_EQ(sv::default_secret_path(), "/etc/cluster/secret");
    unsetenv("SOFTVERBS_SECRET_FILE");
    unsetenv("HOME"); // the password database's home of this user
    std::string p = sv::default_secret_path();
    EXPECT_TRUE(p.empty() || (p[0] == '/' && p.ends_with("/.config/softverbs/secret"))) << p;
    if (old_home)
        setenv("HOME", keep.c_str(), 1);
}

} // namespace
