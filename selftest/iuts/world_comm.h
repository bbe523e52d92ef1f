// The communicator a shim misbehaves on: the oldest live one. The conformance
// suite's world comes first, and a second communicator a case makes (and
// destroys) must not replace it; the property suite makes and destroys one per
// case, so once the oldest is destroyed the next one takes its place. Linked
// into a shim with world_comm.cpp, which overrides HcclCommInitRootInfo and
// HcclCommDestroy to keep the list.
#pragma once

#include "hccl/hccl_comm.h"

HcclComm world_comm();
