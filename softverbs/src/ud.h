// Unreliable datagram (UD) QPs and address handles: what qp.cpp, requester.cpp
// and transport.cpp call into (ud.cpp, ud_wire.cpp, ah.cpp).
#pragma once

#include "sv.h"

namespace sv {

// An address handle: the destination decoded once at creation.
struct Ah {
    ibv_ah ah{};
    ibv_ah_attr attr{};
    bool routable = false; // the destination is a softverbs GID (or a LID on our address)
    uint32_t ip = 0;       // network order
    uint16_t port = 0, salt = 0;
};
Ah *to_ah(ibv_ah *ah);

// Binds the process's datagram socket to the listener's address and port (the GID
// names both); false when that UDP port is taken (the caller picks another port).
bool ud_reserve_port(uint32_t ip, uint16_t port);
// IBV_QPT_UD halves of ibv_modify_qp and ibv_post_send (G().mu held).
int ud_modify_qp_locked(Qp *qp, ibv_qp_attr *attr, int mask);
int ud_post_send_locked(Qp *qp, ibv_send_wr *wr, ibv_send_wr **bad);
// Starts the datagram receiver thread (first UD QP); false when UD is unavailable.
bool ud_start();

} // namespace sv
