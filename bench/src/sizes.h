// Message sizes on the command line and in baselines: 8, 4096, 64K, 1M, 16MiB.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hcts::bench {

// Throws std::invalid_argument naming the text and what is allowed.
uint64_t parse_size(std::string_view text);
std::vector<uint64_t> parse_sizes(std::string_view comma_list);
// "8 B", "64 KiB", "1 MiB".
std::string size_label(uint64_t size);

} // namespace hcts::bench
