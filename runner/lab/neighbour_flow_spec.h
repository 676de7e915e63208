// A neighbour flow as lab.toml writes it (runner/scenario/neighbour_flow.h
// runs it): `"noisy r3->r0"` or `"victim r3->r1 rate 50mbit"` -- a name
// ([a-z][a-z0-9_]*), the sender and receiver ranks, and an optional pace in
// tc's rate words (netem/tc_words.h).
//
// Errors: InputError quoting the words with a caret at the bad one.
// Thread-safe (pure).
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner {

struct NeighbourFlowSpec {
  std::string name;
  int from = 0;
  int to = 0;
  uint64_t rate_bytes_per_s = 0;  // 0: as fast as TCP goes

  bool operator==(const NeighbourFlowSpec& o) const {
    return name == o.name && from == o.from && to == o.to && rate_bytes_per_s == o.rate_bytes_per_s;
  }
};

NeighbourFlowSpec parse_neighbour_flow(const std::string& text);
// Canonical words: parse_neighbour_flow(print_neighbour_flow(f)) == f.
std::string print_neighbour_flow(const NeighbourFlowSpec& flow);

}  // namespace fabriclab::runner
