#include "usage.h"

#include <sys/resource.h>

namespace hcts::bench {

Usage usage_now()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const auto secs = [](const timeval &t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return {secs(ru.ru_utime) + secs(ru.ru_stime), static_cast<double>(ru.ru_nvcsw + ru.ru_nivcsw)};
}

Usage operator-(const Usage &a, const Usage &b) { return {a.cpu_s - b.cpu_s, a.switches - b.switches}; }

} // namespace hcts::bench
