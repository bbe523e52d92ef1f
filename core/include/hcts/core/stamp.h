// Stamped payloads: the one codec of the suite. Every 8-byte word of a payload
// says who wrote it and when, with check bits, so a reader tells current, stale,
// foreign, torn and absent data apart (a fixed fill cannot).
//
//   fields: run (8 bits) | iteration (12) | sender (6) | word index (30) | check (8)
//
// The word index counts 8-byte words from the payload's start (8 GiB payloads
// before it wraps). The 56 upper bits are scrambled with a mask derived from the
// check byte, so every byte of a stamp depends on every field: a byte-granular
// reader (the property model) also tells a stale byte from the current one.
// Poison (what a destination holds before the write) and guard words are
// constants whose check bits are wrong, so they never pass for a stamp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace hcts {

struct StampKey {
    uint32_t run = 0;       // which case family (8 bits kept)
    uint32_t iteration = 0; // which repetition (12 bits kept)
    uint32_t sender = 0;    // which rank or thread wrote it (6 bits kept)
};

inline constexpr uint64_t kPoisonWord = 0x5a5a5a5a5a5a5a5aULL;
inline constexpr uint64_t kGuardWord = 0xc3c3c3c3c3c3c3c3ULL;

uint64_t stamp_word(const StampKey &key, uint64_t word_index);
// Decodes a full word; false when its check bits are wrong.
bool decode_stamp(uint64_t word, StampKey &key, uint64_t &word_index);
// Byte `offset` of the payload of `key` (byte offset%8 of word offset/8).
uint8_t stamp_byte(const StampKey &key, uint64_t offset);

// Fills `out` with bytes [first_offset, first_offset + out.size()) of the payload of `key`.
void fill_payload(std::span<std::byte> out, const StampKey &key, uint64_t first_offset = 0);
void fill_pattern(std::span<std::byte> out, uint64_t word);

enum class Outcome { New, Stale, Foreign, Torn, Absent };
std::string_view outcome_name(Outcome o);

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
// Counts bytes of `got` that differ from the repeated pattern `word`; the first
// such byte's index goes to *first_bad.
size_t count_not_pattern(std::span<const std::byte> got, uint64_t word, size_t *first_bad = nullptr);

} // namespace hcts
