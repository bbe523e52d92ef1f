#include "stats.h"

#include <algorithm>
#include <vector>

namespace hcts::bench {

Spread spread_of(std::span<const double> samples)
{
    if (samples.empty())
        return {};
    std::vector<double> v(samples.begin(), samples.end());
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    const double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return {median, v.front(), v.back()};
}

nlohmann::json to_json(const Spread &s) { return {{"median", s.median}, {"min", s.min}, {"max", s.max}}; }

} // namespace hcts::bench
