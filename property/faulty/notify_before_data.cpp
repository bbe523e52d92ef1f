// Faulty IUT: WWN raises the notify first and writes the payload afterwards,
// so a waiter can observe the notify before the data.
#include <chrono>
#include <thread>

#include "faulty/forward.h"
#include "hcomm/hcomm_primitives.h"

extern "C" __attribute__((visibility("default"))) int32_t HcommWriteWithNotifyOnThread(
    ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len, uint32_t remoteNotifyIdx) {
  using namespace hcts::prop::faulty;
  static const auto record = next<decltype(&HcommChannelNotifyRecordOnThread)>("HcommChannelNotifyRecordOnThread");
  static const auto write = next<decltype(&HcommWriteOnThread)>("HcommWriteOnThread");
  if (int32_t rc = record(thread, channel, remoteNotifyIdx); rc != 0) return rc;
  // Give the notify time to be seen before the payload is even posted.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return write(thread, channel, dst, src, len);
}
