// Stamped payloads. Every 8-byte word of a payload encodes who wrote it and when,
// with check bits, so a reader tells current, stale, foreign, torn and absent
// data apart (a fixed fill cannot).
//
//   bits 63..52 run (12)  51..40 iteration (12)  39..34 sender (6)
//        33..8  word index from the payload start (26)  7..0 check
//
// Poison (what a destination holds before the write) and guard words are
// constants whose check bits are wrong, so they never pass for a stamp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace hcts {

struct StampKey {
    uint32_t run = 0;
    uint32_t iteration = 0;
    uint32_t sender = 0;
};

inline constexpr uint64_t kPoisonWord = 0x5a5a5a5a5a5a5a5aULL;
inline constexpr uint64_t kGuardWord = 0xc3c3c3c3c3c3c3c3ULL;

uint64_t stamp_word(const StampKey &key, uint64_t word_index);
// Decodes a full word; false when its check bits are wrong.
bool decode_stamp(uint64_t word, StampKey &key, uint64_t &word_index);

// Fills `out` with the payload of `key` (byte i = byte i%8 of stamp_word(i/8)).
void fill_payload(std::span<std::byte> out, const StampKey &key);
void fill_pattern(std::span<std::byte> out, uint64_t word);

enum class Outcome { New, Stale, Foreign, Torn, Absent };
const char *outcome_name(Outcome o);

struct PayloadCheck {
    size_t words = 0; // words examined (a partial last word counts)
    size_t new_words = 0, stale = 0, foreign = 0, torn = 0, absent = 0;
    std::string first_bad; // "word 17 of dst: expected 0x…, got 0x… (stale, iteration 3)"
    bool ok() const { return new_words == words; }
    // The whole buffer's class: New only if every word is new; Absent/Stale/Foreign
    // if every bad word is of that class; Torn otherwise.
    Outcome overall() const;
};

// Classifies `got` (a host copy of the destination) against the payload of `key`.
PayloadCheck check_payload(std::span<const std::byte> got, const StampKey &key, std::string_view what = "dst");
// Counts bytes of `got` that differ from the repeated pattern `word`.
size_t count_not_pattern(std::span<const std::byte> got, uint64_t word, size_t *first_bad = nullptr);

} // namespace hcts
