/* The ABI from C11: abi_expectations.h asserts the layout at compile time; this
 * program checks the inline initialisers at run time. Exit status 0 = pass. */
#include <stdio.h>

#include "abi_expectations.h"

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        ++failures;
    }
}

int main(void)
{
    HcclChannelDesc descs[3];
    memset(descs, 0, sizeof(descs));
    expect(HcclChannelDescInit(NULL, 1) == HCCL_E_PTR, "HcclChannelDescInit(NULL) returns HCCL_E_PTR");
    expect(HcclChannelDescInit(descs, 3) == HCCL_SUCCESS, "HcclChannelDescInit(descs, 3) succeeds");
    for (int i = 0; i < 3; ++i) {
        expect(descs[i].header.version == 1, "header.version == 1");
        expect(descs[i].header.magicWord == 0x0f0f0f0fU, "header.magicWord == 0x0f0f0f0f");
        expect(descs[i].header.size == 496, "header.size == 496");
        expect(descs[i].remoteRank == 0xFFFFFFFFU, "remoteRank == ~0u");
        expect(descs[i].channelProtocol == COMM_PROTOCOL_RESERVED, "channelProtocol == RESERVED");
        expect(descs[i].notifyNum == 0, "notifyNum == 0");
        expect(descs[i].memHandles == NULL && descs[i].memHandleNum == 0, "no memory handles");
        expect(descs[i].localEndpoint.protocol == COMM_PROTOCOL_RESERVED, "local endpoint reset");
        expect(descs[i].remoteEndpoint.commAddr.type == COMM_ADDR_TYPE_RESERVED, "remote endpoint reset");
        expect(descs[i].raws[0] == 0xFF && descs[i].raws[127] == 0xFF, "union filled with 0xFF");
    }

    ThreadConfig config[2];
    expect(ThreadConfigInit(NULL, 1) == HCCL_E_PTR, "ThreadConfigInit(NULL) returns 2");
    expect(ThreadConfigInit(config, 2) == 0, "ThreadConfigInit succeeds");
    expect(config[1].header.magicWord == 0x0f0f0f2fU && config[1].header.size == 32, "second config stamped");

    if (failures == 0) {
        printf("header ABI from C11: sizeof(HcclChannelDesc) = %zu, all checks passed\n", sizeof(HcclChannelDesc));
    }
    return failures == 0 ? 0 : 1;
}
