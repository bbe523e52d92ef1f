// The QP transitions rdma_cm makes for the program: INIT at rdma_create_qp, RTR and
// RTS with the peer's GID, QPN and PSN when the connection is made (softverbs connects
// the QP to its peer at RTR→RTS), ERR at disconnect. rdma_init_qp_attr hands the same
// attributes to a program that moves its own QP.
#include <cstring>

#include "cm.h"

namespace svcm {
namespace {

ibv_mtu active_mtu(ibv_context *ctx)
{
    ibv_port_attr pa{};
    return ctx && ibv_query_port(ctx, 1, &pa) == 0 ? pa.active_mtu : IBV_MTU_1024;
}

uint8_t device_rd_atom(ibv_context *ctx)
{
    ibv_device_attr da{};
    if (!ctx || ibv_query_device(ctx, &da) != 0 || da.max_qp_rd_atom <= 0)
        return 1;
    return static_cast<uint8_t>(da.max_qp_rd_atom > 255 ? 255 : da.max_qp_rd_atom);
}

} // namespace

int fill_qp_attr(ibv_qp_attr *a, int *mask, ibv_qp_state state, const Msg &local, const Msg &peer)
{
    *a = ibv_qp_attr{};
    a->qp_state = state;
    switch (state) {
    case IBV_QPS_INIT:
        a->port_num = 1;
        a->pkey_index = 0;
        // Remote READ/atomic are granted here already: the responder resources of the
        // connection bound them (max_dest_rd_atomic at RTR).
        a->qp_access_flags =
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
        *mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
        return 0;
    case IBV_QPS_RTR:
        a->path_mtu = active_mtu(device());
        a->dest_qp_num = peer.qpn;
        a->rq_psn = peer.psn;
        a->max_dest_rd_atomic = local.responder_resources;
        a->min_rnr_timer = 12; // 0.64 ms, as the kernel's CM
        a->ah_attr.is_global = 1;
        std::memcpy(a->ah_attr.grh.dgid.raw, peer.gid, 16);
        a->ah_attr.grh.sgid_index = 0;
        a->ah_attr.grh.hop_limit = 64;
        a->ah_attr.port_num = 1;
        *mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
        return 0;
    case IBV_QPS_RTS:
        a->sq_psn = local.psn;
        a->timeout = 14;
        a->retry_cnt = peer.retry_count;
        a->rnr_retry = peer.rnr_retry_count; // IB CM: the peer says how often we retry its RNR NAKs
        a->max_rd_atomic = local.initiator_depth;
        *mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                IBV_QP_MAX_QP_RD_ATOMIC;
        return 0;
    default: errno = EINVAL; return -1;
    }
}

int qp_to_init(ibv_qp *qp)
{
    ibv_qp_attr a{};
    int mask = 0;
    Msg none{};
    fill_qp_attr(&a, &mask, IBV_QPS_INIT, none, none);
    return ibv_modify_qp(qp, &a, mask);
}

int qp_to_rtr(ibv_qp *qp, const Msg &peer, uint8_t responder_resources)
{
    Msg local{};
    local.responder_resources = responder_resources;
    ibv_qp_attr a{};
    int mask = 0;
    fill_qp_attr(&a, &mask, IBV_QPS_RTR, local, peer);
    return ibv_modify_qp(qp, &a, mask);
}

int qp_to_rts(ibv_qp *qp, const Msg &local, const Msg &peer, uint8_t initiator_depth)
{
    Msg l = local;
    l.initiator_depth = initiator_depth;
    ibv_qp_attr a{};
    int mask = 0;
    fill_qp_attr(&a, &mask, IBV_QPS_RTS, l, peer);
    return ibv_modify_qp(qp, &a, mask);
}

void qp_to_error(ibv_qp *qp)
{
    if (!qp)
        return;
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_ERR;
    ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

// Resolves RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH (0xff: "the device's maximum") and
// clamps to the device.
uint8_t clamp_rd_atom(uint8_t v)
{
    uint8_t max = device_rd_atom(device());
    return v > max ? max : v;
}

} // namespace svcm
