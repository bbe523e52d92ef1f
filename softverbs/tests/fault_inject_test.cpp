// No exception crosses softverbs' C ABI (the verbs calls): each entry point runs with
// its n-th allocation failing (std::bad_alloc) and, separately, its n-th thread creation
// failing, for n = 1, 2, ... until the call no longer reaches the n-th, each run in a
// child process under a deadline (hcts/testing/fault_sweep.h). A call must answer as
// verbs does - 0 or an errno value, or a null object with errno set - never let an
// exception out, abort or hang; a transfer whose progress failed must still complete,
// in error if need be, so a poller is never left waiting.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "hcts/testing/fault_sweep.h"
#include "verbs_fixture.h"

using namespace svt;
using hcts::fault::Fault;
using hcts::fault::Scenario;

namespace {

// What one scenario builds in its child; made by setup, undone by cleanup.
std::unique_ptr<Device> g_dev;
std::unique_ptr<Buffer> g_buf;
std::unique_ptr<Mr> g_mr;
std::unique_ptr<Qp> g_a, g_b;
ibv_context *g_ctx = nullptr;
ibv_pd *g_pd = nullptr;
ibv_mr *g_raw_mr = nullptr;
ibv_cq *g_cq = nullptr;
ibv_qp *g_qp = nullptr;

// A null object is an error only with errno set (verbs' convention); -1 marks one without.
long object_code(const void *p) { return p != nullptr ? 0 : (errno > 0 ? errno : -1); }
bool is_errno_code(long rc) { return rc >= 0 && rc < 4096; }

void open_device() { g_dev = std::make_unique<Device>(); }
void with_memory()
{
    open_device();
    g_buf = std::make_unique<Buffer>(1 << 16, true);
}
void with_qps()
{
    with_memory();
    g_mr = std::make_unique<Mr>(g_dev->pd, g_buf->p, g_buf->n, kAllAccess);
    g_a = std::make_unique<Qp>(*g_dev);
    g_b = std::make_unique<Qp>(*g_dev);
}
void connected()
{
    with_qps();
    g_a->connect(g_b->endpoint());
    g_b->connect(g_a->endpoint());
}
void release_all()
{
    if (g_qp != nullptr)
        ibv_destroy_qp(g_qp);
    if (g_cq != nullptr)
        ibv_destroy_cq(g_cq);
    if (g_raw_mr != nullptr)
        ibv_dereg_mr(g_raw_mr);
    if (g_pd != nullptr)
        ibv_dealloc_pd(g_pd);
    if (g_ctx != nullptr)
        ibv_close_device(g_ctx);
    g_a.reset();
    g_b.reset();
    g_mr.reset();
    g_buf.reset();
    g_dev.reset();
}

// A WRITE_WITH_IMM from a to b, and both completions reaped: each must come, in success or
// in error (a progress step that failed must not leave the poller waiting forever).
long write_with_imm_completes()
{
    if (const int rc = g_b->recv(1); rc != 0)
        return rc;
    if (const int rc = g_a->post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, g_mr->mr, 0, 4096,
                                 reinterpret_cast<uintptr_t>(g_buf->p) + 8192, g_mr->mr->rkey, 7);
        rc != 0)
        return rc;
    ibv_wc wc{};
    if (!wait_wc(g_a->scq, &wc, std::chrono::seconds(20)) || !wait_wc(g_b->rcq, &wc, std::chrono::seconds(20))) {
        std::fprintf(stderr, "a completion never came\n");
        return -2; // no code: the run fails
    }
    return 0;
}

std::vector<Scenario> scenarios()
{
    return {
        {"ibv_get_device_list + ibv_open_device", [] {},
         [] {
             int n = 0;
             ibv_device **list = ibv_get_device_list(&n);
             if (list == nullptr)
                 return object_code(list);
             g_ctx = n > 0 ? ibv_open_device(list[0]) : nullptr;
             ibv_free_device_list(list);
             return object_code(g_ctx);
         },
         release_all},
        {"ibv_alloc_pd", open_device,
         [] {
             g_pd = ibv_alloc_pd(g_dev->ctx);
             return object_code(g_pd);
         },
         release_all},
        {"ibv_reg_mr", with_memory,
         [] {
             g_raw_mr = ibv_reg_mr(g_dev->pd, g_buf->p, g_buf->n, kAllAccess);
             return object_code(g_raw_mr);
         },
         release_all},
        {"ibv_create_cq", open_device,
         [] {
             g_cq = ibv_create_cq(g_dev->ctx, 64, nullptr, nullptr, 0);
             return object_code(g_cq);
         },
         release_all},
        {"ibv_create_qp", with_memory,
         [] {
             g_cq = ibv_create_cq(g_dev->ctx, 64, nullptr, nullptr, 0);
             if (g_cq == nullptr)
                 return object_code(g_cq);
             ibv_qp_init_attr a{};
             a.send_cq = a.recv_cq = g_cq;
             a.qp_type = IBV_QPT_RC;
             a.cap.max_send_wr = a.cap.max_recv_wr = 16;
             a.cap.max_send_sge = a.cap.max_recv_sge = 1;
             g_qp = ibv_create_qp(g_dev->pd, &a);
             return object_code(g_qp);
         },
         release_all},
        {"ibv_modify_qp to RTS (connect)", with_qps,
         [] {
             const Endpoint b = g_b->endpoint(), a = g_a->endpoint();
             for (const int rc :
                  {g_a->to_init(), g_a->to_rtr(b), g_a->to_rts(), g_b->to_init(), g_b->to_rtr(a), g_b->to_rts()})
                 if (rc != 0)
                     return static_cast<long>(rc);
             return 0L;
         },
         release_all},
        {"WRITE_WITH_IMM, posted and completed", connected, write_with_imm_completes, release_all},
    };
}

void sweep_all(Fault fault, uint64_t limit)
{
    for (const auto &r : hcts::fault::sweep_each(scenarios(), fault, limit, is_errno_code))
        EXPECT_EQ(r.failure, "");
}

} // namespace

TEST(SoftverbsFaultInject, AllocationFailuresBecomeErrorCodes) { sweep_all(Fault::allocation, 3000); }

TEST(SoftverbsFaultInject, ThreadCreationFailuresBecomeErrorCodes) { sweep_all(Fault::thread, 50); }
