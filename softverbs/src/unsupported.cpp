// Public entry points outside the RC/UC + SRQ subset: they fail cleanly (EOPNOTSUPP and
// NULL or an error value) so nothing falls through to real hardware code.
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>

namespace {
template <class T>
T *fail_null()
{
    errno = EOPNOTSUPP;
    return nullptr;
}
int fail_int()
{
    errno = EOPNOTSUPP;
    return EOPNOTSUPP;
}
} // namespace

extern "C" {

int ibv_attach_mcast(ibv_qp *, const ibv_gid *, uint16_t) { return fail_int(); }
int ibv_detach_mcast(ibv_qp *, const ibv_gid *, uint16_t) { return fail_int(); }
int ibv_resolve_eth_l2_from_gid(ibv_context *, ibv_ah_attr *, uint8_t[6], uint16_t *) { return fail_int(); }

// Fork support: softverbs pins nothing, so fork is always safe.
int ibv_fork_init(void) { return 0; }
enum ibv_fork_status ibv_is_fork_initialized(void) { return IBV_FORK_UNNEEDED; }
int ibv_dontfork_range(void *, size_t) { return 0; }
int ibv_dofork_range(void *, size_t) { return 0; }

// Kernel-ABI copy helpers (old uverbs ABI): meaningless without a kernel device.
void ibv_copy_qp_attr_from_kern(void *, void *) {}
void ibv_copy_path_rec_from_kern(void *, void *) {}
void ibv_copy_path_rec_to_kern(void *, void *) {}
void ibv_copy_ah_attr_from_kern(void *, void *) {}

ibv_context *ibv_import_device(int) { return fail_null<ibv_context>(); }
ibv_pd *ibv_import_pd(ibv_context *, uint32_t) { return fail_null<ibv_pd>(); }
void ibv_unimport_pd(ibv_pd *) {}
ibv_mr *ibv_import_mr(ibv_pd *, uint32_t) { return fail_null<ibv_mr>(); }
void ibv_unimport_mr(ibv_mr *) {}
ibv_dm *ibv_import_dm(ibv_context *, uint32_t) { return fail_null<ibv_dm>(); }
void ibv_unimport_dm(ibv_dm *) {}
int ibv_set_ece(ibv_qp *, ibv_ece *) { return fail_int(); }
int ibv_query_ece(ibv_qp *, ibv_ece *) { return fail_int(); }
ibv_mr *ibv_reg_dmabuf_mr(ibv_pd *, uint64_t, size_t, uint64_t, int, int) { return fail_null<ibv_mr>(); }

} // extern "C"
