#include "hcts/core/shared_object.h"

#include <dlfcn.h>

#include <stdexcept>

#include "hcts/core/sha256.h"

namespace hcts::detail {

SharedObject SharedObject::open(const std::string &path, Scope scope, std::string_view what)
{
    void *handle = dlopen(path.c_str(), RTLD_NOW | (scope == Scope::Global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (handle == nullptr)
        throw std::runtime_error("cannot load the " + std::string(what) + " '" + path + "': " + dlerror());
    return {handle, path, sha256_of_file(path)};
}

void *SharedObject::symbol(const char *name) const { return dlsym(handle, name); }

} // namespace hcts::detail
