#include "stamp.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace hcts {

namespace {
constexpr uint64_t mask(unsigned bits) { return (uint64_t{1} << bits) - 1; }

uint8_t check_bits(uint64_t upper56)
{
    // splitmix64 finaliser: every input bit affects the check byte.
    uint64_t z = upper56 + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<uint8_t>(z ^ (z >> 31));
}

uint64_t load_word(std::span<const std::byte> s, size_t w, size_t &n)
{
    n = std::min<size_t>(8, s.size() - w * 8);
    uint64_t v = 0;
    std::memcpy(&v, s.data() + w * 8, n);
    return v;
}
} // namespace

uint64_t stamp_word(const StampKey &k, uint64_t word_index)
{
    const uint64_t upper = (uint64_t{k.run} & mask(12)) << 52 | (uint64_t{k.iteration} & mask(12)) << 40 |
                           (uint64_t{k.sender} & mask(6)) << 34 | (word_index & mask(26)) << 8;
    return upper | check_bits(upper >> 8);
}

bool decode_stamp(uint64_t w, StampKey &k, uint64_t &word_index)
{
    if (check_bits(w >> 8) != static_cast<uint8_t>(w))
        return false;
    k.run = static_cast<uint32_t>(w >> 52 & mask(12));
    k.iteration = static_cast<uint32_t>(w >> 40 & mask(12));
    k.sender = static_cast<uint32_t>(w >> 34 & mask(6));
    word_index = w >> 8 & mask(26);
    return true;
}

void fill_payload(std::span<std::byte> out, const StampKey &key)
{
    for (size_t w = 0; w * 8 < out.size(); ++w) {
        const uint64_t v = stamp_word(key, w);
        std::memcpy(out.data() + w * 8, &v, std::min<size_t>(8, out.size() - w * 8));
    }
}

void fill_pattern(std::span<std::byte> out, uint64_t word)
{
    for (size_t i = 0; i < out.size(); i += 8)
        std::memcpy(out.data() + i, &word, std::min<size_t>(8, out.size() - i));
}

const char *outcome_name(Outcome o)
{
    switch (o) {
    case Outcome::New: return "new";
    case Outcome::Stale: return "stale";
    case Outcome::Foreign: return "foreign";
    case Outcome::Torn: return "torn";
    case Outcome::Absent: return "absent";
    }
    return "?";
}

Outcome PayloadCheck::overall() const
{
    if (ok())
        return Outcome::New;
    const size_t bad = words - new_words;
    if (absent == bad && new_words == 0)
        return Outcome::Absent;
    if (stale == bad && new_words == 0)
        return Outcome::Stale;
    if (foreign == bad && new_words == 0)
        return Outcome::Foreign;
    return Outcome::Torn;
}

PayloadCheck check_payload(std::span<const std::byte> got, const StampKey &key, std::string_view what)
{
    PayloadCheck r;
    for (size_t w = 0; w * 8 < got.size(); ++w) {
        ++r.words;
        size_t n = 0;
        const uint64_t v = load_word(got, w, n);
        const uint64_t want = stamp_word(key, w);
        const uint64_t m = n == 8 ? ~uint64_t{0} : mask(static_cast<unsigned>(n * 8));
        if ((v & m) == (want & m)) {
            ++r.new_words;
            continue;
        }
        std::string cls;
        StampKey seen;
        uint64_t idx = 0;
        if ((v & m) == (kPoisonWord & m)) {
            ++r.absent;
            cls = "absent";
        } else if (n == 8 && decode_stamp(v, seen, idx) && idx == (w & mask(26)) && seen.run == key.run &&
                   seen.sender == key.sender) {
            ++r.stale;
            cls = "stale, iteration " + std::to_string(seen.iteration);
        } else if (n == 8 && decode_stamp(v, seen, idx)) {
            ++r.foreign;
            cls = "foreign: run " + std::to_string(seen.run) + " sender " + std::to_string(seen.sender) +
                  " iteration " + std::to_string(seen.iteration) + " word " + std::to_string(idx);
        } else {
            ++r.torn;
            cls = "torn or garbage";
        }
        if (r.first_bad.empty()) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "word %zu of %.*s: expected 0x%016" PRIx64 ", got 0x%016" PRIx64 " (", w,
                          static_cast<int>(what.size()), what.data(), want & m, v & m);
            r.first_bad = buf + cls + ")";
        }
    }
    return r;
}

size_t count_not_pattern(std::span<const std::byte> got, uint64_t word, size_t *first_bad)
{
    size_t bad = 0;
    const auto *p = reinterpret_cast<const unsigned char *>(&word);
    for (size_t i = 0; i < got.size(); ++i)
        if (std::to_integer<unsigned char>(got[i]) != p[i % 8]) {
            if (bad == 0 && first_bad != nullptr)
                *first_bad = i;
            ++bad;
        }
    return bad;
}

} // namespace hcts
