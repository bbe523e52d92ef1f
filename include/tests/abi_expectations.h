/*
 * The vendor ABI of hcomm/HCCL as hcomm-api.md §4-§6 gives it (x86_64 LP64),
 * checked at compile time. Included by a C11 and by a C++20 test so that both
 * languages see the same layout.
 */
#ifndef HCTS_INCLUDE_TESTS_ABI_EXPECTATIONS_H
#define HCTS_INCLUDE_TESTS_ABI_EXPECTATIONS_H

#include <stddef.h>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_rank_graph.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "hccl/hccl_types.h"
#include "hccl/hcomm_primitives.h" /* the vendor's install puts hcomm's headers in hccl/ */
#include "hccl/hcomm_res_defs.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "hcomm/hcomm_res_defs.h"

#ifdef __cplusplus
#define HCTS_ABI(cond) static_assert(cond, #cond)
#define HCTS_ALIGNOF(type) alignof(type)
#else
#define HCTS_ABI(cond) _Static_assert(cond, #cond)
#define HCTS_ALIGNOF(type) _Alignof(type)
#endif

/* Sizes and offsets. */
HCTS_ABI(sizeof(ChannelHandle) == 8);
HCTS_ABI(sizeof(ThreadHandle) == 8);
HCTS_ABI(sizeof(HcommResult) == 4);
HCTS_ABI(sizeof(CommAbiHeader) == 16);
HCTS_ABI(sizeof(CommAddr) == 40);
HCTS_ABI(offsetof(CommAddr, raws) == 4);
HCTS_ABI(sizeof(EndpointLoc) == 64);
HCTS_ABI(sizeof(EndpointDesc) == 160);
HCTS_ABI(offsetof(EndpointDesc, commAddr) == 4);
HCTS_ABI(offsetof(EndpointDesc, loc) == 44);
HCTS_ABI(offsetof(EndpointDesc, raws) == 108);
HCTS_ABI(sizeof(ThreadConfig) == 32);
HCTS_ABI(offsetof(ThreadConfig, notifyNumPerThread) == 16);
HCTS_ABI(sizeof(HcclRootInfo) == 4108);
HCTS_ABI(HCCL_ROOT_INFO_BYTES == 4108);
HCTS_ABI(HCCL_COMM_DEFAULT_BUFFSIZE == 200);
HCTS_ABI(sizeof(CommMem) == 24);
HCTS_ABI(sizeof(HcommBatchTransferDesc) == 64);
HCTS_ABI(offsetof(HcommBatchTransferDesc, transferInfo) == 8);
HCTS_ABI(sizeof(HcclChannelDesc) == 496);
HCTS_ABI(HCTS_ALIGNOF(HcclChannelDesc) == 8);
HCTS_ABI(offsetof(HcclChannelDesc, header) == 0);
HCTS_ABI(offsetof(HcclChannelDesc, remoteRank) == 16);
HCTS_ABI(offsetof(HcclChannelDesc, channelProtocol) == 20);
HCTS_ABI(offsetof(HcclChannelDesc, localEndpoint) == 24);
HCTS_ABI(offsetof(HcclChannelDesc, remoteEndpoint) == 184);
HCTS_ABI(offsetof(HcclChannelDesc, notifyNum) == 344);
HCTS_ABI(offsetof(HcclChannelDesc, memHandles) == 352);
HCTS_ABI(offsetof(HcclChannelDesc, memHandleNum) == 360);
HCTS_ABI(offsetof(HcclChannelDesc, raws) == 364);
HCTS_ABI(HCCL_CHANNEL_DESC_RAW_MAX_LEN == 128);
HCTS_ABI(COMM_ADDR_EID_LEN == 16);

/* Enums are 4 bytes. */
HCTS_ABI(sizeof(HcclResult) == 4);
HCTS_ABI(sizeof(CommEngine) == 4);
HCTS_ABI(sizeof(CommProtocol) == 4);
HCTS_ABI(sizeof(HcommDataType) == 4);
HCTS_ABI(sizeof(HcommReduceOp) == 4);
HCTS_ABI(sizeof(HcommTransferType) == 4);

/* HcclResult. */
HCTS_ABI(HCCL_SUCCESS == 0);
HCTS_ABI(HCCL_E_PARA == 1);
HCTS_ABI(HCCL_E_PTR == 2);
HCTS_ABI(HCCL_E_MEMORY == 3);
HCTS_ABI(HCCL_E_INTERNAL == 4);
HCTS_ABI(HCCL_E_NOT_SUPPORT == 5);
HCTS_ABI(HCCL_E_NOT_FOUND == 6);
HCTS_ABI(HCCL_E_UNAVAIL == 7);
HCTS_ABI(HCCL_E_SYSCALL == 8);
HCTS_ABI(HCCL_E_TIMEOUT == 9);
HCTS_ABI(HCCL_E_OPEN_FILE_FAILURE == 10);
HCTS_ABI(HCCL_E_TCP_CONNECT == 11);
HCTS_ABI(HCCL_E_ROCE_CONNECT == 12);
HCTS_ABI(HCCL_E_TCP_TRANSFER == 13);
HCTS_ABI(HCCL_E_ROCE_TRANSFER == 14);
HCTS_ABI(HCCL_E_RUNTIME == 15);
HCTS_ABI(HCCL_E_DRV == 16);
HCTS_ABI(HCCL_E_PROFILING == 17);
HCTS_ABI(HCCL_E_CCE == 18);
HCTS_ABI(HCCL_E_NETWORK == 19);
HCTS_ABI(HCCL_E_AGAIN == 20);
HCTS_ABI(HCCL_E_REMOTE == 21);
HCTS_ABI(HCCL_E_SUSPENDING == 22);
HCTS_ABI(HCCL_E_OPRETRY_FAIL == 23);
HCTS_ABI(HCCL_E_OOM == 24);
HCTS_ABI(HCCL_E_IN_STATUS == 1041);
HCTS_ABI(HCCL_E_RESERVED == 1042);

/* CommEngine. */
HCTS_ABI(COMM_ENGINE_RESERVED == -1);
HCTS_ABI(COMM_ENGINE_CPU == 0);
HCTS_ABI(COMM_ENGINE_CPU_TS == 1);
HCTS_ABI(COMM_ENGINE_AICPU == 2);
HCTS_ABI(COMM_ENGINE_AICPU_TS == 3);
HCTS_ABI(COMM_ENGINE_AIV == 4);
HCTS_ABI(COMM_ENGINE_CCU == 5);

/* CommProtocol, aliases included. */
HCTS_ABI(COMM_PROTOCOL_RESERVED == -1);
HCTS_ABI(COMM_PROTOCOL_HCCS == 0);
HCTS_ABI(COMM_PROTOCOL_ROCE == 1);
HCTS_ABI(COMM_PROTOCOL_PCIE == 2);
HCTS_ABI(COMM_PROTOCOL_SIO == 3);
HCTS_ABI(COMM_PROTOCOL_UB_CTP == 4);
HCTS_ABI(COMM_PROTOCOL_UBC_CTP == 4);
HCTS_ABI(COMM_PROTOCOL_UBC_TP == 5);
HCTS_ABI(COMM_PROTOCOL_UB_MEM == 6);
HCTS_ABI(COMM_PROTOCOL_UBOE == 7);
HCTS_ABI(COMM_PROTOCOL_HCCS_ONLY == 8);
HCTS_ABI(COMM_PROTOCOL_UB_RTP == 9);
HCTS_ABI(COMM_PROTOCOL_UBG == 9);

/* Addresses, locations, threads, memory. */
HCTS_ABI(COMM_ADDR_TYPE_RESERVED == -1);
HCTS_ABI(COMM_ADDR_TYPE_IP_V4 == 0);
HCTS_ABI(COMM_ADDR_TYPE_IP_V6 == 1);
HCTS_ABI(COMM_ADDR_TYPE_ID == 2);
HCTS_ABI(COMM_ADDR_TYPE_EID == 3);
HCTS_ABI(ENDPOINT_LOC_TYPE_RESERVED == -1);
HCTS_ABI(ENDPOINT_LOC_TYPE_DEVICE == 0);
HCTS_ABI(ENDPOINT_LOC_TYPE_HOST == 1);
HCTS_ABI(THREAD_TYPE_INVALID == -1);
HCTS_ABI(THREAD_TYPE_TS == 0);
HCTS_ABI(COMM_MEM_TYPE_INVALID == -1);
HCTS_ABI(COMM_MEM_TYPE_DEVICE == 0);
HCTS_ABI(COMM_MEM_TYPE_HOST == 1);
HCTS_ABI(THREAD_RES_TYPE_INVALID == -1);
HCTS_ABI(THREAD_RES_TYPE_STREAM == 0);

/* The collective types custom operators keep in their parameters. */
HCTS_ABI(sizeof(HcclCMDType) == 4);
HCTS_ABI(HCCL_CMD_INVALID == 0 && HCCL_CMD_BROADCAST == 1 && HCCL_CMD_ALLREDUCE == 2 && HCCL_CMD_REDUCE == 3);
HCTS_ABI(HCCL_CMD_SEND == 4 && HCCL_CMD_RECEIVE == 5 && HCCL_CMD_ALLGATHER == 6 && HCCL_CMD_REDUCE_SCATTER == 7);
HCTS_ABI(HCCL_CMD_ALLTOALLV == 8 && HCCL_CMD_ALLTOALLVC == 9 && HCCL_CMD_ALLTOALL == 10 && HCCL_CMD_GATHER == 11);
HCTS_ABI(HCCL_CMD_SCATTER == 12 && HCCL_CMD_BATCH_SEND_RECV == 13 && HCCL_CMD_BATCH_PUT == 14);
HCTS_ABI(HCCL_CMD_BATCH_GET == 15 && HCCL_CMD_ALLGATHER_V == 16 && HCCL_CMD_REDUCE_SCATTER_V == 17);
HCTS_ABI(HCCL_CMD_BATCH_WRITE == 18 && HCCL_CMD_HALF_ALLTOALLV == 20 && HCCL_CMD_ALL == 21);
HCTS_ABI(HCCL_CMD_FINALIZE == 100 && HCCL_CMD_INTER_GROUP_SYNC == 101 && HCCL_CMD_INIT == 102);
HCTS_ABI(HCCL_CMD_BARRIER == 103 && HCCL_CMD_MAX == 104);

/* Reductions and data types (HCCL's share the numbers). */
HCTS_ABI(HCOMM_REDUCE_SUM == 0 && HCCL_REDUCE_SUM == 0);
HCTS_ABI(HCOMM_REDUCE_PROD == 1 && HCCL_REDUCE_PROD == 1);
HCTS_ABI(HCOMM_REDUCE_MAX == 2 && HCCL_REDUCE_MAX == 2);
HCTS_ABI(HCOMM_REDUCE_MIN == 3 && HCCL_REDUCE_MIN == 3);
HCTS_ABI(HCOMM_REDUCE_RESERVED == 255 && HCCL_REDUCE_RESERVED == 255);
HCTS_ABI(HCOMM_DATA_TYPE_INT8 == 0 && HCCL_DATA_TYPE_INT8 == 0);
HCTS_ABI(HCOMM_DATA_TYPE_INT16 == 1 && HCCL_DATA_TYPE_INT16 == 1);
HCTS_ABI(HCOMM_DATA_TYPE_INT32 == 2 && HCCL_DATA_TYPE_INT32 == 2);
HCTS_ABI(HCOMM_DATA_TYPE_FP16 == 3 && HCCL_DATA_TYPE_FP16 == 3);
HCTS_ABI(HCOMM_DATA_TYPE_FP32 == 4 && HCCL_DATA_TYPE_FP32 == 4);
HCTS_ABI(HCOMM_DATA_TYPE_INT64 == 5 && HCCL_DATA_TYPE_INT64 == 5);
HCTS_ABI(HCOMM_DATA_TYPE_UINT64 == 6 && HCCL_DATA_TYPE_UINT64 == 6);
HCTS_ABI(HCOMM_DATA_TYPE_UINT8 == 7 && HCCL_DATA_TYPE_UINT8 == 7);
HCTS_ABI(HCOMM_DATA_TYPE_UINT16 == 8 && HCCL_DATA_TYPE_UINT16 == 8);
HCTS_ABI(HCOMM_DATA_TYPE_UINT32 == 9 && HCCL_DATA_TYPE_UINT32 == 9);
HCTS_ABI(HCOMM_DATA_TYPE_FP64 == 10 && HCCL_DATA_TYPE_FP64 == 10);
HCTS_ABI(HCOMM_DATA_TYPE_BFP16 == 11 && HCCL_DATA_TYPE_BFP16 == 11);
HCTS_ABI(HCOMM_DATA_TYPE_INT128 == 12 && HCCL_DATA_TYPE_INT128 == 12);
HCTS_ABI(HCOMM_DATA_TYPE_HIF8 == 14 && HCCL_DATA_TYPE_HIF8 == 14);
HCTS_ABI(HCOMM_DATA_TYPE_FP8E4M3 == 15 && HCCL_DATA_TYPE_FP8E4M3 == 15);
HCTS_ABI(HCOMM_DATA_TYPE_FP8E5M2 == 16 && HCCL_DATA_TYPE_FP8E5M2 == 16);
HCTS_ABI(HCOMM_DATA_TYPE_FP8E8M0 == 17 && HCCL_DATA_TYPE_FP8E8M0 == 17);
HCTS_ABI(HCOMM_DATA_TYPE_RESERVED == 255 && HCCL_DATA_TYPE_RESERVED == 255);
HCTS_ABI(HCOMM_TRANSFER_TYPE_INVALID == -1);
HCTS_ABI(HCOMM_TRANSFER_TYPE_WRITE == 0);
HCTS_ABI(HCOMM_TRANSFER_TYPE_WRITE_REDUCE == 1);
HCTS_ABI(HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY == 2);
HCTS_ABI(HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY == 3);
HCTS_ABI(HCOMM_TRANSFER_TYPE_READ == 4);
HCTS_ABI(HCOMM_TRANSFER_TYPE_READ_REDUCE == 5);
HCTS_ABI(HCOMM_TRANSFER_TYPE_NOTIFY_RECORD == 6);

/* Header constants. */
HCTS_ABI(HCCL_CHANNEL_MAGIC_WORD == 0x0f0f0f0fU);
HCTS_ABI(HCCL_CHANNEL_VERSION == 1);
HCTS_ABI(HCOMM_THREAD_CONFIG_MAGIC_WORD == 0x0f0f0f2fU);
HCTS_ABI(HCOMM_THREAD_CONFIG_VERSION == 1);

/* hccl_rank_graph.h and hccl_diag.h: offsets compared with the vendor's
 * struct text (cann/hcomm include/hccl/hccl_rank_graph.h, pkg_inc/hccl/hccl_diag.h)
 * compiled side by side with these headers. */
HCTS_ABI(sizeof(CommLink) == 464);
HCTS_ABI(HCTS_ALIGNOF(CommLink) == 4);
HCTS_ABI(offsetof(CommLink, header) == 0);
HCTS_ABI(offsetof(CommLink, srcEndpointDesc) == 16);
HCTS_ABI(offsetof(CommLink, dstEndpointDesc) == 176);
HCTS_ABI(offsetof(CommLink, linkAttr) == 336);
HCTS_ABI(offsetof(CommLink, linkAttr.linkProtocol) == 336);
HCTS_ABI(offsetof(CommLink, linkAttr.hop) == 340);
HCTS_ABI(COMM_LINK_MAGIC_WORD == 0x0f0e0f0fU);
HCTS_ABI(COMM_LINK_VERSION == 1);
HCTS_ABI(sizeof(CommTopo) == 4);
HCTS_ABI(COMM_TOPO_RESERVED == -1 && COMM_TOPO_CLOS == 0 && COMM_TOPO_1DMESH == 1 && COMM_TOPO_910_93 == 2);
HCTS_ABI(COMM_TOPO_310P == 3 && COMM_TOPO_A2AXSERVER == 4 && COMM_TOPO_CUSTOM == 5);
HCTS_ABI(HCCL_HETEROG_MODE_INVALID == -1 && HCCL_HETEROG_MODE_HOMOGENEOUS == 0 && HCCL_HETEROG_MODE_MIX_A2_A3 == 1);
HCTS_ABI(ENDPOINT_ATTR_INVALID == -1 && ENDPOINT_ATTR_BW_COEFF == 0 && ENDPOINT_ATTR_DIE_ID == 1);
HCTS_ABI(ENDPOINT_ATTR_LOCATION == 2);
HCTS_ABI(HCCL_RES_TAG_MAX_LEN == 255);
HCTS_ABI(HCOMM_ALG_TAG_LENGTH == 288);
HCTS_ABI(sizeof(struct HcclDfxOpInfo) == 504);
HCTS_ABI(HCTS_ALIGNOF(struct HcclDfxOpInfo) == 8);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, beginTime) == 16);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, endTime) == 24);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, opMode) == 32);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, outputType) == 48);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, dataCount) == 56);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, root) == 64);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, algTag) == 68);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, engine) == 356);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, cpuTsThread) == 360);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, cpuWaitAicpuNotifyIdx) == 368);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, cpuWaitAicpuNotifyId) == 372);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, inputMemAddr) == 376);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, outputMemSize) == 400);
HCTS_ABI(offsetof(struct HcclDfxOpInfo, reserve) == 408);

#endif /* HCTS_INCLUDE_TESTS_ABI_EXPECTATIONS_H */
