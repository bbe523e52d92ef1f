#include "driver/hcomm_api.h"

#include <dlfcn.h>

#include <stdexcept>

namespace hcts::prop {

HcommApi HcommApi::load(const std::string &path) {
  HcommApi api;
  api.path = path;
  api.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!api.handle) {
    const char *e = ::dlerror();
    throw std::runtime_error("cannot load hcomm library '" + path + "': " + (e ? e : "unknown error"));
  }
  auto need = [&](auto &fn, const char *name, bool required) {
    void *sym = ::dlsym(api.handle, name);
    if (!sym && required)
      throw std::runtime_error("hcomm library '" + path + "' does not export " + name +
                               ", which the property suite needs");
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
  };
  need(api.getRootInfo, "HcclGetRootInfo", true);
  need(api.commInitRootInfo, "HcclCommInitRootInfo", true);
  need(api.commDestroy, "HcclCommDestroy", true);
  need(api.threadAcquire, "HcclThreadAcquire", true);
  need(api.channelAcquire, "HcclChannelAcquire", true);
  need(api.getHcclBuffer, "HcclGetHcclBuffer", true);
  need(api.channelGetHcclBuffer, "HcclChannelGetHcclBuffer", true);
  need(api.writeWithNotify, "HcommWriteWithNotifyOnThread", true);
  need(api.write, "HcommWriteOnThread", true);
  need(api.read, "HcommReadOnThread", true);
  need(api.localCopy, "HcommLocalCopyOnThread", true);
  need(api.notifyRecord, "HcommChannelNotifyRecordOnThread", true);
  need(api.notifyWait, "HcommChannelNotifyWaitOnThread", true);
  need(api.channelFence, "HcommChannelFenceOnThread", true);
  need(api.deviceLaunch, "HcommRefDeviceLaunch", false);
  need(api.productName, "HcommRefProductName", false);
  return api;
}

}  // namespace hcts::prop
