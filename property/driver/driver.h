// driver.h: the narrow interface between the property machine and an
// implementation under test. The same commands run in one process against the
// reference, against a deliberately wrong IUT, against the in-memory simulator,
// or under MPI (where each rank's driver does only its own part).
//
// A driver owns `geometry.ranks` ranks, each with a communication buffer whose
// first geometry.region_bytes() bytes are the region the model tracks (guard,
// window, guard) and whose next geometry.window bytes are scratch for wait
// snapshots. Every rank has a data thread and a wait thread of engine AICPU_TS
// and one thread of a CPU engine (for wrong-engine calls); every pair of ranks
// has a channel with geometry.notify_num notifies.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/op.h"

namespace hcts::prop {

// post_wait() may return this when the call's result is known only once the
// wait finished (an adapter returns the program's results at the end of its
// launch); join() then reports it.
constexpr int32_t kRcPending = INT32_MIN;

struct CallResult {
    int32_t rc = 0;         // what the call returned
    int32_t task_error = 0; // an asynchronous failure of the enqueued task (0: none)
};

struct WaitResult {
    int32_t rc = 0;                // what the wait call returned when it was enqueued
    bool completed = false;        // the notify arrived before the timeout
    std::vector<uint8_t> snapshot; // the waiter's window, copied on the device right after the wait
    std::string detail;            // a failure other than a timeout (a violation when not empty)
};

// Every method throws (std::exception) when the harness cannot do what it
// was asked: build the world, launch, copy device memory. That is no
// observation of the implementation, so a property that meets one ends in
// ERROR, never in a counterexample (machine/properties.cpp).
class Driver {
  public:
    virtual ~Driver() = default;
    virtual std::string name() const = 0;

    // Sets up a fresh world: new ranks, buffers holding Model::initial_region,
    // notifies clear. Throws std::runtime_error when the world cannot be built.
    virtual void reset(const Geometry &g) = 0;

    // Wwn, Write, Read, Record, LocalCopy, Fence: make the call on op.rank and
    // return its result code and any asynchronous failure of its task.
    virtual CallResult call(const Op &op) = 0;

    // Wait: enqueue the wait (and the snapshot copy behind it) and wait for its
    // outcome. PostWait/Join split the same into two steps; at most one wait per
    // rank is posted at a time.
    virtual WaitResult wait(const Op &op) = 0;
    virtual int32_t post_wait(const Op &op) = 0;
    virtual WaitResult join(uint32_t rank) = 0;

    // The suite's own access to communication memory (not through the API under test).
    virtual void write_region(uint32_t rank, uint32_t region_off, std::span<const uint8_t> bytes) = 0;
    virtual std::vector<uint8_t> read_region(uint32_t rank) = 0;
};

} // namespace hcts::prop
