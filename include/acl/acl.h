/*
 * acl/acl.h: the ACL entry header, as the vendor's of the same name. The vendor's
 * also gathers the operator and model headers (acl_op.h, acl_mdl.h), which custom
 * operators do not use and hcts does not provide.
 *
 * Checked against CANN's public runtime headers, ACL 1.17.0
 * (github.com/hicann/runtime, include/external/acl/acl.h at commit
 * 681ef7610df13c8128982901142a2c869ddbb53e, 2026-08-22).
 */
#ifndef HCTS_ACL_ACL_H
#define HCTS_ACL_ACL_H

#include "acl/acl_rt.h"

#endif /* HCTS_ACL_ACL_H */
