// A thread (ThreadHandle) is an in-order task queue, like a stream: *OnThread
// calls enqueue tasks, one worker runs them in order. The first failing task puts
// the queue into an error state (kept for the queue's life, like a stream
// exception); later tasks are skipped, never run.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "hccl/hccl_types.h"
#include "socket.h"

namespace hcomm_ref {

class TaskQueue {
  public:
    using Task = std::function<HcclResult()>;
    using ErrorHook = std::function<void(HcclResult)>;

    TaskQueue(int64_t rank, std::string name, ErrorHook on_error);
    // The worker's destruction asks it to stop: it skips what is still queued
    // and is joined (the running task must end: waits observe the comm's cancel flag).
    ~TaskQueue() = default;
    TaskQueue(const TaskQueue &) = delete;
    TaskQueue &operator=(const TaskQueue &) = delete;

    // Stops the worker and joins it, whoever else still holds the queue: what is
    // queued is skipped and counted failed (HCCL_E_INTERNAL), the running task
    // ends (its waits observe the comm's cancel flag). Idempotent. After it, an
    // enqueued task is never run: it completes at once as failed. The comm's
    // destruction calls it so that no task outlives the comm it points into.
    void shutdown();

    // Returns the task's sequence number (1, 2, ...).
    uint64_t enqueue(Task task);
    uint64_t enqueued() const;
    // Blocks until every task up to `sequence` has run or been skipped; false on deadline.
    bool wait_done(uint64_t sequence, std::optional<Deadline> deadline) const;
    // HCCL_SUCCESS or the first task failure.
    HcclResult error() const;
    const std::string &name() const { return name_; }
    // On a worker, while it runs a task: how many tasks wait behind it (0 elsewhere).
    static size_t current_backlog();

  private:
    void run(std::stop_token stop);

    const int64_t rank_;
    const std::string name_;
    ErrorHook on_error_;
    mutable std::mutex mutex_;
    std::condition_variable_any work_; // also woken by a stop request
    mutable std::condition_variable done_;
    std::deque<Task> tasks_;
    uint64_t enqueued_ = 0;
    uint64_t completed_ = 0;
    HcclResult error_ = HCCL_SUCCESS;
    bool stopped_ = false;      // the worker has returned: nothing will run again
    std::mutex shutdown_mutex_; // one joiner of worker_ at a time
    std::jthread worker_;       // last: stopped and joined before the rest goes
};

} // namespace hcomm_ref
