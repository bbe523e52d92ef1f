/*
 * hcomm/hcomm_res_defs.h: engines, protocols, endpoints and thread configuration
 * of the hcomm resource API, ABI-identical to the vendor's header.
 */
#ifndef HCTS_HCOMM_HCOMM_RES_DEFS_H
#define HCTS_HCOMM_HCOMM_RES_DEFS_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

/* As the vendor's header does: sources that include it call sprintf_s, memcpy_s, ... */
#include "securec.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CHANNEL_HANDLE_DEFINED
#define CHANNEL_HANDLE_DEFINED
typedef uint64_t ChannelHandle;
#endif
#ifndef THREAD_HANDLE_DEFINED
#define THREAD_HANDLE_DEFINED
typedef uint64_t ThreadHandle;
#endif

#ifndef HCOMM_RESULT_DEFINED
#define HCOMM_RESULT_DEFINED
typedef int32_t HcommResult;
#endif

typedef void *EndpointHandle;
typedef void *HcommMemHandle;
typedef void *HcommSocket;

typedef struct {
    uint32_t version;
    uint32_t magicWord;
    uint32_t size;
    uint32_t reserved;
} CommAbiHeader;

/* Laid out compactly; every name, value and layout is the vendor's (include/tests pins them). */
/* clang-format off */
typedef enum {
    COMM_ENGINE_RESERVED = -1, COMM_ENGINE_CPU = 0, COMM_ENGINE_CPU_TS = 1, COMM_ENGINE_AICPU = 2,
    COMM_ENGINE_AICPU_TS = 3, COMM_ENGINE_AIV = 4, COMM_ENGINE_CCU = 5,
} CommEngine;

typedef enum {
    COMM_PROTOCOL_RESERVED = -1, COMM_PROTOCOL_HCCS = 0, COMM_PROTOCOL_ROCE = 1, COMM_PROTOCOL_PCIE = 2,
    COMM_PROTOCOL_SIO = 3, COMM_PROTOCOL_UB_CTP = 4, COMM_PROTOCOL_UBC_CTP = COMM_PROTOCOL_UB_CTP,
    COMM_PROTOCOL_UBC_TP = 5, COMM_PROTOCOL_UB_MEM = 6, COMM_PROTOCOL_UBOE = 7, COMM_PROTOCOL_HCCS_ONLY = 8,
    COMM_PROTOCOL_UB_RTP = 9, COMM_PROTOCOL_UBG = COMM_PROTOCOL_UB_RTP,
} CommProtocol;
/* clang-format on */

typedef enum {
    COMM_ADDR_TYPE_RESERVED = -1,
    COMM_ADDR_TYPE_IP_V4 = 0,
    COMM_ADDR_TYPE_IP_V6 = 1,
    COMM_ADDR_TYPE_ID = 2,
    COMM_ADDR_TYPE_EID = 3
} CommAddrType;

#define COMM_ADDR_EID_LEN 16

typedef struct {
    CommAddrType type;
    union {
        uint8_t raws[36];
        struct in_addr addr;
        struct in6_addr addr6;
        uint32_t id;
        uint8_t eid[COMM_ADDR_EID_LEN];
    };
} CommAddr;

typedef enum {
    ENDPOINT_LOC_TYPE_RESERVED = -1,
    ENDPOINT_LOC_TYPE_DEVICE = 0,
    ENDPOINT_LOC_TYPE_HOST = 1
} EndpointLocType;

typedef struct {
    EndpointLocType locType;
    union {
        uint8_t raws[60];
        struct {
            uint32_t devPhyId;
            uint32_t superDevId;
            uint32_t serverIdx;
            uint32_t superPodIdx;
        } device;
        struct {
            uint32_t id;
        } host;
    };
} EndpointLoc;

typedef struct {
    CommProtocol protocol;
    CommAddr commAddr;
    EndpointLoc loc;
    union {
        uint8_t raws[52];
    };
} EndpointDesc;

typedef enum { THREAD_TYPE_INVALID = -1, THREAD_TYPE_TS = 0 } ThreadType;

typedef struct {
    CommAbiHeader header;
    uint16_t notifyNumPerThread;
    uint8_t reserved[14];
} ThreadConfig;

typedef enum { COMM_MEM_TYPE_INVALID = -1, COMM_MEM_TYPE_DEVICE = 0, COMM_MEM_TYPE_HOST = 1 } CommMemType;

typedef struct {
    CommMemType type;
    void *addr;
    uint64_t size;
} CommMem;

typedef enum { THREAD_RES_TYPE_INVALID = -1, THREAD_RES_TYPE_STREAM = 0 } ThreadResType;

/* Fills `num` endpoints with 0xFF and marks each one's protocol, address type and
 * location as unset. The vendor's signature: a count and a result (NULL -> 2,
 * HCCL_E_PTR; else 0), so the vendor's callers' `EndpointDescInit(&d, 1)` builds. */
static inline HcommResult EndpointDescInit(EndpointDesc *endpoint, uint32_t num)
{
    for (uint32_t i = 0; i < num; ++i) {
        if (endpoint == NULL) {
            return (HcommResult)2;
        }
        memset(&endpoint[i], 0xFF, sizeof(EndpointDesc));
        endpoint[i].protocol = COMM_PROTOCOL_RESERVED;
        endpoint[i].commAddr.type = COMM_ADDR_TYPE_RESERVED;
        endpoint[i].loc.locType = ENDPOINT_LOC_TYPE_RESERVED;
    }
    return 0;
}

#ifdef __cplusplus
static const uint32_t HCOMM_THREAD_CONFIG_MAGIC_WORD = 0x0f0f0f2fU;
static const uint32_t HCOMM_THREAD_CONFIG_VERSION = 1U;
#else
enum { HCOMM_THREAD_CONFIG_MAGIC_WORD = 0x0f0f0f2f };
enum { HCOMM_THREAD_CONFIG_VERSION = 1 };
#endif

/* Zeroes `num` configurations and stamps each header; HcclThreadAcquireWithConfig
 * refuses a configuration that did not come through here. NULL -> 2 (HCCL_E_PTR). */
static inline HcommResult ThreadConfigInit(ThreadConfig *config, uint32_t num)
{
    if (config == NULL) {
        return (HcommResult)2;
    }
    for (uint32_t i = 0; i < num; ++i) {
        memset(&config[i], 0, sizeof(ThreadConfig));
        config[i].header.version = HCOMM_THREAD_CONFIG_VERSION;
        config[i].header.magicWord = HCOMM_THREAD_CONFIG_MAGIC_WORD;
        config[i].header.size = (uint32_t)sizeof(ThreadConfig);
    }
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCOMM_HCOMM_RES_DEFS_H */
