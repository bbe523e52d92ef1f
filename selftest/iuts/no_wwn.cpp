// An IUT without one hcomm symbol (HcommWriteWithNotifyOnThread for no_wwn, see
// hcts_iut_without in selftest/CMakeLists.txt): every other hcomm symbol (and the
// reference extensions the reference adapter needs) is a trampoline into the
// reference, which this library loads privately, so the symbol is truly absent.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {
int32_t absent_symbol() { return 5; /* HCCL_E_NOT_SUPPORT */ }
} // namespace

#if defined(__x86_64__)
#define HCTS_TRAMPOLINE(name)                                                                                          \
    asm(".text\n.globl " #name "\n.type " #name ",@function\n" #name ":\n\tjmp *hcts_fwd_" #name                       \
        "(%rip)\n.size " #name ", .-" #name "\n");
#elif defined(__aarch64__)
#define HCTS_TRAMPOLINE(name)                                                                                          \
    asm(".text\n.globl " #name "\n.type " #name ",%function\n" #name ":\n\tadrp x16, hcts_fwd_" #name                  \
        "\n\tldr x16, [x16, #:lo12:hcts_fwd_" #name "]\n\tbr x16\n.size " #name ", .-" #name "\n");
#else
#error "no_wwn.cpp needs a trampoline for this architecture"
#endif

#define X(name)                                                                                                        \
    extern "C" {                                                                                                       \
    __attribute__((visibility("hidden"), used)) void *hcts_fwd_##name = reinterpret_cast<void *>(&absent_symbol);      \
    }                                                                                                                  \
    HCTS_TRAMPOLINE(name)
#include "forwarded_symbols.inc"
#undef X

namespace {
// The reference is one directory up from this shim, in the build tree
// (lib/selftest/ -> lib/) and installed (lib/hcts/selftest/ -> lib/hcts/) alike.
std::string reference_path()
{
    Dl_info self{};
    if (dladdr(reinterpret_cast<void *>(&absent_symbol), &self) == 0 || self.dli_fname == nullptr)
        return "libhcomm.so";
    std::string dir = self.dli_fname;
    dir.erase(dir.find_last_of('/') == std::string::npos ? 0 : dir.find_last_of('/'));
    return (dir.empty() ? std::string(".") : dir) + "/../libhcomm.so";
}

__attribute__((constructor)) void load_reference()
{
    const std::string ref = reference_path();
    const char *path = ref.c_str();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
        std::fprintf(stderr, "hcts absent-symbol shim: cannot load the reference '%s': %s\n", path, dlerror());
        return;
    }
#define X(name)                                                                                                        \
    if (void *p = dlsym(h, #name))                                                                                     \
        hcts_fwd_##name = p;
#include "forwarded_symbols.inc"
#undef X
}
} // namespace
