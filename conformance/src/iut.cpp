#include "iut.h"

#include <dlfcn.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace hcts {

namespace {
std::unique_ptr<Iut> g_iut;
}

Iut &Iut::load(const std::string &path)
{
    if (g_iut)
        throw std::logic_error("hcts: the IUT is already loaded from '" + g_iut->path_ + "'");
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr)
        throw std::runtime_error("cannot load the implementation under test '" + path + "': " + dlerror());
    g_iut.reset(new Iut());
    Iut &iut = *g_iut;
    iut.handle_ = handle;
    iut.path_ = path;
    iut.sha256_ = sha256_of_file(path);
#define X(name)                                                                                                        \
    iut.api_.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));                                         \
    if (iut.api_.name == nullptr)                                                                                      \
        iut.missing_.emplace_back(#name);
#include "hcomm_symbols.inc"
#undef X
    return iut;
}

Iut &Iut::get()
{
    if (!g_iut)
        throw std::logic_error("hcts: Iut::get() before Iut::load()");
    return *g_iut;
}

void *Iut::symbol(const char *name) const { return dlsym(handle_, name); }

bool Iut::has(std::string_view name) const
{
    return std::find(missing_.begin(), missing_.end(), name) == missing_.end() && symbol(std::string(name).c_str());
}

std::string sha256_of_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
    std::array<char, 65536> buf{};
    while (in) {
        in.read(buf.data(), buf.size());
        EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx.get(), md.data(), &n);
    std::string hex;
    for (unsigned int i = 0; i < n; ++i) {
        char b[3];
        std::snprintf(b, sizeof b, "%02x", md[i]);
        hex += b;
    }
    return hex;
}

} // namespace hcts
