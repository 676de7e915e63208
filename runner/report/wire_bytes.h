// What a scenario's ranks put on the wire per step, against what a ring
// allreduce must move (recordings/FORMAT.md, "result"; lab 03):
//
//   tx_bytes_per_step     measured: each rank's `tx_bytes` (its lab device's
//                         transmit counter over the step) averaged over its
//                         steps after the first, then over ranks
//   ring_bytes            2(N-1)/N x S: the payload each rank of a ring
//                         allreduce sends per step (N = world_size, S =
//                         grad_bytes of the start event)
//   wire_overhead         tx_bytes_per_step / ring_bytes - 1: headers, ACKs,
//                         Gloo's framing, retransmissions
//   wire_bytes_per_param  tx_bytes_per_step / params: what one parameter of
//                         this model costs the wire per step at this N
//   header_bytes_per_step the headers among the bytes sent: the steps'
//                         `tx_packets` x 66 (Ethernet 14 + IPv4 20 + TCP 20 +
//                         timestamps 12, every frame of a lab link), averaged
//                         like tx_bytes_per_step; the rest of the overhead is
//                         retransmitted payload and Gloo's own framing
//
// The first step is left out when there are later ones: bytes of the
// rendezvous still in flight land in it. Each is nullopt when its inputs are
// missing (no tx_bytes: one process, host mode without a lab address; one
// rank: no ring). Pure functions, thread-safe.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabriclab::runner::report {

// The header bytes of every frame on a lab link.
constexpr double kFrameHeaderBytes = 14 + 20 + 20 + 12;

struct WireBytes {
  // From the start event: what the ring's share is computed from.
  std::optional<double> world_size;
  std::optional<double> params;
  std::optional<double> grad_bytes;
  std::optional<double> tx_bytes_per_step;
  std::optional<double> ring_bytes;
  std::optional<double> wire_overhead;
  std::optional<double> wire_bytes_per_param;
  std::optional<double> header_bytes_per_step;  // not a result field: for the table
};

// From one scenario's events (start and step events; others are ignored).
WireBytes summarize_wire_bytes(const std::vector<nlohmann::json>& events);

}  // namespace fabriclab::runner::report
