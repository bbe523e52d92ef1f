#include "hcts/core/host_programs.h"

#include <stdexcept>

namespace hcts {

std::unique_ptr<HostPrograms> HostPrograms::open(const std::string &path)
{
    // RTLD_LOCAL: the programs' own symbols stay out of the way; their weak hcomm
    // references bind to the IUT, which the suite loaded RTLD_GLOBAL.
    std::unique_ptr<HostPrograms> p(new HostPrograms());
    p->so_ = detail::SharedObject::open(path, detail::SharedObject::Scope::Local, "device programs");
    return p;
}

uint32_t HostPrograms::run(std::string_view program, void *args) const
{
    const std::string symbol = "hcts_prog_" + std::string(program);
    auto fn = reinterpret_cast<uint32_t (*)(void *)>(so_.symbol(symbol.c_str()));
    if (fn == nullptr)
        throw std::invalid_argument("'" + so_.path + "' has no program " + symbol);
    return fn(args);
}

} // namespace hcts
