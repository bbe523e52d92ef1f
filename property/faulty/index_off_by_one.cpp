// Faulty IUT: the notify index bound is off by one. An index equal to the
// channel's notifyNum is accepted (and lands on index notifyNum - 1).
#include "faulty/forward.h"
#include "hcomm/hcomm_primitives.h"

extern "C" __attribute__((visibility("default"))) int32_t HcommWriteWithNotifyOnThread(
    ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len, uint32_t remoteNotifyIdx) {
  using namespace hcts::prop::faulty;
  static const auto real = next<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
  const int32_t rc = real(thread, channel, dst, src, len, remoteNotifyIdx);
  // The real bound is idx < notifyNum; retrying idx - 1 accepts exactly idx == notifyNum.
  if (rc != 0 && remoteNotifyIdx > 0 && real(thread, channel, dst, src, len, remoteNotifyIdx - 1) == 0) return 0;
  return rc;
}
