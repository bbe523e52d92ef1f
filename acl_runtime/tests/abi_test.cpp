// The ACL types and values custom operators rely on, pinned (CANN ACL 1.17.0).
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "acl/acl.h"
#include "hccl/hccl_types.h" // after acl/: one aclrtStream either way

static_assert(std::is_same_v<aclError, int>);
static_assert(std::is_same_v<aclrtStream, void *>);
static_assert(ACL_SUCCESS == 0 && ACL_ERROR_INVALID_PARAM == 100000 && ACL_ERROR_REPEAT_INITIALIZE == 100002);
static_assert(ACL_ERROR_INVALID_FILE == 100003 && ACL_ERROR_PARSE_FILE == 100006 &&
              ACL_ERROR_REPEAT_FINALIZE == 100037);
static_assert(ACL_ERROR_BAD_ALLOC == 200000 && ACL_ERROR_INTERNAL_ERROR == 500000);
static_assert(ACL_ERROR_RT_PARAM_INVALID == 107000 && ACL_ERROR_RT_INVALID_DEVICEID == 107001 &&
              ACL_ERROR_RT_CONTEXT_NULL == 107002);
static_assert(ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000 && ACL_ERROR_RT_NO_DEVICE == 207004);
static_assert(ACL_ERROR_RT_AICPU_TIMEOUT == 507017 && ACL_ERROR_RT_AICPU_EXCEPTION == 507018 &&
              ACL_ERROR_RT_STREAM_SYNC_TIMEOUT == 507046);
static_assert(ACL_MEMCPY_HOST_TO_HOST == 0 && ACL_MEMCPY_HOST_TO_DEVICE == 1 && ACL_MEMCPY_DEVICE_TO_HOST == 2 &&
              ACL_MEMCPY_DEVICE_TO_DEVICE == 3 && ACL_MEMCPY_DEFAULT == 4 && ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE == 5 &&
              ACL_MEMCPY_INNER_DEVICE_TO_DEVICE == 6 && ACL_MEMCPY_INTER_DEVICE_TO_DEVICE == 7);
static_assert(ACL_MEM_MALLOC_HUGE_FIRST == 0 && ACL_MEM_MALLOC_NORMAL_ONLY == 2 &&
              ACL_MEM_MALLOC_HUGE1G_ONLY_P2P == 7 && ACL_MEM_TYPE_LOW_BAND_WIDTH == 0x100 &&
              ACL_MEM_TYPE_HIGH_BAND_WIDTH == 0x1000 && ACL_MEM_ACCESS_USER_SPACE_READONLY == 0x100000);
static_assert(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD == 1 && ACL_RT_BINARY_LOAD_OPT_MAGIC == 2 &&
              ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE == 3);
static_assert(ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT == 7 && ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US == 8 &&
              ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING == 9);
// Layouts (x86-64): the option and attribute values are 16-byte unions.
static_assert(sizeof(aclrtBinaryLoadOptionValue) == 16 && sizeof(aclrtBinaryLoadOption) == 20);
static_assert(sizeof(aclrtBinaryLoadOptions) == 16 && offsetof(aclrtBinaryLoadOptions, numOpt) == 8);
static_assert(sizeof(aclrtLaunchKernelAttrValue) == 16 && sizeof(aclrtLaunchKernelAttr) == 20 &&
              offsetof(aclrtLaunchKernelAttr, value) == 4);
static_assert(sizeof(aclrtLaunchKernelCfg) == 16 && offsetof(aclrtLaunchKernelCfg, numAttrs) == 8);
static_assert(sizeof(aclrtTimeoutUs) == 8);
// Events and notifies.
static_assert(std::is_same_v<aclrtEvent, void *> && std::is_same_v<aclrtNotify, void *>);
static_assert(ACL_EVENT_RECORDED_STATUS_NOT_READY == 0 && ACL_EVENT_RECORDED_STATUS_COMPLETE == 1 &&
              sizeof(aclrtEventRecordedStatus) == 4);
static_assert(ACL_ERROR_RT_WAIT_TIMEOUT == 107019 && ACL_ERROR_RT_EVENT_SYNC_TIMEOUT == 507047);

// The thread's last error (aclrtGetLastError).
static_assert(ACL_RT_THREAD_LEVEL == 0 && sizeof(aclrtLastErrLevel) == 4);

TEST(Abi, HeadersPinned) { SUCCEED() << "the static_asserts above are the test"; }
