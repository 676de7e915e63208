#include "runner/report/wire_bytes_table.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>

namespace fabriclab::runner::report {

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1000 && unit < 5) {
    bytes /= 1000;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  const int decimals = bytes >= 100 ? 0 : bytes >= 10 ? 1 : 2;
  return fmt::format("{:.{}f} {}", bytes, decimals, kUnits[unit]);
}

namespace {

// 4035910 -> "4,035,910": parameter counts are read digit by digit.
std::string with_thousands(double value) {
  std::string digits = fmt::format("{:.0f}", value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

}  // namespace

std::string format_wire_bytes_table(const std::vector<ScenarioSummary>& summaries) {
  std::string rows;
  for (const ScenarioSummary& s : summaries) {
    const WireBytes& w = s.wire;
    if (!w.tx_bytes_per_step || !w.ring_bytes || !w.world_size || !w.params || !w.grad_bytes)
      continue;
    const double n = *w.world_size;
    // The overhead's two parts, as shares of the payload: headers (counted
    // from the frames) and the rest (retransmitted payload, Gloo's framing).
    std::string headers = "--", rest = "--";
    if (w.header_bytes_per_step) {
      headers = fmt::format("{:+.1f}%", *w.header_bytes_per_step / *w.ring_bytes * 100);
      rest = fmt::format("{:+.1f}%", (*w.tx_bytes_per_step - *w.ring_bytes -
                                      *w.header_bytes_per_step) / *w.ring_bytes * 100);
    }
    rows += fmt::format("{:<14} {:>5.0f} {:>11} {:>9} {:>8.2f} {:>9} {:>9} {:>+8.1f}% {:>8} {:>7} {:>7.2f}\n",
                        s.name, n, with_thousands(*w.params), format_bytes(*w.grad_bytes),
                        2 * (n - 1) / n, format_bytes(*w.ring_bytes),
                        format_bytes(*w.tx_bytes_per_step), *w.wire_overhead * 100, headers, rest,
                        w.wire_bytes_per_param.value_or(0));
  }
  if (rows.empty()) return "";
  return fmt::format("Bytes on the wire per rank and step (ring allreduce)\n\n"
                     "{:<14} {:>5} {:>11} {:>9} {:>8} {:>9} {:>9} {:>9} {:>8} {:>7} {:>7}\n",
                     "scenario", "ranks", "params", "S (fp32)", "2(N-1)/N", "payload", "sent",
                     "overhead", "headers", "rest", "B/param") +
         std::string(106, '-') + "\n" + rows +
         "\nS: the gradient, params x 4 bytes.  payload: 2(N-1)/N x S, what each rank of a ring\n"
         "allreduce sends per step.  sent: what each rank's lab device sent per step, measured\n"
         "(its transmit counter; steps after the first, mean over ranks).  overhead: sent /\n"
         "payload - 1, in two parts: headers, 66 bytes (Ethernet, IPv4, TCP with timestamps) on\n"
         "every frame sent, data and ACKs alike; rest: payload sent twice (TCP retransmissions)\n"
         "and Gloo's own framing.  B/param: bytes sent per parameter per step.\n";
}

}  // namespace fabriclab::runner::report
