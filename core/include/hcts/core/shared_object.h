// A shared library the suite loads by path (the IUT, an adapter, the device
// programs): opened once, never closed (its threads and callbacks may outlive
// any object here), identified by path and SHA-256. The core's loaders hold one.
#pragma once

#include <string>
#include <string_view>

namespace hcts::detail {

struct SharedObject {
    enum class Scope { Local, Global }; // Global: later loads bind to its symbols
    // Throws std::runtime_error "cannot load the <what> '<path>': <dlerror>".
    static SharedObject open(const std::string &path, Scope scope, std::string_view what);
    void *symbol(const char *name) const;

    void *handle = nullptr;
    std::string path;
    std::string sha256;
};

} // namespace hcts::detail
