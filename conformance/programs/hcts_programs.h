/*
 * hcts_programs.h: the device programs of the conformance suite (contract 3).
 *
 * A device program is an AICPU kernel: extern "C" uint32_t hcts_prog_<name>(void *args).
 * It calls only the hcomm C API and libc, returns a status and writes what it
 * observed (return codes) into its argument block. It never judges: the host
 * side of the case decides what the observations mean.
 *
 * Argument blocks are plain data, versioned: `version` and `size` first, fields
 * only appended. Addresses and handles are carried as uint64_t so the layout is
 * the same on a 64-bit host and device.
 *
 * How a program reaches hcomm: on the host build (the reference and any library
 * judged on this machine) the block carries function pointers into the
 * implementation under test, filled by the suite from its dispatch table. A device
 * build (an AICPU kernel library) defines HCTS_PROGRAMS_DIRECT and calls the
 * device library's symbols directly; the table is then ignored.
 */
#ifndef HCTS_PROGRAMS_H
#define HCTS_PROGRAMS_H

#include <stdint.h>

#include "hcomm/hcomm_primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HCTS_PROG_ABI_VERSION 1U
#define HCTS_PROG_MAX_OPS 160U

/* The hcomm calls a program may make. A NULL entry means "absent from the IUT";
 * the suite never launches a program needing an absent call. */
typedef struct {
    int32_t (*write_with_notify)(ThreadHandle, ChannelHandle, void *, const void *, uint64_t, uint32_t);
    int32_t (*write)(ThreadHandle, ChannelHandle, void *, const void *, uint64_t);
    int32_t (*notify_record)(ThreadHandle, ChannelHandle, uint32_t);
    int32_t (*notify_wait)(ThreadHandle, ChannelHandle, uint32_t, uint32_t);
    int32_t (*local_copy)(ThreadHandle, void *, const void *, uint64_t);
    int32_t (*channel_fence)(ThreadHandle, ChannelHandle);
} hcts_prog_api;

typedef enum {
    HCTS_OP_NONE = 0,
    HCTS_OP_WWN = 1,        /* write_with_notify(thread, channel, dst, src, len, idx) */
    HCTS_OP_WRITE = 2,      /* write(thread, channel, dst, src, len) */
    HCTS_OP_RECORD = 3,     /* notify_record(thread, channel, idx) */
    HCTS_OP_WAIT = 4,       /* notify_wait(thread, channel, idx, timeout) */
    HCTS_OP_LOCAL_COPY = 5, /* local_copy(thread, dst, src, len): a device-stream snapshot */
    HCTS_OP_FENCE = 6       /* channel_fence(thread, channel) */
} hcts_op_kind;

typedef struct {
    uint32_t kind; /* hcts_op_kind */
    uint32_t idx;  /* notify index (WWN, RECORD, WAIT) */
    uint64_t thread;
    uint64_t channel;
    uint64_t dst;
    uint64_t src;
    uint64_t len;
    uint32_t timeout; /* WAIT: in the IUT's unit; 0 = forever (the suite never uses 0) */
    int32_t rc;       /* out: what the call returned */
} hcts_op;

/* hcts_prog_ops: issue ops[0..op_count) in order on their threads; record every
 * return code. A failed call does not stop the program (observations, not asserts). */
typedef struct {
    uint32_t version; /* HCTS_PROG_ABI_VERSION */
    uint32_t size;    /* sizeof(hcts_prog_ops_args) */
    hcts_prog_api api;
    uint32_t op_count;
    uint32_t calls_made; /* out: how many ops were issued */
    hcts_op ops[HCTS_PROG_MAX_OPS];
} hcts_prog_ops_args;

uint32_t hcts_prog_ops(void *args);

/* Program return values. */
#define HCTS_PROG_OK 0U
#define HCTS_PROG_BAD_ARGS 1U    /* version/size mismatch or op_count too large */
#define HCTS_PROG_MISSING_API 2U /* an op needed a call the table lacks */
#define HCTS_OP_RC_MISSING INT32_MIN /* ops[i].rc when the call was absent */

#ifdef __cplusplus
}
#endif

#endif /* HCTS_PROGRAMS_H */
