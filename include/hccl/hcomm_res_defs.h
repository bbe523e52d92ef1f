/*
 * hccl/hcomm_res_defs.h: the vendor installs hcomm's headers beside HCCL's (include/hccl/), and
 * custom operators include them from there; hcts keeps them in hcomm/. Same declarations.
 */
#ifndef HCTS_HCCL_HCOMM_RES_DEFS_H
#define HCTS_HCCL_HCOMM_RES_DEFS_H

#include "hcomm/hcomm_res_defs.h"

#endif
