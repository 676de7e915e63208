#include "netem/psched.h"

#include <cstdio>

namespace fabriclab::netem {

namespace {

double read_tick_in_usec() {
  FILE* f = std::fopen("/proc/net/psched", "r");
  if (!f) return 1.0;
  unsigned t2us = 0, us2t = 0, clock_res = 0;
  int n = std::fscanf(f, "%08x%08x%08x", &t2us, &us2t, &clock_res);
  std::fclose(f);
  if (n != 3 || us2t == 0) return 1.0;
  // Same compatibility rule as tc: a nanosecond clock advertises t2us=1000.
  if (clock_res == 1000000000) t2us = us2t;
  double clock_factor = static_cast<double>(clock_res) / 1000000.0;
  return static_cast<double>(t2us) / us2t * clock_factor;
}

}  // namespace

double tick_in_usec() {
  static const double value = read_tick_in_usec();
  return value;
}

uint32_t usec_to_ticks(uint32_t usec) { return static_cast<uint32_t>(usec * tick_in_usec()); }

bool usec_too_big_for_ticks(uint64_t usec) {
  if (usec > UINT32_MAX) return true;
  uint64_t t = usec;
  t = static_cast<uint64_t>(static_cast<double>(t) * tick_in_usec());
  return (t >> 32) != 0;
}

}  // namespace fabriclab::netem
