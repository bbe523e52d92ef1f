/*
 * hccl/hccl_rank_graph.h: the topology of a communicator (layers, the ranks of a
 * layer, the links between two ranks), ABI-identical to the vendor's header
 * (include/hccl/hccl_rank_graph.h of cann/hcomm). Declared here: the queries the
 * reference implements. The vendor's experimental topology-instance and endpoint
 * queries (HcclRankGraphGetTopoInstsByLayer, ...GetTopoType, ...GetRanksByTopoInst,
 * ...GetEndpointNum, ...GetEndpointDesc, ...GetEndpointInfo) are absent.
 */
#ifndef HCTS_HCCL_HCCL_RANK_GRAPH_H
#define HCTS_HCCL_HCCL_RANK_GRAPH_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "hccl/hccl_res.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ENDPOINT_ATTR_INVALID = -1,
    ENDPOINT_ATTR_BW_COEFF = 0,
    ENDPOINT_ATTR_DIE_ID = 1,
    ENDPOINT_ATTR_LOCATION = 2,
} EndpointAttr;

typedef uint32_t EndpointAttrBwCoeff;
typedef uint32_t EndpointAttrDieId;
typedef uint32_t EndpointAttrLocation;

/* The interconnect of a layer. */
typedef enum {
    COMM_TOPO_RESERVED = -1,
    COMM_TOPO_CLOS = 0,
    COMM_TOPO_1DMESH = 1,
    COMM_TOPO_910_93 = 2,
    COMM_TOPO_310P = 3,
    COMM_TOPO_A2AXSERVER = 4,
    COMM_TOPO_CUSTOM = 5
} CommTopo;

/* Whether the communicator mixes chip types. */
typedef enum {
    HCCL_HETEROG_MODE_INVALID = -1,
    HCCL_HETEROG_MODE_HOMOGENEOUS = 0,
    HCCL_HETEROG_MODE_MIX_A2_A3,
} HcclHeterogMode;

#ifdef __cplusplus
const uint32_t COMM_LINK_MAGIC_WORD = 0x0f0e0f0f;
const uint32_t COMM_LINK_VERSION = 1;
#else
enum { COMM_LINK_MAGIC_WORD = 0x0f0e0f0f };
enum { COMM_LINK_VERSION = 1 };
#endif

/* One link between two ranks on a layer: its two endpoints and its protocol. */
typedef struct {
    CommAbiHeader header;
    EndpointDesc srcEndpointDesc;
    EndpointDesc dstEndpointDesc;
    union {
        uint8_t raws[128];
        /* __extension__: an anonymous structure, as the vendor's, without -Wpedantic's complaint in C++. */
        __extension__ struct {
            CommProtocol linkProtocol;
            uint8_t hop;
        };
    } linkAttr;
} CommLink;

/* Fills each of `linkNum` links with 0xFF, stamps its header and marks endpoints
 * and protocol as unset, hop 1, as the vendor's inline function does. */
static inline HcclResult CommLinkInit(CommLink *commLink, uint32_t linkNum)
{
    for (uint32_t idx = 0; idx < linkNum; idx++) {
        if (commLink == NULL) {
            return HCCL_E_PTR;
        }
        memset(commLink, 0xFF, sizeof(CommLink));
        commLink->header.version = COMM_LINK_VERSION;
        commLink->header.magicWord = COMM_LINK_MAGIC_WORD;
        commLink->header.size = sizeof(CommLink);
        commLink->header.reserved = 0;
        (void)EndpointDescInit(&commLink->srcEndpointDesc, 1);
        (void)EndpointDescInit(&commLink->dstEndpointDesc, 1);
        commLink->linkAttr.linkProtocol = COMM_PROTOCOL_RESERVED;
        commLink->linkAttr.hop = 1;
        commLink++;
    }
    return HCCL_SUCCESS;
}

/* Every list these queries return belongs to the library: the caller must not free
 * it, and a later query on the same communicator may invalidate it (vendor header). */

/* The layers of the topology that contain this rank. */
extern HcclResult HcclRankGraphGetLayers(HcclComm comm, uint32_t **netLayers, uint32_t *netLayerNum);
/* The ranks of this rank's instance of layer `netLayer`. */
extern HcclResult HcclRankGraphGetRanksByLayer(HcclComm comm, uint32_t netLayer, uint32_t **ranks, uint32_t *rankNum);
/* How many ranks that instance has. */
extern HcclResult HcclRankGraphGetRankSizeByLayer(HcclComm comm, uint32_t netLayer, uint32_t *rankNum);
extern HcclResult HcclRankGraphGetTopoTypeByLayer(HcclComm comm, uint32_t netLayer, CommTopo *topoType);
/* The size of every instance of the layer. */
extern HcclResult HcclRankGraphGetInstSizeListByLayer(HcclComm comm, uint32_t netLayer, uint32_t **instSizeList,
                                                      uint32_t *listSize);
/* The links from srcRank to dstRank on the layer; none is a valid answer. */
extern HcclResult HcclRankGraphGetLinks(HcclComm comm, uint32_t netLayer, uint32_t srcRank, uint32_t dstRank,
                                        CommLink **links, uint32_t *linkNum);
extern HcclResult HcclGetHeterogMode(HcclComm comm, HcclHeterogMode *mode);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_RANK_GRAPH_H */
