// For shims that change behaviour only inside a device program: their
// HcommRefDeviceLaunch hands the program to launch_program, which runs it between
// the shim's `enter` and `leave` (on the launching thread) with t_in_program true
// there. A null program or a launch from inside a program goes to the reference
// unchanged, so its checks and refusals stay the reference's.
#pragma once

#include "shim_common.h"

struct ProgramHooks {
    void (*enter)() = nullptr; // before the program's first call
    void (*leave)() = nullptr; // after its last, still inside the program
};

inline thread_local bool t_in_program = false;

inline HcclResult launch_program(HcclComm comm, HcommRefDeviceFn fn, void *args, uint32_t timeoutMs,
                                 HcommRefLaunchResult *result, ProgramHooks hooks)
{
    static const auto launch = real<decltype(&HcommRefDeviceLaunch)>("HcommRefDeviceLaunch");
    if (fn == nullptr || t_in_program)
        return launch(comm, fn, args, timeoutMs, result);
    struct Program {
        HcommRefDeviceFn fn;
        void *args;
        ProgramHooks hooks;
    } program{fn, args, hooks};
    const HcommRefDeviceFn wrapped = [](void *p) -> uint32_t {
        const auto *prog = static_cast<const Program *>(p);
        if (prog->hooks.enter != nullptr)
            prog->hooks.enter();
        t_in_program = true;
        const uint32_t ret = prog->fn(prog->args);
        if (prog->hooks.leave != nullptr)
            prog->hooks.leave();
        t_in_program = false;
        return ret;
    };
    return launch(comm, wrapped, &program, timeoutMs, result);
}
