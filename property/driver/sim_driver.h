// sim_driver.h: an in-memory implementation of the Driver contract with
// immediate delivery and binary notifies. It is not hcomm: it exists so that
// the property machine, its shrinking and its reporting can be tested without
// a network stack, and so that each fault can be injected deterministically.
#pragma once

#include <memory>

#include "driver/driver.h"

namespace hcts::prop {

enum class SimFault {
    None,
    NotifyBeforeData, // the notify is raised before the payload lands
    IndexOffByOne,    // notify index == notifyNum is accepted
    HostAccepted,     // a WWN from the host is accepted and executed
};

std::unique_ptr<Driver> make_sim_driver(SimFault fault = SimFault::None);

} // namespace hcts::prop
