/* IBVERBS_PRIVATE_34: the provider ABI of rdma-core 44. Provider libraries
 * (libmlx5 & co.) import these; softverbs has no providers, so each one is a
 * stub that fails cleanly. Declared here without prototypes from driver.h,
 * which Debian does not ship. ibv_query_gid_type lives in device.cpp. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

/* A variable, not a function: libmlx5 reads it (through its GOT) while destroying
 * objects after a device disassociation. rdma-core sets it from
 * IBV_ALLOW_DISASSOCIATE_DESTROY; softverbs has no disassociation, so it stays false. */
bool verbs_allow_disassociate_destroy;

#define SV_FAIL_INT(name)                                                                                              \
    int name(void);                                                                                                    \
    int name(void)                                                                                                     \
    {                                                                                                                  \
        errno = EOPNOTSUPP;                                                                                            \
        return EOPNOTSUPP;                                                                                             \
    }
#define SV_FAIL_PTR(name)                                                                                              \
    void *name(void);                                                                                                  \
    void *name(void)                                                                                                   \
    {                                                                                                                  \
        errno = EOPNOTSUPP;                                                                                            \
        return NULL;                                                                                                   \
    }

SV_FAIL_INT(__ioctl_final_num_attrs)
SV_FAIL_INT(__verbs_log)
SV_FAIL_PTR(_verbs_init_and_alloc_context)
SV_FAIL_INT(execute_ioctl)
SV_FAIL_INT(ibv_cmd_advise_mr)
SV_FAIL_INT(ibv_cmd_alloc_dm)
SV_FAIL_INT(ibv_cmd_alloc_mw)
SV_FAIL_INT(ibv_cmd_alloc_pd)
SV_FAIL_INT(ibv_cmd_attach_mcast)
SV_FAIL_INT(ibv_cmd_close_xrcd)
SV_FAIL_INT(ibv_cmd_create_ah)
SV_FAIL_INT(ibv_cmd_create_counters)
SV_FAIL_INT(ibv_cmd_create_cq)
SV_FAIL_INT(ibv_cmd_create_cq_ex)
SV_FAIL_INT(ibv_cmd_create_flow)
SV_FAIL_INT(ibv_cmd_create_flow_action_esp)
SV_FAIL_INT(ibv_cmd_create_qp)
SV_FAIL_INT(ibv_cmd_create_qp_ex)
SV_FAIL_INT(ibv_cmd_create_qp_ex2)
SV_FAIL_INT(ibv_cmd_create_rwq_ind_table)
SV_FAIL_INT(ibv_cmd_create_srq)
SV_FAIL_INT(ibv_cmd_create_srq_ex)
SV_FAIL_INT(ibv_cmd_create_wq)
SV_FAIL_INT(ibv_cmd_dealloc_mw)
SV_FAIL_INT(ibv_cmd_dealloc_pd)
SV_FAIL_INT(ibv_cmd_dereg_mr)
SV_FAIL_INT(ibv_cmd_destroy_ah)
SV_FAIL_INT(ibv_cmd_destroy_counters)
SV_FAIL_INT(ibv_cmd_destroy_cq)
SV_FAIL_INT(ibv_cmd_destroy_flow)
SV_FAIL_INT(ibv_cmd_destroy_flow_action)
SV_FAIL_INT(ibv_cmd_destroy_qp)
SV_FAIL_INT(ibv_cmd_destroy_rwq_ind_table)
SV_FAIL_INT(ibv_cmd_destroy_srq)
SV_FAIL_INT(ibv_cmd_destroy_wq)
SV_FAIL_INT(ibv_cmd_detach_mcast)
SV_FAIL_INT(ibv_cmd_free_dm)
SV_FAIL_INT(ibv_cmd_get_context)
SV_FAIL_INT(ibv_cmd_modify_cq)
SV_FAIL_INT(ibv_cmd_modify_flow_action_esp)
SV_FAIL_INT(ibv_cmd_modify_qp)
SV_FAIL_INT(ibv_cmd_modify_qp_ex)
SV_FAIL_INT(ibv_cmd_modify_srq)
SV_FAIL_INT(ibv_cmd_modify_wq)
SV_FAIL_INT(ibv_cmd_open_qp)
SV_FAIL_INT(ibv_cmd_open_xrcd)
SV_FAIL_INT(ibv_cmd_poll_cq)
SV_FAIL_INT(ibv_cmd_post_recv)
SV_FAIL_INT(ibv_cmd_post_send)
SV_FAIL_INT(ibv_cmd_post_srq_recv)
SV_FAIL_INT(ibv_cmd_query_context)
SV_FAIL_INT(ibv_cmd_query_device_any)
SV_FAIL_INT(ibv_cmd_query_mr)
SV_FAIL_INT(ibv_cmd_query_port)
SV_FAIL_INT(ibv_cmd_query_qp)
SV_FAIL_INT(ibv_cmd_query_srq)
SV_FAIL_INT(ibv_cmd_read_counters)
SV_FAIL_INT(ibv_cmd_reg_dm_mr)
SV_FAIL_INT(ibv_cmd_reg_dmabuf_mr)
SV_FAIL_INT(ibv_cmd_reg_mr)
SV_FAIL_INT(ibv_cmd_req_notify_cq)
SV_FAIL_INT(ibv_cmd_rereg_mr)
SV_FAIL_INT(ibv_cmd_resize_cq)
SV_FAIL_INT(ibv_read_ibdev_sysfs_file)
SV_FAIL_INT(verbs_init_cq)
SV_FAIL_PTR(verbs_open_device)
SV_FAIL_INT(verbs_register_driver_34)
SV_FAIL_INT(verbs_set_ops)
SV_FAIL_INT(verbs_uninit_context)
