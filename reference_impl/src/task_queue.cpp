#include "task_queue.h"

#include <pthread.h>

#include <hcts/mutant.h>

#include <algorithm>
#include <chrono>

#include "log.h"

namespace hcomm_ref {

namespace {
// The queue whose worker this OS thread is (null on every other thread), and the
// sequence number of the task it runs.
thread_local TaskQueue *t_running = nullptr;
thread_local uint64_t t_sequence = 0;

// How long the worker waits for earlier transfers before a task that may not
// overlap them. RC retries end in an error completion long before this; it only
// guards against a lost completion.
constexpr auto kDrainDeadline = std::chrono::seconds(120);

const char g_overlap_all = 0;
} // namespace

const TaskQueue::Overlap TaskQueue::kOverlapAll = &g_overlap_all;

size_t TaskQueue::current_backlog()
{
    if (t_running == nullptr)
        return 0;
    std::lock_guard lock(t_running->mutex_);
    return t_running->tasks_.size();
}

const TaskQueue *TaskQueue::current() { return t_running; }

void TaskQueue::Completion::operator()(HcclResult result) const
{
    std::lock_guard hold(anchor_->mutex);
    if (anchor_->queue != nullptr)
        anchor_->queue->retire(sequence_, result);
}

TaskQueue::Completion TaskQueue::in_flight(const void *link)
{
    if (t_running == nullptr)
        return {};
    TaskQueue &q = *t_running;
    const uint64_t sequence = t_sequence;
    {
        std::unique_lock lock(q.mutex_);
        if (q.open_count_ > 0 && q.open_link_ != link) {
            // Work on two QPs at once has no order between them (a batch's entries on
            // two channels): wait for the other QP's first.
            q.before_sleep_locked(lock);
            q.draining_ = true;
            const bool drained = q.work_.wait_until(lock, std::chrono::steady_clock::now() + kDrainDeadline,
                                                    [&] { return q.open_count_ == 0; });
            q.draining_ = false;
            if (!drained)
                return {}; // the caller waits for its own transfer instead
        }
        q.open_transfer_locked(sequence);
        q.open_link_ = link;
        ++q.open_count_;
    }
    return Completion(q.anchor_, sequence);
}

TaskQueue::TaskQueue(int64_t rank, std::string name, ErrorHook on_error, std::function<void()> before_sleep,
                     Linger linger)
    : rank_(rank), name_(std::move(name)), on_error_(std::move(on_error)), before_sleep_(std::move(before_sleep)),
      linger_(std::move(linger)), anchor_(std::make_shared<Anchor>(this))
{
    worker_ = std::jthread([this](std::stop_token stop) {
        if (!run_quietly("a thread's task queue", [&] { run(stop); })) {
            // Stopped as at a destroy: later enqueues fail at once, waiters are woken.
            std::lock_guard lock(mutex_);
            stopped_ = true;
            ++wakeups_;
            done_.notify_all();
        }
    });
}

TaskQueue::~TaskQueue()
{
    std::lock_guard hold(anchor_->mutex);
    anchor_->queue = nullptr;
    // worker_ (the last member) is stopped and joined next: a drain it is in ends at the stop.
}

void TaskQueue::shutdown()
{
    std::lock_guard once(shutdown_mutex_);
    worker_.request_stop();
    // The worker cannot join itself (a task never destroys its own comm, but be safe).
    if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id())
        worker_.join();
}

uint64_t TaskQueue::enqueue(Task task, Overlap overlap)
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
            wake_waiters_locked();
            return sequence;
        }
        tasks_.push_back({std::move(task), overlap});
        queued_.store(tasks_.size(), std::memory_order_release);
    }
    work_.notify_one();
    return sequence;
}

uint64_t TaskQueue::enqueued() const
{
    std::lock_guard lock(mutex_);
    return enqueued_;
}

bool TaskQueue::done_locked(uint64_t sequence) const
{
    return completed_ >= sequence && (open_.empty() || open_.begin()->first > sequence);
}

void TaskQueue::wake_waiters_locked()
{
    // Targets up to notified_through_ were reached and their waiters woken; one that
    // has not left yet (it needs this lock) is not woken again by every later task.
    bool reached = false;
    for (auto next = targets_.upper_bound(notified_through_); next != targets_.end() && done_locked(*next); ++next) {
        notified_through_ = *next;
        reached = true;
    }
    // Mutant: the waiters are woken after every task, reached or not (the hand-off
    // a later design removed); only the queue's own test (reference_task_queue) sees it.
    const bool every_task = hcts::mutant("ref_waiters_woken_per_task");
    if (reached || (!targets_.empty() && (every_task || stopped_))) {
        ++wakeups_;
        done_.notify_all();
    }
}

size_t TaskQueue::waiters() const
{
    std::lock_guard lock(mutex_);
    return targets_.size();
}

uint64_t TaskQueue::waiter_wakeups() const
{
    std::lock_guard lock(mutex_);
    return wakeups_;
}

bool TaskQueue::wait_done(uint64_t sequence, std::optional<Deadline> deadline) const
{
    std::unique_lock lock(mutex_);
    // The waiter is woken once, when the nearest target is reached (wake_waiters_locked).
    const auto target = targets_.insert(sequence);
    const auto ready = [&] {
        // A stopped queue's work in flight was cancelled with its comm's links.
        return done_locked(sequence) || (stopped_ && completed_ >= sequence);
    };
    bool reached = true;
    if (deadline)
        reached = done_.wait_until(lock, *deadline, ready);
    else
        done_.wait(lock, ready);
    targets_.erase(target);
    // A nearer target that was reached meanwhile has woken every waiter; a farther one
    // still sleeps, which is right.
    return reached;
}

HcclResult TaskQueue::error() const
{
    std::lock_guard lock(mutex_);
    return error_;
}

void TaskQueue::fail_locked(uint64_t sequence, HcclResult result)
{
    if (result == HCCL_SUCCESS || error_ != HCCL_SUCCESS)
        return;
    error_ = result;
    HREF_LOG_ERROR(rank_, "thread ", name_, ": task ", sequence, " failed with ", result,
                   "; later tasks on this thread will not run");
    if (on_error_)
        on_error_(result);
}

TaskQueue::OpenTransfers::iterator TaskQueue::find_open_locked(uint64_t sequence)
{
    return std::lower_bound(open_.begin(), open_.end(), sequence,
                            [](const auto &entry, uint64_t s) { return entry.first < s; });
}

void TaskQueue::open_transfer_locked(uint64_t sequence)
{
    const auto it = find_open_locked(sequence);
    if (it != open_.end() && it->first == sequence)
        ++it->second;
    else
        open_.insert(it, {sequence, 1}); // at the end: tasks run in sequence order
}

void TaskQueue::retire(uint64_t sequence, HcclResult result)
{
    {
        std::lock_guard lock(mutex_);
        if (const auto it = find_open_locked(sequence); it != open_.end() && it->first == sequence && --it->second == 0)
            open_.erase(it);
        if (open_count_ > 0 && --open_count_ == 0)
            open_link_ = nullptr;
        // A failed transfer fails the thread as a failed task would (decision 6).
        fail_locked(sequence, result);
        if (draining_ && (open_count_ == 0 || result != HCCL_SUCCESS))
            work_.notify_all();
        wake_waiters_locked();
    }
}

bool TaskQueue::drain_locked(std::unique_lock<std::mutex> &lock, std::stop_token stop, Overlap overlap)
{
    const auto may_run = [&] {
        return open_count_ == 0 || overlap == kOverlapAll || (overlap != kDrain && overlap == open_link_);
    };
    if (may_run())
        return true;
    before_sleep_locked(lock);
    draining_ = true;
    const bool drained =
        work_.wait_until(lock, stop, std::chrono::steady_clock::now() + kDrainDeadline, [&] { return may_run(); });
    draining_ = false;
    return drained;
}

void TaskQueue::before_sleep_locked(std::unique_lock<std::mutex> &lock, bool always)
{
    if ((open_count_ == 0 && !always) || !before_sleep_)
        return;
    lock.unlock(); // the hook takes the device's dispatch lock, under which completions take ours
    before_sleep_();
    lock.lock();
}

bool TaskQueue::linger_locked(std::unique_lock<std::mutex> &lock, std::stop_token stop)
{
    if (linger_.time.count() <= 0 || !linger_.poll)
        return false;
    lock.unlock(); // completions that poll() hears retire under this lock
    if (linger_.begin)
        linger_.begin();
    const auto end = std::chrono::steady_clock::now() + linger_.time;
    // The clock is read every 16th turn: a turn is a fraction of a microsecond.
    for (uint32_t turn = 1; queued_.load(std::memory_order_acquire) == 0 && !stop.stop_requested(); ++turn) {
        linger_.poll();
        if (turn % 16 == 0 && std::chrono::steady_clock::now() >= end)
            break;
    }
    if (linger_.end)
        linger_.end();
    lock.lock();
    return true;
}

void TaskQueue::run(std::stop_token stop)
{
    t_running = this;
    // "href-w" and the thread's name (r<rank>.t<n>), cut to the 15 bytes Linux keeps: for top -H, perf and gdb.
    pthread_setname_np(pthread_self(), ("href-w" + name_).substr(0, 15).c_str());
    std::unique_lock lock(mutex_);
    for (;;) {
        if (tasks_.empty()) {
            // CQs left unarmed while the worker lingered are armed for whoever sleeps now.
            const bool lingered = linger_locked(lock, stop);
            if (tasks_.empty())
                before_sleep_locked(lock, lingered);
        }
        work_.wait(lock, stop, [&] { return !tasks_.empty(); });
        if (tasks_.empty()) {
            stopped_ = true; // stopping with nothing left; later enqueues fail at once
            ++wakeups_;
            done_.notify_all();
            return;
        }
        Queued next = std::move(tasks_.front());
        tasks_.pop_front();
        queued_.store(tasks_.size(), std::memory_order_release);
        const uint64_t sequence = completed_ + 1;
        // Mutant: the error state is not sticky; only the failing task is lost.
        const bool sticky = !hcts::mutant("ref_thread_error_not_sticky");
        bool skip = (sticky && error_ != HCCL_SUCCESS) || stop.stop_requested();
        HcclResult drain_failure = HCCL_SUCCESS;
        if (!skip && !drain_locked(lock, stop, next.overlap)) {
            // Earlier transfers neither completed nor failed in time (or the queue stops).
            drain_failure = stop.stop_requested() ? HCCL_E_INTERNAL : HCCL_E_TIMEOUT;
            skip = true;
        }
        // A transfer that failed while this task waited for it fails the thread first.
        skip = skip || (sticky && error_ != HCCL_SUCCESS);
        // A task skipped because the queue stops (its comm is being destroyed) failed.
        const HcclResult skipped = drain_failure != HCCL_SUCCESS ? drain_failure
                                   : stop.stop_requested()       ? HCCL_E_INTERNAL
                                                                 : HCCL_SUCCESS;
        lock.unlock();
        t_sequence = sequence;
        const HcclResult result = skip ? skipped : next.task();
        next.task = nullptr; // release what the task holds outside the lock
        lock.lock();
        fail_locked(sequence, result);
        ++completed_;
        wake_waiters_locked();
    }
}

} // namespace hcomm_ref
