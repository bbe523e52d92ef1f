// The operator's own logging and check macros, in the style of the vendor's samples.
#ifndef TEMPLATE_ALLGATHER_LOG_H
#define TEMPLATE_ALLGATHER_LOG_H

#include <cstdio>

#include <hccl/hccl_types.h>

#define HCCL_ERROR(fmt, ...) std::fprintf(stderr, "[ERROR] " fmt "\n", ##__VA_ARGS__)

#define CHK_RET(call)                                                                                                  \
    do {                                                                                                               \
        const HcclResult ret_ = static_cast<HcclResult>(call);                                                         \
        if (ret_ != HCCL_SUCCESS) {                                                                                    \
            HCCL_ERROR("%s:%d: %s returned %d", __FILE__, __LINE__, #call, int(ret_));                                 \
            return ret_;                                                                                               \
        }                                                                                                              \
    } while (0)

#define CHK_PTR_NULL(ptr)                                                                                              \
    do {                                                                                                               \
        if ((ptr) == nullptr) {                                                                                        \
            HCCL_ERROR("%s:%d: %s is NULL", __FILE__, __LINE__, #ptr);                                                 \
            return HCCL_E_PTR;                                                                                         \
        }                                                                                                              \
    } while (0)

#define ACL_CHK(call)                                                                                                  \
    do {                                                                                                               \
        const aclError acl_ = (call);                                                                                  \
        if (acl_ != ACL_SUCCESS) {                                                                                     \
            const char *msg_ = aclGetRecentErrMsg();                                                                   \
            HCCL_ERROR("%s:%d: %s returned %d: %s", __FILE__, __LINE__, #call, int(acl_),                              \
                       msg_ != nullptr ? msg_ : "");                                                                   \
            return HCCL_E_RUNTIME;                                                                                     \
        }                                                                                                              \
    } while (0)

#endif
