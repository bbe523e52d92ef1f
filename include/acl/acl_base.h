/*
 * acl/acl_base.h: the ACL runtime's base types and every result code, as the
 * vendor's header of the same name gathers them (the subset in acl_base_rt.h and
 * error_codes/rt_error_codes.h; the model and graph-engine parts are not here).
 *
 * Layout checked against CANN's public runtime headers, ACL 1.17.0
 * (github.com/hicann/runtime, include/external/acl/acl_base.h at commit
 * 681ef7610df13c8128982901142a2c869ddbb53e, 2026-08-22).
 */
#ifndef HCTS_ACL_ACL_BASE_H
#define HCTS_ACL_ACL_BASE_H

#include "acl/acl_base_rt.h"
#include "acl/error_codes/rt_error_codes.h"

#endif /* HCTS_ACL_ACL_BASE_H */
