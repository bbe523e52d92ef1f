#include "sizes.h"

#include <charconv>
#include <stdexcept>

namespace hcts::bench {

uint64_t parse_size(std::string_view text)
{
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
    uint64_t scale = 1;
    if (unit == "K" || unit == "KiB" || unit == "k")
        scale = 1024;
    else if (unit == "M" || unit == "MiB" || unit == "m")
        scale = 1024 * 1024;
    else if (!unit.empty() && unit != "B")
        scale = 0;
    if (ec != std::errc() || scale == 0 || n == 0 || n * scale > (uint64_t{1} << 31))
        throw std::invalid_argument("message size '" + std::string(text) +
                                    "': allowed are 1 to 2 GiB, as bytes or with K/KiB or M/MiB (e.g. 8, 64K, 16M)");
    return n * scale;
}

std::vector<uint64_t> parse_sizes(std::string_view list)
{
    std::vector<uint64_t> out;
    while (!list.empty()) {
        const size_t comma = list.find(',');
        out.push_back(parse_size(list.substr(0, comma)));
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    if (out.empty())
        throw std::invalid_argument("--sizes needs at least one size (e.g. 8,64K,1M)");
    return out;
}

std::string size_label(uint64_t size)
{
    if (size >= (1U << 20) && size % (1U << 20) == 0)
        return std::to_string(size >> 20) + " MiB";
    if (size >= 1024 && size % 1024 == 0)
        return std::to_string(size >> 10) + " KiB";
    return std::to_string(size) + " B";
}

} // namespace hcts::bench
