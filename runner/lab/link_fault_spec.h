// A link fault during a scenario, as lab.toml writes it (`link_fault`,
// labs/SCHEMA.md "A link fault while the job runs"): the scenario's `links`
// go down for a while and come back, at a time or a step of the job.
//
//   "down 2s at step 6"      down when every rank has completed step 6, up 2 s later
//   "down 1500ms at 10s"     down 10 s after the job's first step (the first
//                            step any rank completes), up 1.5 s later
//   "down 10s at step 8 detect 300ms"
//                            a fabric uplink: the routers learn of it 300 ms
//                            after it went down (and after it came back), as
//                            BFD would tell them, and withdraw (restore) the
//                            routes through it
//
// A duration is a number with `s` or `ms`; the down time is 100 ms to 60 s
// (shorter is below the runner's 100 ms clock; longer is not a flap); the
// detection time 50 ms to 5 s (BFD's 3 x 50 ms at the fastest, a routing
// protocol's hold timer at the slowest here) and shorter than the down time
// (else the routes never move).
// runner/scenario/link_fault.h carries it out.
//
// Errors: std::invalid_argument saying what was expected, fit to follow
// "key 'link_fault': ". Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner {

struct LinkFaultSpec {
  double down_s = 0;     // how long the links stay down
  int64_t at_step = 0;   // > 0: when every rank has completed this step
  double at_s = 0;       // at_step == 0: seconds after the job's first step
  // > 0: an uplink's fault (runner/scenario/uplink_fault.h): seconds from
  // the link going down (coming up) until its routes are withdrawn
  // (restored). 0: no routing reacts (a rank's link).
  double detect_s = 0;
};

LinkFaultSpec parse_link_fault(const std::string& text);
// Canonical words: parse_link_fault(print_link_fault(f)) gives f back.
std::string print_link_fault(const LinkFaultSpec& fault);

}  // namespace fabriclab::runner
