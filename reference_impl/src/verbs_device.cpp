#include "verbs_device.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "env.h"
#include "log.h"

namespace hcomm_ref {

std::unique_ptr<VerbsDevice> VerbsDevice::open(int64_t rank, HcclResult &error)
{
    error = HCCL_E_DRV;
    int count = 0;
    ibv_device **list = ibv_get_device_list(&count);
    if (list == nullptr || count == 0) {
        HREF_LOG_ERROR(rank, "no verbs device (ibv_get_device_list: ", list == nullptr ? std::strerror(errno) : "empty",
                       "); on a host without RDMA run with softverbs on LD_LIBRARY_PATH");
        if (list != nullptr)
            ibv_free_device_list(list);
        return nullptr;
    }
    const std::string wanted = env::ib_device_name();
    ibv_device *chosen = nullptr;
    for (int i = 0; i < count && chosen == nullptr; ++i) {
        if (wanted.empty() || wanted == ibv_get_device_name(list[i]))
            chosen = list[i];
    }
    if (chosen == nullptr) {
        HREF_LOG_ERROR(rank, "HCOMM_REF_IB_DEV='", wanted, "' names no verbs device");
        ibv_free_device_list(list);
        return nullptr;
    }
    std::unique_ptr<VerbsDevice> dev(new VerbsDevice(rank));
    dev->context_ = ibv_open_device(chosen);
    ibv_free_device_list(list);
    if (dev->context_ == nullptr) {
        HREF_LOG_ERROR(rank, "ibv_open_device failed: ", std::strerror(errno));
        return nullptr;
    }
    ibv_device_attr attr{};
    if (ibv_query_device(dev->context_, &attr) != 0 ||
        ibv_query_port(dev->context_, dev->port_num(), &dev->port_) != 0 ||
        ibv_query_gid(dev->context_, dev->port_num(), dev->gid_index(), &dev->gid_) != 0) {
        HREF_LOG_ERROR(rank, "querying the verbs device failed: ", std::strerror(errno));
        return nullptr;
    }
    dev->max_message_ = dev->port_.max_msg_sz != 0 ? dev->port_.max_msg_sz : (1ULL << 30);
    dev->max_qp_wr_ = static_cast<uint32_t>(attr.max_qp_wr > 0 ? attr.max_qp_wr : 64);
    dev->max_rd_atomic_ = static_cast<uint8_t>(std::clamp(attr.max_qp_rd_atom, 1, 16));
    dev->pd_ = ibv_alloc_pd(dev->context_);
    dev->channel_ = ibv_create_comp_channel(dev->context_);
    dev->stop_ = Fd(eventfd(0, EFD_CLOEXEC));
    if (dev->pd_ == nullptr || dev->channel_ == nullptr || !dev->stop_.valid()) {
        HREF_LOG_ERROR(rank, "allocating a PD or completion channel failed: ", std::strerror(errno));
        return nullptr;
    }
    try {
        dev->progress_ =
            std::thread([raw = dev.get()] { run_quietly("the verbs progress thread", [raw] { raw->progress(); }); });
    } catch (const std::system_error &e) { // no more threads (RLIMIT_NPROC, memory)
        HREF_LOG_ERROR(rank, "cannot start the verbs progress thread: ", e.code().message());
        error = HCCL_E_UNAVAIL;
        return nullptr;
    }
    HREF_LOG_INFO(rank, "verbs device ", ibv_get_device_name(dev->context_->device), " max_msg_sz ", dev->max_message_,
                  " max_qp_wr ", dev->max_qp_wr_);
    error = HCCL_SUCCESS;
    return dev;
}

VerbsDevice::~VerbsDevice()
{
    if (progress_.joinable()) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = write(stop_.get(), &one, sizeof(one));
        join_quietly(progress_, "the verbs progress thread");
    }
    if (channel_ != nullptr)
        ibv_destroy_comp_channel(channel_);
    if (pd_ != nullptr)
        ibv_dealloc_pd(pd_);
    if (context_ != nullptr)
        ibv_close_device(context_);
}

ibv_cq *VerbsDevice::create_cq(int entries, CompletionSink *sink)
{
    ibv_cq *cq = ibv_create_cq(context_, entries, sink, channel_, 0);
    if (cq != nullptr && ibv_req_notify_cq(cq, 0) != 0) {
        ibv_destroy_cq(cq);
        return nullptr;
    }
    if (cq != nullptr) {
        std::lock_guard lock(dispatch_);
        cqs_.emplace_back(cq, sink);
    }
    return cq;
}

int VerbsDevice::poll_batch(ibv_cq *cq, CompletionSink *sink)
{
    ibv_wc wcs[16];
    const int n = ibv_poll_cq(cq, 16, wcs);
    for (int i = 0; i < n; ++i)
        sink->on_completion(wcs[i]);
    return n;
}

void VerbsDevice::drain(ibv_cq *cq, CompletionSink *sink)
{
    while (poll_batch(cq, sink) > 0) {
    }
}

void VerbsDevice::arm_locked(ibv_cq *cq, CompletionSink *sink)
{
    const auto it = std::find_if(unarmed_.begin(), unarmed_.end(), [&](const auto &e) { return e.first == cq; });
    if (it == unarmed_.end())
        return; // armed: the progress thread hears of the next completion
    unarmed_.erase(it);
    ibv_req_notify_cq(cq, 0);
    drain(cq, sink); // what came before the arm raised no event
}

void VerbsDevice::forget_locked(ibv_cq *cq)
{
    std::erase_if(unarmed_, [&](const auto &e) { return e.first == cq; });
    std::erase_if(cqs_, [&](const auto &e) { return e.first == cq; });
}

bool VerbsDevice::idle_poll()
{
    std::unique_lock lock(dispatch_, std::try_to_lock);
    if (!lock.owns_lock())
        return false; // the progress thread dispatches: what it finds is delivered by it
    bool any = false;
    for (const auto &[cq, sink] : cqs_)
        any = poll_batch(cq, sink) > 0 || any;
    return any;
}

bool VerbsDevice::arm_unpolled()
{
    std::lock_guard lock(dispatch_);
    return arm_unpolled_locked();
}

bool VerbsDevice::arm_unpolled_locked()
{
    const bool any = !unarmed_.empty();
    for (size_t i = 0; i < unarmed_.size();) {
        const auto [cq, sink] = unarmed_[i];
        if (polled(sink)) {
            ++i;
            continue;
        }
        arm_locked(cq, sink);
    }
    return any;
}

namespace {
// How often the progress thread looks whether a CQ left unarmed for a poller may be
// armed again (its poller went on to other work without sleeping). Each look wakes this
// thread while a waiter busy-polls on a 2-core machine: at 1 ms, 1000 wake-ups a second
// preempted the pollers (hcts-bench 1 MiB stream 24.7-28.5 -> 32.6-33.1 GB/s at 5 ms).
constexpr int kRearmIntervalMs = 5;
} // namespace

void VerbsDevice::progress()
{
    pthread_setname_np(pthread_self(), "href-progress"); // for top -H, perf and gdb
    for (;;) {
        pollfd fds[2] = {{channel_->fd, POLLIN, 0}, {stop_.get(), POLLIN, 0}};
        int timeout = -1;
        {
            std::lock_guard lock(dispatch_);
            arm_unpolled_locked(); // what nobody polls any more; wake again later for the rest
            timeout = unarmed_.empty() ? -1 : kRearmIntervalMs;
        }
        const int rc = poll(fds, 2, timeout);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            HREF_LOG_ERROR(rank_, "poll on the completion channel failed: ", std::strerror(errno));
            return;
        }
        if ((fds[1].revents & POLLIN) != 0) {
            return;
        }
        if ((fds[0].revents & (POLLIN | POLLERR | POLLHUP)) == 0) {
            continue;
        }
        std::lock_guard lock(dispatch_);
        ibv_cq *cq = nullptr;
        void *cq_context = nullptr;
        if (ibv_get_cq_event(channel_, &cq, &cq_context) != 0) {
            continue;
        }
        ibv_ack_cq_events(cq, 1);
        auto *sink = static_cast<CompletionSink *>(cq_context);
        // Re-arm before draining so a completion that lands meanwhile raises a new
        // event, unless a waiter polls the CQ itself: then it stays unarmed until
        // the polling stops (the waiter arms it before it sleeps, or the loop above).
        if (polled(sink)) {
            if (std::none_of(unarmed_.begin(), unarmed_.end(), [&](const auto &e) { return e.first == cq; }))
                unarmed_.emplace_back(cq, sink);
        } else {
            ibv_req_notify_cq(cq, 0);
        }
        drain(cq, sink);
    }
}

} // namespace hcomm_ref
