// The arguments the host packs for CopyKernel (kernel.cpp), as one block.
#pragma once

#include <cstdint>

struct CopyKernelArgs {
    uint64_t thread; // an AICPU_TS thread of the communicator
    uint64_t dst;    // device addresses inside the communicator's HCCL buffer
    uint64_t src;
    uint64_t len;
    char comm_name[128]; // HcclGetCommName of the communicator
};
