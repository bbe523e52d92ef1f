/*
 * hccl/hccl_types.h: result codes, communicator and root-info types of the
 * hcomm/HCCL C API, ABI-identical to the vendor's header of the same name.
 * Unlike the vendor's, this header also compiles as C11.
 */
#ifndef HCTS_HCCL_HCCL_TYPES_H
#define HCTS_HCCL_HCCL_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,
    HCCL_E_PTR = 2,
    HCCL_E_MEMORY = 3,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_NOT_FOUND = 6,
    HCCL_E_UNAVAIL = 7,
    HCCL_E_SYSCALL = 8,
    HCCL_E_TIMEOUT = 9,
    HCCL_E_OPEN_FILE_FAILURE = 10,
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19,
    HCCL_E_AGAIN = 20,
    HCCL_E_REMOTE = 21,
    HCCL_E_SUSPENDING = 22,
    HCCL_E_OPRETRY_FAIL = 23,
    HCCL_E_OOM = 24,
    HCCL_E_IN_STATUS = 1041,
    HCCL_E_RESERVED /* = 1042 */
} HcclResult;

typedef void *HcclComm;

/* An ACL runtime stream; the vendor takes it from acl/acl_base.h. */
#ifndef HCTS_ACLRT_STREAM_DEFINED
#define HCTS_ACLRT_STREAM_DEFINED
typedef void *aclrtStream;
#endif

/* The vendor spells these as C++ `const uint32_t`, which C rejects as an array
 * bound at file scope; an enumerator has the same value and works in both. */
#ifdef __cplusplus
const uint32_t HCCL_ROOT_INFO_BYTES = 4108;
const uint32_t HCCL_COMM_DEFAULT_BUFFSIZE = 200; /* MB */
#else
enum { HCCL_ROOT_INFO_BYTES = 4108 };
enum { HCCL_COMM_DEFAULT_BUFFSIZE = 200 }; /* MB */
#endif

typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

/* Same numbers as HcommDataType / HcommReduceOp (hcomm/hcomm_primitives.h). */
typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,
    HCCL_DATA_TYPE_INT128 = 12,
    HCCL_DATA_TYPE_HIF8 = 14,
    HCCL_DATA_TYPE_FP8E4M3 = 15,
    HCCL_DATA_TYPE_FP8E5M2 = 16,
    HCCL_DATA_TYPE_FP8E8M0 = 17,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

/* The collective an operator implements. No hcomm call takes it; custom operators keep
 * it in their parameters (opType = HCCL_CMD_ALLGATHER, ...), so it is here with the
 * vendor's names and values. */
typedef enum {
    HCCL_CMD_INVALID = 0,
    HCCL_CMD_BROADCAST = 1,
    HCCL_CMD_ALLREDUCE = 2,
    HCCL_CMD_REDUCE = 3,
    HCCL_CMD_SEND = 4,
    HCCL_CMD_RECEIVE = 5,
    HCCL_CMD_ALLGATHER = 6,
    HCCL_CMD_REDUCE_SCATTER = 7,
    HCCL_CMD_ALLTOALLV = 8,
    HCCL_CMD_ALLTOALLVC = 9,
    HCCL_CMD_ALLTOALL = 10,
    HCCL_CMD_GATHER = 11,
    HCCL_CMD_SCATTER = 12,
    HCCL_CMD_BATCH_SEND_RECV = 13,
    HCCL_CMD_BATCH_PUT = 14,
    HCCL_CMD_BATCH_GET = 15,
    HCCL_CMD_ALLGATHER_V = 16,
    HCCL_CMD_REDUCE_SCATTER_V = 17,
    HCCL_CMD_BATCH_WRITE = 18,
    HCCL_CMD_HALF_ALLTOALLV = 20,
    HCCL_CMD_ALL = 21,
    HCCL_CMD_FINALIZE = 100,
    HCCL_CMD_INTER_GROUP_SYNC = 101,
    HCCL_CMD_INIT = 102,
    HCCL_CMD_BARRIER = 103,
    HCCL_CMD_MAX = 104
} HcclCMDType;

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_TYPES_H */
