/*
 * hcts_adapter.h: the adapter ABI (contract 2). An adapter gives the conformance
 * suite the platform services the hcomm API itself does not have: running a
 * device program on the device side, copying between host and device memory,
 * naming the product and saying whether several ranks fit in one process.
 *
 * An adapter is a shared library exporting one C symbol:
 *
 *     const hcts_adapter_v1 *hcts_adapter_get(void);
 *
 * Rules (as NCCL's net plugins): `abi_version` and `size` come first; fields are
 * only ever appended, never reordered or re-typed; the suite reads a field only
 * when `size` covers it, so an older adapter keeps working with a newer suite.
 * Every function returns 0 on success or an HcclResult number on failure and is
 * called from one host thread at a time per rank.
 */
#ifndef HCTS_ADAPTER_H
#define HCTS_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HCTS_ADAPTER_ABI_VERSION 1U

/* Outcome of one device program launch. */
typedef struct {
    uint32_t program_return; /* what hcts_prog_<name> returned */
    int32_t task_error;      /* first asynchronous task failure (HcclResult), 0 if none */
    uint32_t timed_out;      /* 1 when the deadline passed before every task ran */
    uint32_t reserved;
    uint64_t elapsed_ns;     /* launch to completion of the last task */
} hcts_launch_status;

/* What the suite hands the adapter at start-up. */
typedef struct {
    uint32_t abi_version;            /* HCTS_ADAPTER_ABI_VERSION of the suite */
    uint32_t size;                   /* sizeof(hcts_adapter_init_args) */
    const char *programs_path;       /* host build of the device programs (libhcts_programs.so); a
                                        device adapter may instead load its own kernel library */
    /* Resolves a symbol of the implementation under test (NULL if absent). The
     * reference adapter finds the reference-only extensions this way; a vendor
     * adapter usually does not need it. */
    void *(*iut_symbol)(const char *name);
    uint32_t rank;
    uint32_t rank_count;
} hcts_adapter_init_args;

typedef struct hcts_adapter_v1 {
    uint32_t abi_version; /* HCTS_ADAPTER_ABI_VERSION */
    uint32_t size;        /* sizeof(hcts_adapter_v1) as the adapter was built */
    const char *name;     /* short identifier, e.g. "reference", "ascend-aicpu" */

    int32_t (*init)(const hcts_adapter_init_args *args);
    void (*fini)(void);

    /* The product under test, one of: "atlas350", "a3", "a2", "atlas200i_500_a2",
     * "inference", "training" (the rows of the seed's product table). */
    const char *(*product)(void);

    /* 1 when several ranks (communicators) may live in one process, else 0. */
    int32_t (*multi_rank_per_process)(void);

    /* Runs the device program `hcts_prog_<program>` on the device side of `comm`
     * (an HcclComm of the implementation under test). `args` is a host copy of the
     * program's argument block, `args_size` bytes: the adapter copies it to the
     * device, launches, waits until the program and every task it enqueued have
     * run or `timeout_ms` passed, and copies the block back (programs write their
     * observations into it). Returns HCCL_E_TIMEOUT when the deadline passed,
     * HCCL_E_NOT_FOUND for an unknown program. */
    int32_t (*run_program)(void *comm, const char *program, void *args, size_t args_size, uint32_t timeout_ms,
                           hcts_launch_status *status);

    /* Copies between host memory and device memory (communication buffers). */
    int32_t (*copy_to_device)(void *device_dst, const void *host_src, size_t len);
    int32_t (*copy_to_host)(void *host_dst, const void *device_src, size_t len);

    /* Optional diagnostics (may be NULL): whether a local notify of `channel` is
     * set now, without consuming it. Used only in watchdog/failure messages. */
    int32_t (*peek_notify)(void *comm, uint64_t channel, uint32_t local_notify_idx, int32_t *is_set);
} hcts_adapter_v1;

typedef const hcts_adapter_v1 *(*hcts_adapter_get_fn)(void);
#define HCTS_ADAPTER_ENTRY "hcts_adapter_get"

#ifdef __cplusplus
}
#endif

#endif /* HCTS_ADAPTER_H */
