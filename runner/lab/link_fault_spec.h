// A link fault during a scenario, as lab.toml writes it (`link_fault`,
// labs/SCHEMA.md "A link fault while the job runs"): for a while, at a time
// or a step of the job, the scenario's `links` go down, or carry another
// impairment, and then come back as they were.
//
//   "down 2s at step 6"      down when every rank has completed step 6, up 2 s later
//   "down 1500ms at 10s"     down 10 s after the job's first step (the first
//                            step any rank completes), up 1.5 s later
//   "impair 'loss 5%' for 3s at step 6"
//                            the links' impairment becomes `loss 5%` (tc-netem
//                            words, as `impair` takes them) when every rank
//                            has completed step 6, and the scenario's own
//                            impairment (or none) is back 3 s later
//   "down 10s at step 8 detect 300ms"
//                            a fabric uplink: the routers learn of it 300 ms
//                            after it went down (and after it came back), as
//                            BFD would tell them, and withdraw (restore) the
//                            routes through it
//
// A duration is a number with `s` or `ms`; the length is 100 ms to 60 s
// (shorter is below the runner's 100 ms clock; longer is not a flap); the
// detection time (a `down` only) 50 ms to 5 s (BFD's 3 x 50 ms at the
// fastest, a routing protocol's hold timer at the slowest here) and shorter
// than the down time (else the routes never move).
// runner/scenario/link_fault.h carries it out.
//
// Errors: std::invalid_argument saying what was expected, fit to follow
// "key 'link_fault': ". The impairment's words are only split off here; the
// lab loader parses them as `impair` does. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner {

enum class LinkFaultKind {
  kDown,    // the links go down and come back up
  kImpair,  // the links' impairment changes and is restored
};

struct LinkFaultSpec {
  LinkFaultKind kind = LinkFaultKind::kDown;
  std::string impair;    // kImpair: the tc-netem words in force meanwhile
  double length_s = 0;   // how long the links stay down (or changed)
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
