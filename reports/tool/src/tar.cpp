#include "tar.h"

#include <cstring>
#include <set>
#include <stdexcept>

namespace hcts::report {
namespace {

constexpr std::size_t kBlock = 512;

// Octal number, zero-padded to width-1 digits and NUL-terminated.
void put_octal(char *field, std::size_t width, unsigned long long value) {
  std::string digits(width - 1, '0');
  for (std::size_t i = width - 1; i-- > 0 && value;) {
    digits[i] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
  if (value) throw std::runtime_error("tar: a number does not fit its header field");
  std::memcpy(field, digits.data(), width - 1);
  field[width - 1] = '\0';
}

unsigned checksum(const char *header) {
  unsigned sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i)
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(header[i]);
  return sum;
}

std::string header_for(const TarMember &m, long long mtime) {
  if (m.name.empty() || m.name.size() > 99) throw std::runtime_error("tar: member name '" + m.name + "' must be 1..99 bytes");
  std::string h(kBlock, '\0');
  std::memcpy(&h[0], m.name.data(), m.name.size());
  put_octal(&h[100], 8, 0644);
  put_octal(&h[108], 8, 0);
  put_octal(&h[116], 8, 0);
  put_octal(&h[124], 12, m.data.size());
  put_octal(&h[136], 12, static_cast<unsigned long long>(mtime));
  h[156] = '0';
  std::memcpy(&h[257], "ustar", 6);
  std::memcpy(&h[263], "00", 2);
  std::memcpy(&h[265], "hcts", 4);
  std::memcpy(&h[297], "hcts", 4);
  char sum[8];
  put_octal(sum, 7, checksum(h.data()));  // six digits and NUL, then a space: the classic layout
  std::memcpy(&h[148], sum, 7);
  h[155] = ' ';
  return h;
}

std::size_t padded(std::size_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

}  // namespace

std::string write_tar(const std::vector<TarMember> &members, long long mtime) {
  std::string out;
  std::set<std::string> names;
  for (const auto &m : members) {
    if (!names.insert(m.name).second) throw std::runtime_error("tar: member '" + m.name + "' given twice");
    out += header_for(m, mtime);
    out += m.data;
    out.append(padded(m.data.size()) - m.data.size(), '\0');
  }
  out.append(2 * kBlock, '\0');
  return out;
}

std::vector<TarMember> read_tar(std::string_view archive) {
  std::vector<TarMember> out;
  std::set<std::string> names;
  std::size_t at = 0;
  auto fail = [&](std::size_t offset, const std::string &problem) -> void {
    throw std::runtime_error("tar: at byte " + std::to_string(offset) + ": " + problem);
  };
  if (archive.size() % kBlock) fail(archive.size(), "the size is not a multiple of 512 bytes; the archive is truncated or padded");
  while (true) {
    if (at + kBlock > archive.size()) fail(at, "the archive ends without the two zero blocks that close it");
    const std::string_view block = archive.substr(at, kBlock);
    if (block.find_first_not_of('\0') == std::string_view::npos) break;
    // Re-derive the header from the fields we accept and demand byte equality:
    // the strictest possible check, and it covers the checksum field's format.
    const std::string name(block.data(), strnlen(block.data(), 100));
    unsigned long long size = 0;
    for (std::size_t i = 124; i < 135; ++i) {
      const char c = block[i];
      if (c < '0' || c > '7') fail(at, "member '" + name + "' has a malformed size field");
      size = size * 8 + static_cast<unsigned>(c - '0');
    }
    unsigned long long mtime = 0;
    for (std::size_t i = 136; i < 147; ++i) {
      const char c = block[i];
      if (c < '0' || c > '7') fail(at, "member '" + name + "' has a malformed mtime field");
      mtime = mtime * 8 + static_cast<unsigned>(c - '0');
    }
    if (at + kBlock + padded(size) > archive.size()) fail(at, "member '" + name + "' is truncated");
    TarMember m{name, std::string(archive.substr(at + kBlock, size))};
    std::string expected;
    try {
      expected = header_for(m, static_cast<long long>(mtime));
    } catch (const std::runtime_error &e) {
      fail(at, e.what());
    }
    if (block != expected) {
      const auto sum = checksum(block.data());
      std::size_t i = 0;
      while (i < kBlock && block[i] == expected[i]) ++i;
      fail(at + i, "the header of member '" + name + "' differs from the canonical one at byte " + std::to_string(i) +
                       " of the header (checksum of the bytes: " + std::to_string(sum) + ")");
    }
    const auto pad = archive.substr(at + kBlock + size, padded(size) - size);
    if (pad.find_first_not_of('\0') != std::string_view::npos)
      fail(at + kBlock + size + pad.find_first_not_of('\0'), "non-zero padding after member '" + name + "'");
    if (!names.insert(name).second) fail(at, "member '" + name + "' appears twice");
    out.push_back(std::move(m));
    at += kBlock + padded(size);
  }
  const auto rest = archive.substr(at);
  if (rest.size() < 2 * kBlock) fail(at, "the archive ends with one zero block; two close it");
  if (const auto bad = rest.find_first_not_of('\0'); bad != std::string_view::npos)
    fail(at + bad, "data after the end-of-archive marker");
  return out;
}

}  // namespace hcts::report
