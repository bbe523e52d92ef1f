/*
 * hcts_adapter.h: the adapter ABI (contract 2). An adapter gives the suite the
 * platform services the hcomm API itself does not have: running a device
 * program on the device side, copying between host and device memory, naming
 * the product and saying whether several ranks fit in one process.
 *
 * An adapter is a shared library exporting the entry point of the newest
 * version it implements (and, to serve older suites, older ones too):
 *
 *     const hcts_adapter_v2 *hcts_adapter_get_v2(void);
 *     const hcts_adapter_v1 *hcts_adapter_get(void);        (version 1)
 *
 * Rules (as NCCL's plugins): each version is its own struct and is frozen once
 * released; a new field means a new version, with its own entry point. A suite
 * looks for the newest entry point it knows first and adapts older versions
 * (the fields they lack count as absent). `abi_version` and `size` come first
 * and must match the version's struct. Every function returns 0 on success or
 * an HcclResult number on failure and is called from one host thread at a time
 * per rank. Optional functions may be NULL.
 */
#ifndef HCTS_ADAPTER_H
#define HCTS_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of one device program launch. */
typedef struct {
    uint32_t program_return; /* what hcts_prog_<name> returned */
    int32_t task_error;      /* first asynchronous task failure (HcclResult), 0 if none */
    uint32_t timed_out;      /* 1 when the deadline passed before every task ran */
    uint32_t reserved;
    uint64_t elapsed_ns; /* launch to completion of the last task */
} hcts_launch_status;

/* What the suite hands the adapter's init (every version). */
typedef struct {
    uint32_t abi_version;      /* the adapter version the suite is using */
    uint32_t size;             /* sizeof(hcts_adapter_init_args) */
    const char *programs_path; /* host build of the device programs (libhcts_programs.so); a
                                  device adapter may instead load its own kernel library */
    /* Resolves a symbol of the implementation under test (NULL if absent). The
     * reference adapter finds the reference-only extensions this way; a vendor
     * adapter usually does not need it. */
    void *(*iut_symbol)(const char *name);
    uint32_t rank;
    uint32_t rank_count;
} hcts_adapter_init_args;

/* ---- version 1 (frozen) ---------------------------------------------------- */
#define HCTS_ADAPTER_V1 1U
#define HCTS_ADAPTER_ENTRY_V1 "hcts_adapter_get"

typedef struct hcts_adapter_v1 {
    uint32_t abi_version; /* HCTS_ADAPTER_V1 */
    uint32_t size;        /* sizeof(hcts_adapter_v1) */
    const char *name;     /* short identifier, e.g. "reference", "ascend-aicpu" */

    int32_t (*init)(const hcts_adapter_init_args *args);
    void (*fini)(void); /* after the last use; the suite calls it once */

    /* The product under test: a name from spec/products.yaml (the suite checks it). */
    const char *(*product)(void);

    /* 1 when several ranks (communicators) may live in one process, else 0. */
    int32_t (*multi_rank_per_process)(void);

    /* Runs the device program `hcts_prog_<program>` on the device side of `comm`
     * (an HcclComm of the implementation under test). `args` is a host copy of the
     * program's argument block (hcts_programs.h), `args_size` bytes: the adapter
     * copies it to the device, launches, waits until the program and every task it
     * enqueued have run or `timeout_ms` passed, and copies the block back (programs
     * write their observations into it). Returns HCCL_E_TIMEOUT when the deadline
     * passed, HCCL_E_NOT_FOUND for an unknown program. */
    int32_t (*run_program)(void *comm, const char *program, void *args, size_t args_size, uint32_t timeout_ms,
                           hcts_launch_status *status);

    /* Copies between host memory and device memory (communication buffers). */
    int32_t (*copy_to_device)(void *device_dst, const void *host_src, size_t len);
    int32_t (*copy_to_host)(void *host_dst, const void *device_src, size_t len);

    /* Optional: whether a local notify of `channel` is set now, without consuming it. */
    int32_t (*peek_notify)(void *comm, uint64_t channel, uint32_t local_notify_idx, int32_t *is_set);
} hcts_adapter_v1;

typedef const hcts_adapter_v1 *(*hcts_adapter_get_v1_fn)(void);

/* ---- version 2 --------------------------------------------------------------
 * Version 1's struct, then the fields version 2 added. `v1.abi_version` is
 * HCTS_ADAPTER_V2 and `v1.size` is sizeof(hcts_adapter_v2).
 *   segment_size  optional: the largest payload the implementation moves in one
 *                 transport operation on `channel` (0: unknown). The suite sizes
 *                 its transfers to cross that boundary.
 *   iut_version   optional: the implementation's version string (results.json iut.version). */
#define HCTS_ADAPTER_V2 2U
#define HCTS_ADAPTER_ENTRY_V2 "hcts_adapter_get_v2"

typedef struct hcts_adapter_v2 {
    hcts_adapter_v1 v1;
    uint64_t (*segment_size)(void *comm, uint64_t channel);
    const char *(*iut_version)(void);
} hcts_adapter_v2;

typedef const hcts_adapter_v2 *(*hcts_adapter_get_v2_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_ADAPTER_H */
