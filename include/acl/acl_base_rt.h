/*
 * acl/acl_base_rt.h: the base types and result codes of the ACL runtime (CANN's
 * libascendcl), the subset that HCCL custom operators use, ABI-identical to the
 * vendor's header of the same name. Implemented on the hcts reference by
 * acl_runtime/ (libascendcl.so). Unlike the vendor's, this header compiles as C11.
 *
 * Values checked against CANN's public runtime headers, ACL 1.17.0
 * (github.com/hicann/runtime, include/external/acl/acl_base_rt.h at commit
 * 681ef7610df13c8128982901142a2c869ddbb53e, 2026-08-22).
 */
#ifndef HCTS_ACL_ACL_BASE_RT_H
#define HCTS_ACL_ACL_BASE_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif

#if defined(__GNUC__) && (__GNUC__ >= 6)
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif

/* One definition shared with hccl/hccl_types.h, whichever is included first. */
#ifndef HCTS_ACLRT_STREAM_DEFINED
#define HCTS_ACLRT_STREAM_DEFINED
typedef void *aclrtStream;
#endif

/* Events and notifies (acl_rt.h): opaque handles. */
typedef void *aclrtEvent;
typedef void *aclrtNotify;

typedef int aclError;

static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;

static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_WRITE_FILE = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE = 100005;
static const int ACL_ERROR_PARSE_FILE = 100006;
static const int ACL_ERROR_FILE_MISSING_ATTR = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID = 100008;
static const int ACL_ERROR_KERNEL_NOT_FOUND = 100029;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;

static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;

static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;

/* The SoC the current process runs on, e.g. "Ascend950PR_9599"; NULL on failure. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_ACL_ACL_BASE_RT_H */
