// Reads typed values off a fuzz input, front to back. Past the end every read is 0,
// so each input decodes to one well-defined call sequence whatever its length.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace hcts_fuzz {

class InputReader {
  public:
    InputReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    bool empty() const { return pos_ >= size_; }

    template <typename T>
    T read()
    {
        T v{};
        const size_t n = pos_ < size_ ? std::min(sizeof v, size_ - pos_) : 0;
        std::memcpy(&v, data_ + pos_, n); // the rest stays 0
        pos_ += n;
        return v;
    }
    uint8_t u8() { return read<uint8_t>(); }
    uint16_t u16() { return read<uint16_t>(); }
    uint32_t u32() { return read<uint32_t>(); }
    uint64_t u64() { return read<uint64_t>(); }
    // One of n choices (n > 0).
    uint32_t below(uint32_t n) { return u8() % n; }

    // A 32-bit count that is mostly small, sometimes a boundary or anything at all:
    // the cases that matter for a count are 0, a few, just past a limit and huge.
    uint32_t count(uint32_t small_max)
    {
        switch (u8() & 7) {
        case 0: return 0;
        case 1: return u32();
        case 2: return UINT32_MAX;
        default: return 1 + u8() % small_max;
        }
    }

    // Up to max_len bytes as a string (may hold NULs; c_str() is always terminated).
    std::string text(size_t max_len)
    {
        const size_t len = u8() % (max_len + 1);
        std::string s;
        for (size_t i = 0; i < len && !empty(); ++i)
            s.push_back(static_cast<char>(u8()));
        return s;
    }

    // Copies the next sizeof(T) bytes over the object's representation.
    template <typename T>
    void overwrite(T &obj)
    {
        const size_t n = pos_ < size_ ? std::min(sizeof obj, size_ - pos_) : 0;
        std::memcpy(static_cast<void *>(&obj), data_ + pos_, n);
        pos_ += n;
    }

  private:
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

} // namespace hcts_fuzz
