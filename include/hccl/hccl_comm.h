/*
 * hccl/hccl_comm.h: creating and querying a communicator, ABI-identical to the
 * vendor's header.
 */
#ifndef HCTS_HCCL_HCCL_COMM_H
#define HCTS_HCCL_HCCL_COMM_H

#include <stdint.h>

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rank 0 creates the root info and hands it to every rank out of band. */
extern HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm);
/* clusterInfo: path of a rank-table file. */
extern HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
extern HcclResult HcclCommDestroy(HcclComm comm);
/* One process, one communicator per device of one server: comms[i] is rank i of ndev,
 * on devices[i] (no id twice); comms holds ndev handles. */
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
/* The communicator's name (vendor docs: at most 128 characters with its NUL); the
 * name HcclDfxRegOpInfoByCommId (hccl/hccl_diag.h) takes. */
extern HcclResult HcclGetCommName(HcclComm comm, char *commName);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_COMM_H */
