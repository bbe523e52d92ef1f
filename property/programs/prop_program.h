/*
 * prop_program.h: the one device program of the property suite, in the AICPU
 * kernel convention (contract 3): it makes one hcomm call described by a POD
 * argument block and writes the result back into it. It calls only the hcomm C
 * API, so the same source builds for a real device; on the reference it runs
 * through HcommRefDeviceLaunch or the conformance adapter's run_program.
 */
#ifndef HCTS_PROPERTY_PROP_PROGRAM_H
#define HCTS_PROPERTY_PROP_PROGRAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HCTS_PROP_PROGRAM_VERSION 1u

enum hcts_prop_call {
    HCTS_PROP_WWN = 1,
    HCTS_PROP_WRITE = 2,
    HCTS_PROP_READ = 3,        /* dst local, src remote */
    HCTS_PROP_LOCAL_COPY = 4,
    HCTS_PROP_RECORD = 5,
    HCTS_PROP_FENCE = 6,
    HCTS_PROP_WAIT = 7         /* wait, then copy snap_src -> snap_dst behind it on the same thread */
};

typedef struct {
    uint32_t version;   /* HCTS_PROP_PROGRAM_VERSION */
    uint32_t size;      /* sizeof(hcts_prop_op_args) */
    uint32_t call;      /* enum hcts_prop_call */
    uint32_t idx;       /* notify index */
    uint64_t thread;
    uint64_t channel;
    uint64_t dst, src, len;
    uint32_t timeout;   /* Wait, in the unit the implementation uses */
    uint32_t reserved;
    uint64_t snap_dst, snap_src, snap_len;
    int32_t rc;         /* out: what the call returned */
    int32_t copy_rc;    /* out: Wait: what the snapshot copy returned */
} hcts_prop_op_args;

uint32_t hcts_prog_prop_op(void *args);

#ifdef __cplusplus
}
#endif

#endif
