#include "hcts/core/host_programs.h"

#include <dlfcn.h>

#include <stdexcept>

namespace hcts {

std::unique_ptr<HostPrograms> HostPrograms::open(const std::string &path)
{
    // RTLD_LOCAL: the programs' own symbols stay out of the way; their weak hcomm
    // references bind to the IUT, which the suite loaded RTLD_GLOBAL.
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
        throw std::runtime_error("cannot load the device programs '" + path + "': " + dlerror());
    std::unique_ptr<HostPrograms> p(new HostPrograms());
    p->handle_ = handle;
    p->path_ = path;
    return p;
}

uint32_t HostPrograms::run(std::string_view program, void *args) const
{
    const std::string symbol = "hcts_prog_" + std::string(program);
    auto fn = reinterpret_cast<uint32_t (*)(void *)>(dlsym(handle_, symbol.c_str()));
    if (fn == nullptr)
        throw std::invalid_argument("'" + path_ + "' has no program " + symbol);
    return fn(args);
}

} // namespace hcts
