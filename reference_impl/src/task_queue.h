// A thread (ThreadHandle) is an in-order task queue, like a stream: *OnThread
// calls enqueue tasks, one worker runs them in order. The first failing task puts
// the queue into an error state (kept for the queue's life, like a stream
// exception); later tasks are skipped, never run.
//
// Transfers are pipelined: a task may leave RDMA work in flight past its own end
// (in_flight()); a failed completion then fails the queue like a failed task. The
// next task waits for that work first unless it may overlap it (Overlap), so only
// writes on one QP (RC keeps their order) and channel waits (no bytes move) run
// alongside it. wait_done() counts a task done once its work in flight is too.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fifo.h"
#include "hccl/hccl_types.h"
#include "inline_function.h"
#include "socket.h"

namespace hcomm_ref {

// What the worker does when it runs out of tasks, before it sleeps: for `time` it
// keeps calling `poll` (which hears completions on the caller's thread), between
// `begin` and `end`, and takes a task that comes meanwhile without being woken.
// Each sleep costs a wake-up later, and the launcher's next tasks usually come
// within microseconds of its last. Empty or zero time: the worker sleeps at once.
struct WorkerLinger {
    std::chrono::microseconds time{0};
    std::function<void()> begin;
    std::function<void()> poll;
    std::function<void()> end;
};

class TaskQueue {
  public:
    // Room for a transfer's task (its channel, both addresses, length and notify)
    // without an allocation.
    using Task = InlineFunction<HcclResult(), 64>;
    using ErrorHook = std::function<void(HcclResult)>;
    // What a task may run alongside, of the work earlier tasks left in flight:
    // nothing (kDrain, the default: the worker waits for all of it first),
    // everything (kOverlapAll: the task moves no bytes), or the work on one QP
    // (any other value: the RcLink the task posts to, which keeps RC order).
    using Overlap = const void *;
    static constexpr Overlap kDrain = nullptr;
    static const Overlap kOverlapAll;
    // Called exactly once when a transfer left in flight has completed, with its
    // status. Room for a Completion and what the caller counts beside it.
    using Retire = InlineFunction<void(HcclResult), 64>;
    class Completion;
    using Linger = WorkerLinger;

    // `before_sleep`: called on the worker, outside the lock, before it sleeps while
    // transfers are in flight (idle, or waiting for them), so their completions are
    // heard at once (the comm arms CQs a poller left unarmed).
    TaskQueue(int64_t rank, std::string name, ErrorHook on_error, std::function<void()> before_sleep = {},
              Linger linger = {});
    // The worker's destruction asks it to stop: it skips what is still queued
    // and is joined (the running task must end: waits observe the comm's cancel flag).
    // Completions of transfers still in flight are ignored from here on.
    ~TaskQueue();
    TaskQueue(const TaskQueue &) = delete;
    TaskQueue &operator=(const TaskQueue &) = delete;

    // Stops the worker and joins it, whoever else still holds the queue: what is
    // queued is skipped and counted failed (HCCL_E_INTERNAL), the running task
    // ends (its waits observe the comm's cancel flag). Idempotent. After it, an
    // enqueued task is never run: it completes at once as failed. The comm's
    // destruction calls it so that no task outlives the comm it points into.
    void shutdown();

    // Returns the task's sequence number (1, 2, ...).
    uint64_t enqueue(Task task, Overlap overlap = kDrain);
    uint64_t enqueued() const;
    // Blocks until every task up to `sequence` has run or been skipped; false on deadline.
    bool wait_done(uint64_t sequence, std::optional<Deadline> deadline) const;
    // HCCL_SUCCESS or the first task failure.
    HcclResult error() const;
    // Diagnostics for tests: how many wait_done callers sleep now, and how often they
    // were woken (once per reached target, not once per task: decision 8).
    size_t waiters() const;
    uint64_t waiter_wakeups() const;
    const std::string &name() const { return name_; }
    // On a worker, while it runs a task: how many tasks wait behind it (0 elsewhere).
    static size_t current_backlog();
    // On a worker: the queue it serves (null elsewhere). Only mutants ask.
    static const TaskQueue *current();
    // On a worker, while it runs a task: registers one transfer on `link` that the
    // task leaves in flight and returns what its completion must call. Empty
    // elsewhere (the caller then waits for its transfer itself). Work in flight on
    // another QP is waited for first: no order holds between two QPs.
    static Completion in_flight(const void *link);

  private:
    void run(std::stop_token stop);
    void retire(uint64_t sequence, HcclResult result);
    // The first failure of the queue: logged, counted, kept. Under mutex_.
    void fail_locked(uint64_t sequence, HcclResult result);
    // Task sequence -> its transfers in flight, ascending by sequence. A few entries at
    // most (tasks run in order), so a vector that keeps its capacity: no allocation per
    // transfer, as a map's node was.
    using OpenTransfers = std::vector<std::pair<uint64_t, uint32_t>>;
    // open_'s entry for `sequence`, or where it would go. Under mutex_.
    OpenTransfers::iterator find_open_locked(uint64_t sequence);
    // One more transfer of task `sequence` in flight. Under mutex_.
    void open_transfer_locked(uint64_t sequence);
    // Whether every task up to `sequence` has run and its work in flight completed.
    bool done_locked(uint64_t sequence) const;
    // Wakes the waiters of wait_done once when targets are reached (not at every task).
    void wake_waiters_locked();
    // Waits (on the worker) until no work is in flight that `overlap` may not run alongside.
    bool drain_locked(std::unique_lock<std::mutex> &lock, std::stop_token stop, Overlap overlap);
    // Calls before_sleep_ (unlocked) when transfers are in flight, or `always`.
    void before_sleep_locked(std::unique_lock<std::mutex> &lock, bool always = false);
    // With the queue empty: polls (unlocked) for linger_.time or until a task comes.
    // False if the queue has no Linger.
    bool linger_locked(std::unique_lock<std::mutex> &lock, std::stop_token stop);

    const int64_t rank_;
    const std::string name_;
    ErrorHook on_error_;
    std::function<void()> before_sleep_;
    Linger linger_;
    mutable std::mutex mutex_;
    std::condition_variable_any work_; // also woken by a stop request
    mutable std::condition_variable done_;
    struct Queued {
        Task task;
        Overlap overlap;
    };
    Fifo<Queued> tasks_;
    std::atomic<size_t> queued_{0}; // tasks_.size(), for the lingering worker to read unlocked
    uint64_t enqueued_ = 0;
    uint64_t completed_ = 0;
    HcclResult error_ = HCCL_SUCCESS;
    OpenTransfers open_;
    uint64_t open_count_ = 0;                 // transfers in flight in all
    const void *open_link_ = nullptr;         // their QP (one at a time: in_flight)
    mutable std::multiset<uint64_t> targets_; // sequences that wait_done callers wait for
    uint64_t notified_through_ = 0;           // the farthest target whose waiters were woken
    uint64_t wakeups_ = 0;                    // times done_ was notified
    bool draining_ = false;                   // the worker waits for open_count_ == 0
    bool stopped_ = false;                    // the worker has returned: nothing will run again
    // What a completion reaches the queue through: cleared (under its mutex) when the
    // queue goes, so a late completion never touches a destroyed queue, and never
    // destroys one either (the progress thread must not join a worker).
    struct Anchor {
        explicit Anchor(TaskQueue *q) : queue(q) {}
        std::mutex mutex;
        TaskQueue *queue;
    };
    std::shared_ptr<Anchor> anchor_;

  public:
    // What in_flight() returns: call it exactly once, with the transfer's status,
    // on any thread. A plain type rather than a Retire, so that a caller can wrap it
    // in a Retire of its own without an allocation. Empty: nothing was registered.
    class Completion {
      public:
        Completion() = default;
        explicit operator bool() const { return anchor_ != nullptr; }
        void operator()(HcclResult result) const;

      private:
        friend class TaskQueue;
        Completion(std::shared_ptr<Anchor> anchor, uint64_t sequence) : anchor_(std::move(anchor)), sequence_(sequence)
        {
        }
        std::shared_ptr<Anchor> anchor_;
        uint64_t sequence_ = 0;
    };

  private:
    std::mutex shutdown_mutex_; // one joiner of worker_ at a time
    std::jthread worker_;       // last: stopped and joined before the rest goes
};

} // namespace hcomm_ref
