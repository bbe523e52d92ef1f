// Faulty IUT: WWN called from the host (not in the device context) returns
// success instead of HCCL_E_NOT_SUPPORT, doing nothing.
#include "faulty/forward.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"

extern "C" __attribute__((visibility("default"))) int32_t HcommWriteWithNotifyOnThread(
    ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len, uint32_t remoteNotifyIdx) {
  using namespace hcts::prop::faulty;
  static const auto real = next<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
  static const auto deviceSide = next<decltype(&HcommRefIsDeviceSide)>("HcommRefIsDeviceSide");
  if (!deviceSide() && dst && src && thread && channel) return 0;
  return real(thread, channel, dst, src, len, remoteNotifyIdx);
}
