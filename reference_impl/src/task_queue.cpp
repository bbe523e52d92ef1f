#include "task_queue.h"

#include <hcts/mutant.h>

#include "log.h"

namespace hcomm_ref {

namespace {
// The queue whose worker this OS thread is (null on every other thread).
thread_local const TaskQueue *t_running = nullptr;
} // namespace

size_t TaskQueue::current_backlog()
{
    if (t_running == nullptr)
        return 0;
    std::lock_guard lock(t_running->mutex_);
    return t_running->tasks_.size();
}

TaskQueue::TaskQueue(int64_t rank, std::string name, ErrorHook on_error)
    : rank_(rank), name_(std::move(name)), on_error_(std::move(on_error))
{
    worker_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

void TaskQueue::shutdown()
{
    std::lock_guard once(shutdown_mutex_);
    worker_.request_stop();
    // The worker cannot join itself (a task never destroys its own comm, but be safe).
    if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id())
        worker_.join();
}

uint64_t TaskQueue::enqueue(Task task)
{
    uint64_t sequence = 0;
    {
        std::lock_guard lock(mutex_);
        sequence = ++enqueued_;
        if (stopped_) {
            // The comm is gone: the task would point into freed memory. It fails unrun.
            if (error_ == HCCL_SUCCESS)
                error_ = HCCL_E_INTERNAL;
            ++completed_;
            done_.notify_all();
            return sequence;
        }
        tasks_.push_back(std::move(task));
    }
    work_.notify_one();
    return sequence;
}

uint64_t TaskQueue::enqueued() const
{
    std::lock_guard lock(mutex_);
    return enqueued_;
}

bool TaskQueue::wait_done(uint64_t sequence, std::optional<Deadline> deadline) const
{
    std::unique_lock lock(mutex_);
    const auto ready = [&] { return completed_ >= sequence; };
    if (deadline) {
        return done_.wait_until(lock, *deadline, ready);
    }
    done_.wait(lock, ready);
    return true;
}

HcclResult TaskQueue::error() const
{
    std::lock_guard lock(mutex_);
    return error_;
}

void TaskQueue::run(std::stop_token stop)
{
    t_running = this;
    std::unique_lock lock(mutex_);
    for (;;) {
        work_.wait(lock, stop, [&] { return !tasks_.empty(); });
        if (tasks_.empty()) {
            stopped_ = true; // stopping with nothing left; later enqueues fail at once
            done_.notify_all();
            return;
        }
        Task task = std::move(tasks_.front());
        tasks_.pop_front();
        // Mutant: the error state is not sticky; only the failing task is lost.
        const bool sticky = !hcts::mutant("ref_thread_error_not_sticky");
        const bool skip = (sticky && error_ != HCCL_SUCCESS) || stop.stop_requested();
        // A task skipped because the queue stops (its comm is being destroyed) failed.
        const HcclResult skipped = stop.stop_requested() ? HCCL_E_INTERNAL : HCCL_SUCCESS;
        lock.unlock();
        const HcclResult result = skip ? skipped : task();
        task = nullptr; // release what the task holds outside the lock
        lock.lock();
        if (result != HCCL_SUCCESS && error_ == HCCL_SUCCESS) {
            error_ = result;
            HREF_LOG_ERROR(rank_, "thread ", name_, ": task ", completed_ + 1, " failed with ", result,
                           "; later tasks on this thread will not run");
            if (on_error_) {
                on_error_(result);
            }
        }
        ++completed_;
        done_.notify_all();
    }
}

} // namespace hcomm_ref
