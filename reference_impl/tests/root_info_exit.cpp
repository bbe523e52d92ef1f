// Every thread of the library ends at exit or unload: a program gets a root
// info nobody joins and leaves. `exit`: returns from main; a handler registered before
// the library's first call runs after the library's own exit handlers and counts this
// library's threads, which must be none left (ThreadSanitizer reports a rendezvous
// thread left unjoined as a thread leak). `unload`: the same with the library
// dlopen'ed and dlclose'd; once it is unmapped, its threads must be gone. `fork`: as `exit`,
// and a child forked after the root info leaves through exit() too: the library's exit
// handlers in the child must not join or signal the parent's rendezvous thread: the parent
// then still joins its root info (on main the child's exit stopped the parent's rendezvous).
// Exit status 0, or 1 with what was wrong.
#include <dirent.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hccl/hccl_comm.h"

namespace {
bool g_in_fork_child = false;
} // namespace

// LeakSanitizer in the forked child: memory the parent's threads held only on their stacks
// looks leaked there; the parent's check stays on (asan only; LeakSanitizer calls this).
extern "C" int __lsan_is_turned_off() { return g_in_fork_child ? 1 : 0; }

namespace {

// The library's threads alive in this process: it names each "href-..." (a sanitizer's
// own threads, such as ThreadSanitizer's background thread, are not counted).
int threads()
{
    int n = 0;
    if (DIR *d = opendir("/proc/self/task")) {
        while (const dirent *e = readdir(d)) {
            if (e->d_name[0] == '.')
                continue;
            const std::string path = std::string("/proc/self/task/") + e->d_name + "/comm";
            char name[32] = "";
            if (std::FILE *f = std::fopen(path.c_str(), "re")) {
                if (std::fgets(name, sizeof name, f) == nullptr)
                    name[0] = 0;
                std::fclose(f);
            }
            n += std::strncmp(name, "href-", 5) == 0;
        }
        closedir(d);
    }
    return n;
}

void count_at_exit()
{
    if (const int n = threads(); n != 0) {
        std::fprintf(stderr, "root_info_exit: %d of the library's threads left after its exit handlers (want 0)\n", n);
        std::_Exit(1);
    }
}

// Loads the library and gets a root info from it; null (said) on failure.
void *load_and_get_root_info(const char *path, HcclRootInfo *out = nullptr)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        std::fprintf(stderr, "root_info_exit: dlopen %s: %s\n", path, dlerror());
        return nullptr;
    }
    using GetRootInfo = HcclResult (*)(HcclRootInfo *);
    const auto get = reinterpret_cast<GetRootInfo>(dlsym(lib, "HcclGetRootInfo"));
    HcclRootInfo root{};
    if (get == nullptr || get(&root) != HCCL_SUCCESS) {
        std::fprintf(stderr, "root_info_exit: HcclGetRootInfo failed\n");
        return nullptr;
    }
    if (out != nullptr)
        *out = root;
    return lib;
}

} // namespace

int main(int argc, char **argv)
{
    const bool known = argc == 3 && (std::strcmp(argv[1], "exit") == 0 || std::strcmp(argv[1], "unload") == 0 ||
                                     std::strcmp(argv[1], "fork") == 0);
    if (!known) {
        std::fprintf(stderr, "usage: %s exit|unload|fork <libhcomm.so>\n", argv[0]);
        return 2;
    }
    if (std::strcmp(argv[1], "fork") == 0) {
        std::atexit(count_at_exit);
        HcclRootInfo root{};
        void *lib = load_and_get_root_info(argv[2], &root);
        if (lib == nullptr)
            return 1;
        std::fflush(nullptr);
        const pid_t child = fork();
        if (child == 0) {
            g_in_fork_child = true;
            std::exit(0); // the library's exit handlers run in the child
        }
        int status = 0;
        for (int waited_ms = 0; waitpid(child, &status, WNOHANG) != child; waited_ms += 10) {
            if (waited_ms > 20000) {
                std::fprintf(stderr, "root_info_exit: the forked child did not exit within 20 s\n");
                return 1;
            }
            usleep(10000);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "root_info_exit: the forked child's exit() ended with %s %d\n",
                         WIFSIGNALED(status) ? "signal" : "status",
                         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            return 1;
        }
        // The root info is still the parent's to use: the child's exit did not stop its rendezvous.
        using Init = HcclResult (*)(uint32_t, const HcclRootInfo *, uint32_t, HcclComm *);
        using Destroy = HcclResult (*)(HcclComm);
        const auto init = reinterpret_cast<Init>(dlsym(lib, "HcclCommInitRootInfo"));
        const auto destroy = reinterpret_cast<Destroy>(dlsym(lib, "HcclCommDestroy"));
        HcclComm comm = nullptr;
        if (const HcclResult rc = init(1, &root, 0, &comm); rc != HCCL_SUCCESS) {
            std::fprintf(stderr,
                         "root_info_exit: after the forked child's exit, joining the parent's root info returned %d\n",
                         rc);
            return 1;
        }
        return destroy(comm) == HCCL_SUCCESS ? 0 : 1;
    }
    if (std::strcmp(argv[1], "exit") == 0) {
        std::atexit(count_at_exit); // runs after the handlers the library registers from here on
        return load_and_get_root_info(argv[2]) != nullptr ? 0 : 1;
    }
    const int before = threads();
    void *lib = load_and_get_root_info(argv[2]);
    if (lib == nullptr)
        return 1;
    dlclose(lib);
    if (dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD) != nullptr) {
        std::printf("root_info_exit: the library stays loaded after dlclose (not unloadable): nothing to check\n");
        return 0;
    }
    if (const int after = threads(); after != before) {
        std::fprintf(stderr, "root_info_exit: %d threads before dlopen, %d after dlclose\n", before, after);
        return 1;
    }
    return 0;
}
