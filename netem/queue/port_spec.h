// A switch's egress port, in words of the tc tradition: how fast it drains,
// how many bytes it buffers, and what it does when the buffer fills (lab 08).
//
//   rate RATE limit SIZE [taildrop]
//   rate RATE limit SIZE ecn kmin SIZE kmax SIZE [pmax P]
//   rate RATE limit SIZE ecn k SIZE                (DCTCP: one threshold, pmax 1)
//   rate RATE limit SIZE lossless xoff SIZE xon SIZE
//   rate RATE limit SIZE lossless xoff SIZE xon SIZE kmin SIZE kmax SIZE pmax P
//
// RATE: tc's rate words (500mbit, 1gbit); SIZE: tc's sizes (256kb = 256 x
// 1024 bytes, 1mb, 1500); P: a fraction (0.2) or a percentage (1%), in
// (0, 1]. Policies:
//   taildrop  a packet that would overflow `limit` is dropped (the default);
//   ecn       RED / DCQCN marking on the queue found by an arriving packet:
//             none below kmin, probability rising linearly to pmax at kmax,
//             every packet above kmax; marking sets CE on ECN-capable (ECT)
//             packets and drops the others; a full buffer still drops;
//   lossless  never drops: when the queue passes xoff the port pauses the
//             upstream links feeding it until it drains below xon (PFC's
//             XOFF/XON), and everything else those links carry waits too;
//             with kmin/kmax/pmax (or k) it also marks ECT packets as ecn
//             does, below xoff, and never drops the ones it cannot mark
//             (RoCE's lossless class with DCQCN: a sender that ignores the
//             marks fills the queue to XOFF and is paused; lab 12).
// Published profiles, for reference: DCQCN kmin 5kb kmax 200kb pmax 1%;
// HPCC's simulator at 100G kmin 400kb kmax 1600kb pmax 0.2.
//
// Errors: fabriclab::InputError quoting the words with a caret at the bad
// one and what was expected (tc_words.h). Thread-safe (pure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::netem {

enum class QueuePolicy { kTailDrop, kEcn, kLossless };

struct PortSpec {
  uint64_t rate_bytes_per_s = 0;
  uint32_t limit_bytes = 0;
  QueuePolicy policy = QueuePolicy::kTailDrop;
  uint32_t kmin_bytes = 0;  // ecn
  uint32_t kmax_bytes = 0;
  double pmax = 0;
  uint32_t xoff_bytes = 0;  // lossless
  uint32_t xon_bytes = 0;

  bool operator==(const PortSpec& o) const {
    return rate_bytes_per_s == o.rate_bytes_per_s && limit_bytes == o.limit_bytes &&
           policy == o.policy && kmin_bytes == o.kmin_bytes && kmax_bytes == o.kmax_bytes &&
           pmax == o.pmax && xoff_bytes == o.xoff_bytes && xon_bytes == o.xon_bytes;
  }
};

PortSpec parse_port_spec(const std::vector<std::string>& words);
PortSpec parse_port_spec(const std::string& text);  // split on whitespace

// Canonical words: parse_port_spec(print_port_spec(s)) == s.
std::string print_port_spec(const PortSpec& spec);

// Whether the port marks CE: an ecn port, or a lossless one with thresholds.
bool port_marks(const PortSpec& spec);

const char* policy_name(QueuePolicy policy);  // "taildrop", "ecn", "lossless"

}  // namespace fabriclab::netem
