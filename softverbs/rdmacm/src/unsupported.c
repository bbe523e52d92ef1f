/* Entry points of librdmacm.so.1 that softverbs' rdma_cm does not implement: they
 * exist so that every program linked against rdma-core 44's librdmacm loads, and
 * fail with errno ENOSYS without touching their arguments. rsockets is not
 * provided; rpoll and rselect work on ordinary descriptors (rdma-core's examples use
 * rpoll on the event channel's fd).
 * Each stub is defined without parameters and returns -1 in a long: the value reads
 * as -1 for the int, ssize_t, off_t and size_t returns of the real functions. */
#include <errno.h>
#include <poll.h>
#include <sys/select.h>

#define SV_ENOSYS(name)                                                                                                \
    long name(void);                                                                                                   \
    long name(void)                                                                                                    \
    {                                                                                                                  \
        errno = ENOSYS;                                                                                                \
        return -1;                                                                                                     \
    }

/* rdma_cm calls outside connected RC over one channel. */

SV_ENOSYS(rdma_create_ep)
SV_ENOSYS(rdma_create_srq)
SV_ENOSYS(rdma_create_srq_ex)
SV_ENOSYS(rdma_join_multicast)
SV_ENOSYS(rdma_join_multicast_ex)
SV_ENOSYS(rdma_leave_multicast)
SV_ENOSYS(rdma_set_local_ece)
SV_ENOSYS(rdma_get_remote_ece)
/* rsockets. */
SV_ENOSYS(rsocket)
SV_ENOSYS(rbind)
SV_ENOSYS(rlisten)
SV_ENOSYS(raccept)
SV_ENOSYS(rconnect)
SV_ENOSYS(rshutdown)
SV_ENOSYS(rclose)
SV_ENOSYS(rrecv)
SV_ENOSYS(rrecvfrom)
SV_ENOSYS(rrecvmsg)
SV_ENOSYS(rsend)
SV_ENOSYS(rsendto)
SV_ENOSYS(rsendmsg)
SV_ENOSYS(rread)
SV_ENOSYS(rreadv)
SV_ENOSYS(rwrite)
SV_ENOSYS(rwritev)
SV_ENOSYS(rgetpeername)
SV_ENOSYS(rgetsockname)
SV_ENOSYS(rsetsockopt)
SV_ENOSYS(rgetsockopt)
SV_ENOSYS(rfcntl)
SV_ENOSYS(riomap)
SV_ENOSYS(riounmap)
SV_ENOSYS(riowrite)

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout);
int rpoll(struct pollfd *fds, nfds_t nfds, int timeout) { return poll(fds, nfds, timeout); }

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout);
int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout)
{
    return select(nfds, readfds, writefds, exceptfds, timeout);
}

/* rdma_destroy_ep: rdma_create_ep never succeeds, but a program may still call it
 * on an id it made itself. */
struct rdma_cm_id;
void rdma_destroy_qp(struct rdma_cm_id *id);
int rdma_destroy_id(struct rdma_cm_id *id);
void rdma_destroy_ep(struct rdma_cm_id *id);
void rdma_destroy_ep(struct rdma_cm_id *id)
{
    if (!id)
        return;
    rdma_destroy_qp(id);
    rdma_destroy_id(id);
}

/* rdma_destroy_srq: there is never an SRQ to destroy. */
void rdma_destroy_srq(struct rdma_cm_id *id);
void rdma_destroy_srq(struct rdma_cm_id *id) { (void)id; }
