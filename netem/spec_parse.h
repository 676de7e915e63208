// The words of `tc qdisc ... netem` <-> netem::Spec.
//
// Grammar (tc-netem(8), as iproute2 6.1's tc/q_netem.c reads it; keywords may
// be abbreviated to any prefix tc accepts, e.g. `del` for delay):
//   delay|latency TIME [JITTER [CORR]]      TIME: 10ms, 1.5s, 250us, 100 (= us)
//   distribution uniform|normal|pareto|paretonormal   (needs delay and jitter)
//   loss|drop [random] PERCENT [CORR]       PERCENT: 1%, 0.1, 25% (0..100)
//   loss state P13 [P31 [P32 [P23 [P14]]]]
//   loss gemodel P [R [1-H [1-K]]]
//   duplicate PERCENT [CORR]
//   corrupt PERCENT [CORR]
//   reorder PERCENT [CORR] [gap N]          (needs delay; gap needs reorder)
//   rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]
//                                           RATE: 100mbit, 1gbit, 500kbit,
//                                           10mbps (= megaBYTES/s, as in tc)
//   limit PACKETS
//   ecn                                     (needs a loss model)
//   slot MIN_DELAY [MAX_DELAY] [packets N] [bytes N]
//   slot distribution NAME DELAY JITTER [packets N] [bytes N]
// Optional numbers are recognised as tc does: the next word starts with a digit.
//
// Differences from tc, on purpose: a keyword given twice is an error (tc keeps
// the last one silently); `distribution uniform` is accepted (it is what the
// kernel does without a table; tc has no uniform.dist and fails); `rate N%`
// (percent of the device's speed) is rejected: give an absolute rate;
// `limit 0` and negative or non-finite numbers are rejected, and so are a
// rate of 2^64 bits/s or more and `slot ... bytes` of 2gb or more (tc wraps
// them: the printed words would not read back).
//
// Errors: fabriclab::InputError whose message quotes the spec, points at the
// word with a caret line, and says what was expected. Thread-safe (pure).
#pragma once

#include <string>
#include <vector>

#include "netem/spec.h"

namespace fabriclab::netem {

// `words` are the arguments after `netem`, as a shell would split them.
Spec parse_spec(const std::vector<std::string>& words);

// Convenience: splits `text` on whitespace, then parse_spec(words).
Spec parse_spec(const std::string& text);

// Canonical words for `spec` (tc's order: delay, distribution, loss,
// duplicate, corrupt, reorder, rate, limit, ecn, slot), such that
// parse_spec(print_spec(s)) == s. An empty spec prints as "".
std::string print_spec(const Spec& spec);

// Splits on spaces and tabs (no quoting: netem words never contain spaces).
std::vector<std::string> split_words(const std::string& text);

}  // namespace fabriclab::netem
