// What case files include: the case declaration, transfers, probes, litmus
// histograms, scoped channels, the world, and the MPI harness's bounded
// barriers and collectives (cases make no MPI call of their own). The suites
// (GoogleTest fixtures) are declared here, once each.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "case.h"
#include "channels.h"
#include "device.h"
#include "hcts/core/library.h"
#include "hcts/core/stamp.h"
#include "hcts/mpi_harness.h"
#include "litmus.h"
#include "options.h"
#include "probes.h"
#include "transfer.h"
#include "world.h"

namespace hcts {
HCTS_SUITE(Visibility);
HCTS_SUITE(Notify);
HCTS_SUITE(Index);
HCTS_SUITE(DeviceOnly);
HCTS_SUITE(Errors);
HCTS_SUITE(Profiles);
HCTS_SUITE(Timeouts);
HCTS_SUITE(Threads);
HCTS_SUITE(Litmus);
HCTS_SUITE(Batch);
HCTS_SUITE(Ordering);
HCTS_SUITE(Lifecycle);
HCTS_SUITE(Big);
HCTS_SUITE(ReadCopy);
HCTS_SUITE(Reduce);
HCTS_SUITE(NbiCalls);
HCTS_SUITE(DataPlaneErrors);
} // namespace hcts
