// The summary of a measurement's samples: median, min and max.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

namespace hcts::bench {

struct Spread {
    double median = 0, min = 0, max = 0;
};

// Of an empty span: all zero.
Spread spread_of(std::span<const double> samples);
nlohmann::json to_json(const Spread &s);

} // namespace hcts::bench
