// Completion queues, completion channels (a real pollable fd per channel) and
// the ibv_cq_ex polling interface.
#include "sv.h"

#include <hcts/mutant.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sv {

Cq *to_cq(ibv_cq *cq) { return reinterpret_cast<Cq *>(cq); }

void cq_push_locked(Cq *cq, const Cqe &e)
{
    if (static_cast<int>(cq->q.size()) >= cq->capacity) {
        if (!cq->overflowed && !hcts::mutant("sv_cq_overflow_silent")) { // Mutant: no CQ error event.
            cq->overflowed = true;
            ibv_async_event ev{};
            ev.element.cq = ibv_cq_ex_to_cq(&cq->cqx);
            ev.event_type = IBV_EVENT_CQ_ERR;
            post_async_locked(to_ctx(cq->cqx.context), ev);
            log(1, "CQ %p overrun (capacity %d)", static_cast<void *>(cq), cq->capacity);
        }
        return;
    }
    cq->q.push_back(e);
    cq->count.store(cq->q.size(), std::memory_order_release);
    bool solicited = e.wc.wc_flags & IBV_WC_WITH_IMM; // we treat every IMM as solicited-worthy
    if (cq->armed && (!cq->solicited_only || solicited || e.wc.status != IBV_WC_SUCCESS)) {
        cq->armed = false;
        if (auto *ch = cq->cqx.channel) {
            auto *c = reinterpret_cast<Channel *>(ch);
            c->events.push_back(cq);
            uint64_t one = 1;
            if (write(c->efd, &one, sizeof one) != sizeof one)
                log(1, "channel eventfd write failed: %s", std::strerror(errno));
        }
    }
}

namespace {

void release_locked(const Cqe &e)
{
    if (e.sq_free && e.qp && !e.qp->dead) {
        // Mutant: only the signaled WQE's own slot is released, not the unsignaled ones before it.
        e.qp->sq_used -= hcts::mutant("sv_sq_slots_leak") ? 1 : e.sq_free;
    }
}

// Empty polls in a row by this thread: they pace its yields.
// Unsigned: a program may poll an empty CQ for minutes, and the count wraps (harmlessly).
thread_local uint32_t t_empty_polls = 0;
// Empty polls by this thread since it last armed a CQ or slept on a channel, found work
// or not in between. A thread with a few of them is a spinning poller: it holds the poll
// lease, consumes the same-host rings and reads the TCP-only sockets itself, so peers need
// not wake our shm waiter (see poll_lease_renew). One or two empty polls are not enough: an
// event-driven program polls until empty, arms, polls once more and then sleeps on its
// channel. Not empty polls *in a row*: a program that streams large writes finds its
// completions after a poll or two, every time, and its lease lapsed while it copied; each of
// the peer's replies then woke our shm waiter, which preempted the poller and fought it for
// the lock.
thread_local uint32_t t_idle_polls = 0;
constexpr uint32_t kSpinningPoller = 4;
// A busy poller yields its CPU once every this many empty polls, not at every one:
// sched_yield costs ~1.3 us in this VM, and a poller that yielded at every empty poll
// handed its CPU to its process' other threads at every look (hcts-bench, 8 B
// write-with-notify through the reference: 33-54 us one way and 2.3-4.5 context switches
// per message; 6.6-7.8 us and 0.2 switches at one yield per 64). The count stands for
// time: once an empty poll stopped reading the clock (see kEmptyPollsPerRenewal) it took
// half as long, 64 polls were a few microseconds, and a message that arrived during a
// yield waited for it: raw verbs 64 KiB one way 3.7-3.9 -> 4.3-4.9 us. At 256 (about
// 10 us of polling here) 3.0-3.4 us.
constexpr uint32_t kEmptyPollsPerYield = 256;

// A spinning poller renews its lease at its 4th empty poll and then at every 16th: the
// renewal reads the clock, which took an eighth of a busy poller's time when done at
// every poll, and 16 polls take microseconds against the lease's milliseconds.
constexpr uint32_t kEmptyPollsPerRenewal = 16;

bool spinning_poller() { return t_idle_polls >= kSpinningPoller; }

void polled_empty()
{
    ++t_empty_polls;
    const uint32_t n = ++t_idle_polls;
    if (n >= kSpinningPoller && (n - kSpinningPoller) % kEmptyPollsPerRenewal == 0)
        poller_lease_renew();
}

// Posts by this thread, to pace the lease renewals of a poller that posts.
thread_local uint32_t t_posts = 0;
// A spinning poller renews its lease at every 4th post too: one clock read per four posts,
// each of which takes a microsecond or more.
constexpr uint32_t kPostsPerRenewal = 4;

// The thread is about to sleep on a channel: it is no spinning poller any more.
void stopped_polling_locked()
{
    t_empty_polls = 0;
    t_idle_polls = 0;
    poller_lease_drop_locked();
}

} // namespace

void poller_posted()
{
    if (spinning_poller() && ++t_posts % kPostsPerRenewal == 0)
        poller_lease_renew();
}

namespace {

int poll_cq(ibv_cq *ibcq, int n, ibv_wc *wc)
{
    return guard_minus1("poll_cq", [&]() -> int {
        if (fork_inherited(ibcq->context))
            return -1;
        if (n < 0)
            return -1;
        Cq *cq = to_cq(ibcq);
        if (cq->count.load(std::memory_order_acquire) == 0) {
            // A same-host peer may have put requests or replies into a ring: the poller
            // consumes them itself, without waking another thread.
            if (shm_work_hint()) {
                std::lock_guard lk(G().mu);
                shm_progress_locked();
            }
            // Sockets cost a system call to look at: only a spinning poller reads them.
            if (spinning_poller())
                tcp_progress();
            if (cq->count.load(std::memory_order_acquire) == 0) {
                polled_empty();
                // Busy-polling programs must not starve the progress thread on a 2-core machine.
                if (t_empty_polls % kEmptyPollsPerYield == 0)
                    sched_yield();
                return 0;
            }
        }
        t_empty_polls = 0;
        std::lock_guard lk(G().mu);
        int i = 0;
        for (; i < n && !cq->q.empty(); ++i) {
            wc[i] = cq->q.front().wc;
            release_locked(cq->q.front());
            cq->q.pop_front();
        }
        cq->count.store(cq->q.size(), std::memory_order_release);
        return i;
    });
}

int req_notify_cq(ibv_cq *ibcq, int solicited_only)
{
    return guard_rc("req_notify_cq", [&]() -> int {
        Cq *cq = to_cq(ibcq);
        std::lock_guard lk(G().mu);
        cq->armed = true;
        cq->solicited_only = solicited_only != 0;
        // The program is about to sleep on the channel: the shm waiter takes over at once.
        stopped_polling_locked();
        if (shm_work_hint())
            shm_progress_locked();
        return 0;
    });
}

// ---- ibv_cq_ex ----
Cq *of(ibv_cq_ex *c) { return reinterpret_cast<Cq *>(c); }

int load_next(Cq *cq)
{
    if (cq->q.empty())
        return ENOENT;
    cq->cur = cq->q.front();
    release_locked(cq->cur);
    cq->q.pop_front();
    cq->count.store(cq->q.size(), std::memory_order_release);
    cq->cqx.wr_id = cq->cur.wc.wr_id;
    cq->cqx.status = cq->cur.wc.status;
    return 0;
}

int start_poll(ibv_cq_ex *c, ibv_poll_cq_attr *attr)
{
    if (attr && attr->comp_mask)
        return EINVAL;
    G().mu.lock(); // held until end_poll, as the verbs contract allows
    if (of(c)->q.empty() && shm_work_hint())
        shm_progress_locked();
    if (of(c)->q.empty() && spinning_poller())
        tcp_progress_locked();
    int rc = load_next(of(c));
    if (rc) {
        G().mu.unlock();
        polled_empty();
    } else {
        t_empty_polls = 0;
    }
    return rc;
}
int next_poll(ibv_cq_ex *c) { return load_next(of(c)); }
void end_poll(ibv_cq_ex *) { G().mu.unlock(); }
// Points a read_* slot of ibv_cq_ex at a reader of one field of the current
// completion; the slot's own type says what the reader returns.
template <auto Field, typename R>
void read_field(R (*&slot)(ibv_cq_ex *))
{
    slot = [](ibv_cq_ex *c) -> R { return of(c)->cur.wc.*Field; };
}

constexpr uint64_t kSupportedWcFlags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
                                       IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
                                       IBV_WC_EX_WITH_DLID_PATH_BITS;

Cq *make_cq(ibv_context *ctx, int cqe, void *cq_context, ibv_comp_channel *channel)
{
    if (!ctx || cqe <= 0 || cqe > kMaxCqe) {
        errno = EINVAL;
        return nullptr;
    }
    auto cq = std::make_unique<Cq>();
    cq->capacity = cqe;
    cq->cqx.context = ctx;
    cq->cqx.channel = channel;
    cq->cqx.cq_context = cq_context;
    cq->cqx.cqe = cqe;
    pthread_mutex_init(&cq->cqx.mutex, nullptr);
    pthread_cond_init(&cq->cqx.cond, nullptr);
    if (channel) {
        std::lock_guard lk(G().mu);
        ++channel->refcnt;
    }
    return cq.release();
}

} // namespace

void fill_cq_ops(ibv_context_ops *ops)
{
    ops->poll_cq = poll_cq;
    ops->req_notify_cq = req_notify_cq;
}

ibv_cq_ex *create_cq_ex(ibv_context *ctx, ibv_cq_init_attr_ex *a)
{
    return guard_null("create_cq_ex", [&]() -> ibv_cq_ex * {
        if (!a || (a->wc_flags & ~kSupportedWcFlags) ||
            (a->comp_mask & ~static_cast<uint32_t>(IBV_CQ_INIT_ATTR_MASK_FLAGS))) {
            errno = EOPNOTSUPP;
            return nullptr;
        }
        if (a->comp_vector >= static_cast<uint32_t>(ctx->num_comp_vectors)) { // as ibv_create_cq
            errno = EINVAL;
            return nullptr;
        }
        Cq *cq = make_cq(ctx, static_cast<int>(a->cqe), a->cq_context, a->channel);
        if (!cq)
            return nullptr;
        cq->wc_flags_ex = a->wc_flags;
        ibv_cq_ex &x = cq->cqx;
        x.start_poll = start_poll;
        x.next_poll = next_poll;
        x.end_poll = end_poll;
        read_field<&ibv_wc::opcode>(x.read_opcode);
        read_field<&ibv_wc::vendor_err>(x.read_vendor_err);
        read_field<&ibv_wc::byte_len>(x.read_byte_len);
        read_field<&ibv_wc::imm_data>(x.read_imm_data);
        read_field<&ibv_wc::qp_num>(x.read_qp_num);
        read_field<&ibv_wc::src_qp>(x.read_src_qp);
        read_field<&ibv_wc::wc_flags>(x.read_wc_flags);
        read_field<&ibv_wc::slid>(x.read_slid);
        read_field<&ibv_wc::sl>(x.read_sl);
        read_field<&ibv_wc::dlid_path_bits>(x.read_dlid_path_bits);
        return &x;
    });
}

} // namespace sv

using namespace sv;

extern "C" {

ibv_comp_channel *ibv_create_comp_channel(ibv_context *ctx)
{
    return guard_null("ibv_create_comp_channel", [&]() -> ibv_comp_channel * {
        if (!ctx) {
            errno = EINVAL;
            return nullptr;
        }
        auto c = std::make_unique<Channel>();
        c->efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
        if (c->efd < 0)
            return nullptr;
        c->ch.context = ctx;
        c->ch.fd = c->efd;
        c->ch.refcnt = 0;
        return &c.release()->ch;
    });
}

int ibv_destroy_comp_channel(ibv_comp_channel *ch)
{
    return guard_rc("ibv_destroy_comp_channel", [&]() -> int {
        if (ch && fork_inherited(ch->context))
            return EPERM;
        if (!ch)
            return EINVAL;
        {
            std::lock_guard lk(G().mu);
            if (ch->refcnt)
                return EBUSY;
        }
        std::unique_ptr<Channel> c(reinterpret_cast<Channel *>(ch));
        close(c->efd);
        return 0;
    });
}

ibv_cq *ibv_create_cq(ibv_context *ctx, int cqe, void *cq_context, ibv_comp_channel *channel, int comp_vector)
{
    return guard_null("ibv_create_cq", [&]() -> ibv_cq * {
        if (comp_vector < 0 || comp_vector >= 1) {
            errno = EINVAL;
            return nullptr;
        }
        ibv_cq_init_attr_ex a{};
        a.cqe = static_cast<uint32_t>(cqe);
        a.cq_context = cq_context;
        a.channel = channel;
        ibv_cq_ex *x = create_cq_ex(ctx, &a);
        return x ? ibv_cq_ex_to_cq(x) : nullptr;
    });
}

int ibv_resize_cq(ibv_cq *ibcq, int cqe)
{
    return guard_rc("ibv_resize_cq", [&]() -> int {
        Cq *cq = to_cq(ibcq);
        std::lock_guard lk(G().mu);
        if (cqe <= 0 || cqe > kMaxCqe || cqe < static_cast<int>(cq->q.size()))
            return EINVAL;
        cq->capacity = cqe;
        cq->cqx.cqe = cqe;
        return 0;
    });
}

int ibv_destroy_cq(ibv_cq *ibcq)
{
    return guard_rc("ibv_destroy_cq", [&]() -> int {
        if (ibcq && fork_inherited(ibcq->context))
            return EPERM;
        if (!ibcq)
            return EINVAL;
        Cq *cq = to_cq(ibcq);
        std::unique_lock lk(G().mu);
        for (auto &[n, qp] : G().qps)
            if (qp->scq == cq || qp->rcq == cq)
                return EBUSY;
        if (auto *ch = cq->cqx.channel) {
            --ch->refcnt;
            auto &ev = reinterpret_cast<Channel *>(ch)->events;
            for (auto it = ev.begin(); it != ev.end();)
                it = *it == cq ? ev.erase(it) : it + 1;
        }
        lk.unlock();
        pthread_mutex_destroy(&cq->cqx.mutex);
        pthread_cond_destroy(&cq->cqx.cond);
        std::unique_ptr<Cq> owned(cq);
        return 0;
    });
}

int ibv_get_cq_event(ibv_comp_channel *ch, ibv_cq **cq, void **cq_context)
{
    return guard_minus1("ibv_get_cq_event", [&]() -> int {
        if (ch && fork_inherited(ch->context))
            return -1;
        auto *c = reinterpret_cast<Channel *>(ch);
        uint64_t v = 0;
        {
            std::lock_guard lk(G().mu);
            stopped_polling_locked(); // not polling any more: peers wake our shm waiter from now on
            if (shm_work_hint())
                shm_progress_locked();
        }
        // Blocks (or fails with EAGAIN if the app made the fd non-blocking), like the real call.
        if (read(c->efd, &v, sizeof v) != sizeof v)
            return -1;
        std::lock_guard lk(G().mu);
        if (c->events.empty()) { // the CQ was destroyed meanwhile
            errno = EAGAIN;
            return -1;
        }
        Cq *q = c->events.front();
        c->events.pop_front();
        *cq = ibv_cq_ex_to_cq(&q->cqx);
        *cq_context = q->cqx.cq_context;
        return 0;
    });
}

void ibv_ack_cq_events(ibv_cq *cq, unsigned int nevents)
{
    std::lock_guard lk(G().mu);
    cq->comp_events_completed += nevents;
}

} // extern "C"
