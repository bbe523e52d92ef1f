// The host build of the device programs (libhcts_programs.so, contract 3), run
// in the calling host thread: the same script a device launch runs, made from
// the host side (the side Atlas 350 must refuse). Load it after the IUT
// (hcts::Library::open), so its hcomm calls bind to that library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hcts/core/shared_object.h"

namespace hcts {

class HostPrograms {
  public:
    // Throws std::runtime_error naming the path and what is wrong.
    static std::unique_ptr<HostPrograms> open(const std::string &path);
    // Runs hcts_prog_<program>(args) here; throws std::invalid_argument for a
    // program the library does not have.
    uint32_t run(std::string_view program, void *args) const;

  private:
    HostPrograms() = default;
    detail::SharedObject so_;
};

} // namespace hcts
