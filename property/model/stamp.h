// stamp.h: the byte pattern the harness writes. Every byte depends on the
// stamp id, the rank and the byte's offset, so a reader tells which write a
// byte came from (stale, foreign and torn data all differ from current data).
#pragma once

#include <cstdint>

namespace hcts::prop {

inline uint8_t stampByte(uint32_t stampId, uint32_t rank, uint32_t offset) {
  // splitmix64 finaliser: cheap and well mixed, so neighbouring stamps differ.
  uint64_t z = (uint64_t{stampId} << 40) ^ (uint64_t{rank} << 32) ^ offset;
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<uint8_t>(z ^ (z >> 31));
}

}  // namespace hcts::prop
