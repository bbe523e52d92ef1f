/*
 * hccl/hcomm_primitives.h: the vendor installs hcomm's headers beside HCCL's (include/hccl/), and
 * custom operators include them from there; hcts keeps them in hcomm/. Same declarations.
 */
#ifndef HCTS_HCCL_HCOMM_PRIMITIVES_H
#define HCTS_HCCL_HCOMM_PRIMITIVES_H

#include "hcomm/hcomm_primitives.h"

#endif
