// hcomm_driver.h: the Driver over an hcomm library loaded with dlopen (the
// reference libhcomm.so, a deliberately wrong IUT, or a vendor library).
// All ranks live in this process, one communicator each, unless onlyRank is
// set (MPI). Device-side calls are one device program (programs/prop_program.h)
// launched through the conformance adapter when one is given (any IUT), else
// through the reference extension HcommRefDeviceLaunch.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "hccl/hccl_types.h"

#include "driver/driver.h"

namespace hcts::prop {

struct HcommDriverOptions {
  std::string library;              // empty: HCTS_REFERENCE_LIB (the reference built in this tree)
  std::string programs;             // empty: HCTS_PROPERTY_PROGRAMS_LIB (host build of the device program)
  std::string adapter;              // conformance adapter (hcts_adapter.h); empty: HcommRefDeviceLaunch
  uint32_t launchSlackMs = 10000;   // added to every device launch's deadline
  // Under MPI each process owns one rank: onlyRank is it (-1: every rank in
  // this process), and shareRootInfo hands rank 0's HcclRootInfo to the others
  // (called on every process during reset, after rank 0 filled it in).
  int32_t onlyRank = -1;
  std::function<void(HcclRootInfo &)> shareRootInfo;
};

struct HcommDriverInfo {
  std::string library;  // resolved path
  std::string name;     // "reference" or the file name
  std::string product;  // from the adapter or HcommRefProductName(), else "unknown"
};

std::unique_ptr<Driver> makeHcommDriver(const HcommDriverOptions &opts);
HcommDriverInfo describeHcommDriver(const Driver &d);

}  // namespace hcts::prop
