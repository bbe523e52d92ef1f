// The arguments of the test AICPU kernel (test_kernel.cpp), as the host packs them.
#pragma once

#include <stdint.h>

struct AclTestKernelArgs {
    uint64_t out; // device address the kernel writes `value` to (0: none)
    uint32_t value;
    uint32_t returns;      // what the kernel returns
    uint32_t sleep_ms;     // how long it sleeps first
    uint32_t wait_seconds; // >0: enqueue a wait on notify 0 of `thread` that nobody records
    uint64_t thread;       // an AICPU_TS thread of the comm
    char comm_name[64];    // HcommRefGetCommName of the comm it runs on
    uint64_t record_from;  // !=0: after the sleep, record notify 0 of `record_to` from this thread
    uint64_t record_to;
};

// AclTestArgBytes's arguments are appended as parameters, not as one struct: a uint64_t
// device address, a uint32_t byte count n, then n bytes of further parameters. The kernel
// copies those n bytes, as it finds them right after the count, to the address.
