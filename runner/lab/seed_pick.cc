#include "runner/lab/seed_pick.h"

namespace fabriclab::runner {

namespace {

uint64_t fnv1a64(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t seed_pick(uint64_t seed, const std::string& label, uint64_t n) {
  return n == 0 ? 0 : splitmix64(seed ^ fnv1a64(label)) % n;
}

}  // namespace fabriclab::runner
