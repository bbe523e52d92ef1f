// Write-with-notify through the library under test. Each measurement is a few
// launches of the device program (hcts_prog_ops) on the world's first thread,
// as a conformance case issues them, so the launch cost spreads over up to
// HCTS_PROG_MAX_OPS ops. Rank 0 writes into its lane of rank 1's inbox from its
// outbox (world.h's layout); notify indices 0..window-1 carry the data, index
// `window` the acknowledgement.
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "device.h"
#include "hcts/core/library.h"
#include "method.h"
#include "world.h"

namespace hcts::bench {

namespace {

class HcommMethod final : public Method {
  public:
    explicit HcommMethod(const World &w) : w_(w) {}
    std::string_view name() const override { return "hcomm"; }
    std::string describe() const override
    {
        return "HcommWriteWithNotifyOnThread + HcommChannelNotifyWaitOnThread in device scripts (hcts_prog_ops) "
               "through the adapter, one thread, notifyNum " +
               std::to_string(World::kNotifyNum);
    }
    uint64_t max_size() const override { return std::min(w_.layout.lane_size, w_.layout.outbox_size()); }

    double ping_pong(uint64_t size, uint32_t n) override
    {
        const auto t0 = Clock::now();
        // Two ops per round trip on each rank.
        for (uint32_t done = 0; done < n;) {
            const uint32_t k = std::min<uint32_t>(n - done, HCTS_PROG_MAX_OPS / 2);
            Script s;
            for (uint32_t i = 0; i < k; ++i) {
                if (w_.rank == 0)
                    ping(s, size, 0).wait(thread(), channel(), 1, w_.ok_timeout());
                else
                    ping(s.wait(thread(), channel(), 0, w_.ok_timeout()), size, 1);
            }
            launch(s, "ping-pong");
            done += k;
        }
        return seconds_since(t0);
    }

    double stream(uint64_t size, uint32_t n, uint32_t window) override
    {
        window = std::clamp<uint32_t>(window, 1, World::kNotifyNum - 1);
        const auto t0 = Clock::now();
        for (uint32_t done = 0; done < n;) {
            Script s;
            // Whole windows, each `w` notifies and one acknowledgement, while the script has room.
            while (done < n) {
                const uint32_t w = std::min(window, n - done);
                if (s.size() + w + 1 > HCTS_PROG_MAX_OPS)
                    break;
                for (uint32_t j = 0; j < w; ++j) {
                    if (w_.rank == 0)
                        ping(s, size, j);
                    else
                        s.wait(thread(), channel(), j, w_.ok_timeout());
                }
                if (w_.rank == 0)
                    s.wait(thread(), channel(), window, w_.ok_timeout());
                else
                    s.record(thread(), channel(), window);
                done += w;
            }
            launch(s, "stream");
        }
        return seconds_since(t0);
    }

  private:
    using Clock = std::chrono::steady_clock;
    static double seconds_since(Clock::time_point t0)
    {
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }
    ThreadHandle thread() const { return w_.thread(); }
    ChannelHandle channel() const { return w_.channel_to(w_.peer()); }
    Script &ping(Script &s, uint64_t size, uint32_t idx) const
    {
        return s.wwn(thread(), channel(), w_.remote_inbox(w_.peer(), w_.rank), w_.outbox(), size, idx);
    }
    void launch(Script &s, const char *what) const
    {
        const LaunchResult r = w_.device().run(s, w_.launch_timeout_ms);
        if (const auto bad = s.first_failure())
            throw std::runtime_error(std::string("hcomm ") + what + ": op " + std::to_string(*bad) + " of " +
                                     std::to_string(s.size()) + " returned " + hccl_result_name(s.rc(*bad)) + " (" +
                                     r.describe() + ")");
        if (!r.ok())
            throw std::runtime_error(std::string("hcomm ") + what + ": " + r.describe());
    }
    const World &w_;
};

} // namespace

std::unique_ptr<Method> make_hcomm(const World &world) { return std::make_unique<HcommMethod>(world); }

} // namespace hcts::bench
