// The AICPU kernel of HcclTemplateAllGather, built as the kernel library its op-info JSON
// names and launched with aclrtLaunchKernelWithConfig (template_allgather_exec.h).
#include "template_allgather_exec.h"

extern "C" __attribute__((visibility("default"))) unsigned int HcclTemplateAllGatherKernel(void *args)
{
    return RunKernel(args, "HcclTemplateAllGatherKernel");
}
