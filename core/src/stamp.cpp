#include "hcts/core/stamp.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace hcts {

namespace {
constexpr uint64_t mask(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
constexpr unsigned kRunBits = 8, kIterationBits = 12, kSenderBits = 6, kIndexBits = 30;
constexpr unsigned kIndexShift = 0, kSenderShift = kIndexBits, kIterationShift = kSenderShift + kSenderBits,
                   kRunShift = kIterationShift + kIterationBits;
static_assert(kRunShift + kRunBits == 56, "the fields fill the 56 bits above the check byte");

uint64_t mix(uint64_t z)
{
    // splitmix64 finaliser: every input bit affects every output bit.
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint8_t check_bits(uint64_t fields) { return static_cast<uint8_t>(mix(fields)); }
uint64_t scramble(uint8_t check) { return mix(0x5354414d50ULL ^ check) & mask(56); }

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
    const uint64_t fields = (uint64_t{k.run} & mask(kRunBits)) << kRunShift |
                            (uint64_t{k.iteration} & mask(kIterationBits)) << kIterationShift |
                            (uint64_t{k.sender} & mask(kSenderBits)) << kSenderShift |
                            (word_index & mask(kIndexBits)) << kIndexShift;
    const uint8_t check = check_bits(fields);
    return (fields ^ scramble(check)) << 8 | check;
}

bool decode_stamp(uint64_t w, StampKey &k, uint64_t &word_index)
{
    const auto check = static_cast<uint8_t>(w);
    const uint64_t fields = (w >> 8) ^ scramble(check);
    if (check_bits(fields) != check)
        return false;
    k.run = static_cast<uint32_t>(fields >> kRunShift & mask(kRunBits));
    k.iteration = static_cast<uint32_t>(fields >> kIterationShift & mask(kIterationBits));
    k.sender = static_cast<uint32_t>(fields >> kSenderShift & mask(kSenderBits));
    word_index = fields >> kIndexShift & mask(kIndexBits);
    return true;
}

uint8_t stamp_byte(const StampKey &key, uint64_t offset)
{
    return static_cast<uint8_t>(stamp_word(key, offset / 8) >> (offset % 8 * 8));
}

void fill_payload(std::span<std::byte> out, const StampKey &key, uint64_t first_offset)
{
    size_t i = 0;
    // Up to the first word boundary byte by byte, then whole words.
    for (; i < out.size() && (first_offset + i) % 8 != 0; ++i)
        out[i] = std::byte{stamp_byte(key, first_offset + i)};
    for (; i + 8 <= out.size(); i += 8) {
        const uint64_t v = stamp_word(key, (first_offset + i) / 8);
        std::memcpy(out.data() + i, &v, 8);
    }
    for (; i < out.size(); ++i)
        out[i] = std::byte{stamp_byte(key, first_offset + i)};
}

void fill_pattern(std::span<std::byte> out, uint64_t word)
{
    for (size_t i = 0; i < out.size(); i += 8)
        std::memcpy(out.data() + i, &word, std::min<size_t>(8, out.size() - i));
}

std::string_view outcome_name(Outcome o)
{
    switch (o) {
    case Outcome::New: return "new";
    case Outcome::Stale: return "stale";
    case Outcome::Foreign: return "foreign";
    case Outcome::Torn: return "torn";
    case Outcome::Absent: return "absent";
    }
    return "torn";
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
        const uint64_t m = mask(static_cast<unsigned>(n * 8));
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
        } else if (n == 8 && decode_stamp(v, seen, idx) && idx == (w & mask(kIndexBits)) &&
                   seen.run == (key.run & mask(kRunBits)) && seen.sender == (key.sender & mask(kSenderBits))) {
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
    std::byte pattern[8];
    std::memcpy(pattern, &word, 8); // the byte order fill_pattern writes
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != pattern[i % 8]) {
            if (bad == 0 && first_bad != nullptr)
                *first_bad = i;
            ++bad;
        }
    return bad;
}

} // namespace hcts
