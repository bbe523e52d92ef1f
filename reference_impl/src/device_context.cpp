#include "device_context.h"

#include <hcts/mutant.h>

#include <algorithm>

namespace hcomm_ref {
namespace {
thread_local LaunchRecord *t_launch = nullptr;
}

void LaunchRecord::note(const std::shared_ptr<TaskQueue> &queue)
{
    if (std::find(touched.begin(), touched.end(), queue) == touched.end()) {
        touched.push_back(queue);
    }
}

void LaunchRecord::flush_held()
{
    auto pending = std::move(held);
    held.clear();
    // Mutant (blind-regions.yaml): the held tasks submitted newest first.
    if (hcts::mutant("ref_batch_held_newest_first"))
        std::reverse(pending.begin(), pending.end());
    for (auto &enqueue : pending) {
        enqueue();
    }
}

bool is_device_side() { return t_launch != nullptr; }

LaunchRecord *current_launch() { return t_launch; }

DeviceScope::DeviceScope(LaunchRecord &record) : previous_(t_launch) { t_launch = &record; }

DeviceScope::~DeviceScope() { t_launch = previous_; }

} // namespace hcomm_ref
