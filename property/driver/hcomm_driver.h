// hcomm_driver.h: the Driver over an implementation under test loaded by core's
// loader (hcts::Library: the reference libhcomm.so, a deliberately wrong IUT or
// a vendor library). Every device-side call is the suite's one device program,
// hcts_prog_ops (core/abi/hcts_programs.h), run through the platform adapter
// (hcts::Adapter), which also reads and writes device memory. All ranks live in
// this process, one communicator each, unless only_rank is set (MPI).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "hccl/hccl_types.h"

#include "driver/driver.h"

namespace hcts {
class Adapter;
class Library;
} // namespace hcts

namespace hcts::prop {

struct HcommDriverOptions {
    const Library *iut = nullptr;     // loaded first (RTLD_GLOBAL); outlives the driver
    const Adapter *adapter = nullptr; // device launches and device memory; outlives the driver
    std::string programs;             // libhcts_programs.so: host-side calls run its hcts_prog_ops on the host
    // The IUT's wait timeout unit: stated (--timeout-unit), or nullopt to measure
    // it at the first reset (a wait with timeOut 1 on a notify nobody raises).
    std::optional<bool> timeout_in_seconds;
    uint32_t launch_slack_ms = 10000; // added to every device launch's deadline
    // Under MPI each process owns one rank: only_rank is it (-1: every rank in
    // this process), and share_root_info hands rank 0's HcclRootInfo to the others
    // (called on every process during reset, after rank 0 filled it in).
    int32_t only_rank = -1;
    std::function<void(HcclRootInfo &)> share_root_info;
};

class HcommDriver : public Driver {
  public:
    // The wait timeout unit in use (measured at the first reset unless stated),
    // and how it was decided, e.g. "measured: a wait with timeOut 1 ended after 1.2 ms".
    virtual std::optional<bool> timeout_in_seconds() const = 0;
    virtual std::string timeout_unit_note() const = 0;
};

// The hcomm calls the driver needs; throws std::runtime_error naming the ones
// the IUT lacks. Sets nothing up: reset() builds the world.
std::unique_ptr<HcommDriver> make_hcomm_driver(const HcommDriverOptions &opts);

} // namespace hcts::prop
