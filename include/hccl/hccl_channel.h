/*
 * hccl/hccl_channel.h: channel descriptors and channel acquisition, ABI-identical
 * to the vendor's header (sizeof(HcclChannelDesc) == 496 on LP64).
 */
#ifndef HCTS_HCCL_HCCL_CHANNEL_H
#define HCTS_HCCL_HCCL_CHANNEL_H

#include <stdint.h>
#include <string.h>

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *HcclMemHandle;

#ifdef __cplusplus
static const uint32_t HCCL_CHANNEL_MAGIC_WORD = 0x0f0f0f0fU;
static const uint32_t HCCL_CHANNEL_VERSION = 1U;
static const uint32_t HCCL_CHANNEL_DESC_RAW_MAX_LEN = 128U;
#else
enum { HCCL_CHANNEL_MAGIC_WORD = 0x0f0f0f0f };
enum { HCCL_CHANNEL_VERSION = 1 };
enum { HCCL_CHANNEL_DESC_RAW_MAX_LEN = 128 };
#endif

typedef struct {
    CommAbiHeader header;
    uint32_t remoteRank;          /* rank at the other end */
    CommProtocol channelProtocol; /* transport of the channel */
    EndpointDesc localEndpoint;
    EndpointDesc remoteEndpoint;
    uint32_t notifyNum; /* notifies on the channel: 0..64 */
    HcclMemHandle *memHandles;
    uint32_t memHandleNum;
    union {
        uint8_t raws[HCCL_CHANNEL_DESC_RAW_MAX_LEN];
        struct {
            uint32_t queueNum;
            uint32_t retryCnt;
            uint32_t retryInterval;
            uint8_t tc;
            uint8_t sl;
        } roceAttr;
        struct {
            uint8_t pathMode;
        } ubMemAttr;
    };
} HcclChannelDesc;

/* Prepares `descNum` descriptors: everything 0xFF, then a valid header, no remote
 * rank, protocol RESERVED, no notifies, no memory handles and unset endpoints.
 * The caller must still fill remoteRank, channelProtocol and notifyNum. */
static inline HcclResult HcclChannelDescInit(HcclChannelDesc *channelDesc, uint32_t descNum)
{
    if (channelDesc == NULL) {
        return HCCL_E_PTR;
    }
    for (uint32_t i = 0; i < descNum; ++i) {
        HcclChannelDesc *desc = &channelDesc[i];
        memset(desc, 0xFF, sizeof(*desc));
        desc->header.version = HCCL_CHANNEL_VERSION;
        desc->header.magicWord = HCCL_CHANNEL_MAGIC_WORD;
        desc->header.size = (uint32_t)sizeof(HcclChannelDesc);
        desc->header.reserved = 0;
        desc->remoteRank = ~0U;
        desc->channelProtocol = COMM_PROTOCOL_RESERVED;
        desc->notifyNum = 0;
        desc->memHandles = NULL;
        desc->memHandleNum = 0;
        (void)EndpointDescInit(&desc->localEndpoint, 1);
        (void)EndpointDescInit(&desc->remoteEndpoint, 1);
    }
    return HCCL_SUCCESS;
}

extern HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                                     uint32_t channelNum, ChannelHandle *channels);
extern HcclResult HcclChannelDestroy(HcclComm comm, const ChannelHandle *channels, uint32_t channelNum);
extern HcclResult HcclChannelGetHcclBuffer(HcclComm comm, ChannelHandle channel, void **buffer, uint64_t *size);
extern HcclResult HcclChannelGetRemoteMems(HcclComm comm, ChannelHandle channel, uint32_t *memNum, CommMem **remoteMems,
                                           char ***memTags);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_CHANNEL_H */
