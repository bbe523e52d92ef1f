// forward.h: helpers for the deliberately wrong IUTs. Each is a shared library
// that depends on the reference libhcomm.so and overrides one symbol; dlopen of
// the shim resolves that symbol in the shim and everything else in the
// reference, and the shim reaches the real function with RTLD_NEXT.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace hcts::prop::faulty {

template <typename Fn>
Fn next(const char *name) {
  void *sym = ::dlsym(RTLD_NEXT, name);
  if (!sym) {
    std::fprintf(stderr, "faulty IUT: %s not found behind the shim\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

}  // namespace hcts::prop::faulty
