// hcomm_api.h: the hcomm entry points the hcomm driver calls, resolved from a
// dlopen'ed library (absent optional ones stay null).
#pragma once

#include <string>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_types.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"

namespace hcts::prop {

struct HcommApi {
  void *handle = nullptr;
  std::string path;
  decltype(&::HcclGetRootInfo) getRootInfo = nullptr;
  decltype(&::HcclCommInitRootInfo) commInitRootInfo = nullptr;
  decltype(&::HcclCommDestroy) commDestroy = nullptr;
  decltype(&::HcclThreadAcquire) threadAcquire = nullptr;
  decltype(&::HcclChannelAcquire) channelAcquire = nullptr;
  decltype(&::HcclGetHcclBuffer) getHcclBuffer = nullptr;
  decltype(&::HcclChannelGetHcclBuffer) channelGetHcclBuffer = nullptr;
  decltype(&::HcommWriteWithNotifyOnThread) writeWithNotify = nullptr;
  decltype(&::HcommWriteOnThread) write = nullptr;
  decltype(&::HcommReadOnThread) read = nullptr;
  decltype(&::HcommLocalCopyOnThread) localCopy = nullptr;
  decltype(&::HcommChannelNotifyRecordOnThread) notifyRecord = nullptr;
  decltype(&::HcommChannelNotifyWaitOnThread) notifyWait = nullptr;
  decltype(&::HcommChannelFenceOnThread) channelFence = nullptr;
  // Reference extensions.
  decltype(&::HcommRefDeviceLaunch) deviceLaunch = nullptr;
  decltype(&::HcommRefProductName) productName = nullptr;

  // Loads `path` (RTLD_NOW | RTLD_GLOBAL); throws std::runtime_error naming
  // the library and the first missing required symbol.
  static HcommApi load(const std::string &path);
};

}  // namespace hcts::prop
