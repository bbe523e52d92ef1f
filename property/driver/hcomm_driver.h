// hcomm_driver.h: the Driver over an hcomm library loaded with dlopen (the
// reference libhcomm.so, a deliberately wrong IUT, or a vendor library).
// All ranks live in this process, one communicator each. Device-side calls
// run through HcommRefDeviceLaunch, so the library must export the reference
// extension (hcomm_ref/hcomm_ref.h); a vendor library needs the conformance
// adapter instead (not wired yet, see README).
#pragma once

#include <memory>
#include <string>

#include "driver/driver.h"

namespace hcts::prop {

struct HcommDriverOptions {
  std::string library;              // empty: HCTS_REFERENCE_LIB (the reference built in this tree)
  uint32_t launchSlackMs = 10000;   // added to every device launch's deadline
};

struct HcommDriverInfo {
  std::string library;  // resolved path
  std::string name;     // "reference" or the file name
  std::string product;  // HcommRefProductName(), or "unknown"
};

std::unique_ptr<Driver> makeHcommDriver(const HcommDriverOptions &opts);
HcommDriverInfo describeHcommDriver(const Driver &d);

}  // namespace hcts::prop
