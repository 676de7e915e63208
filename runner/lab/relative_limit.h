// A scenario's stall or deadline limit written against another scenario's
// measured time instead of in seconds: `deadline = "6x clean"` is six times
// what the scenario `clean` took in this run (launch to end, the clock the
// watchdog runs). Network costs are fixed times and compute is not, so an
// absolute limit that fits one CPU flips a verdict on a faster or slower
// one; a limit relative to the lab's own baseline holds on both.
// The scenario it names must come earlier in the lab (it runs first); when
// it did not run or did not complete, the absolute `deadline_s` / `stall_s`
// applies (runner/scenario/measured_limits.h).
#pragma once

#include <optional>
#include <string>

namespace fabriclab::runner {

struct RelativeLimit {
  double factor = 0;     // 0 = none
  std::string scenario;  // whose measured time it multiplies

  bool set() const { return factor > 0; }
  std::string text() const;  // "6x clean"
};

// "6x clean", "2.5x long-steps" (factor in (0, 1000]). nullopt, and what
// was expected in *why, for anything else.
std::optional<RelativeLimit> parse_relative_limit(const std::string& text, std::string* why);

}  // namespace fabriclab::runner
