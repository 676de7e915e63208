#include "runner/report/wire_bytes.h"

#include <map>

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

std::optional<double> number_of(const json& event, const char* key) {
  auto it = event.find(key);
  if (it == event.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// One rank's per-step mean of a step field, leaving out step 1 when there
// are later steps.
struct RankMean {
  double first_step = 0;
  bool has_first_step = false;
  double later_sum = 0;
  int later_steps = 0;

  void add(double step, double value) {
    if (step <= 1) {
      first_step = value;
      has_first_step = true;
    } else {
      later_sum += value;
      ++later_steps;
    }
  }
  std::optional<double> per_step() const {
    if (later_steps > 0) return later_sum / later_steps;
    if (has_first_step) return first_step;
    return std::nullopt;
  }
};

// The mean over ranks of each rank's per-step mean.
std::optional<double> mean_over_ranks(const std::map<int, RankMean>& ranks) {
  double sum = 0;
  int counted = 0;
  for (const auto& [rank, mean] : ranks) {
    if (const auto per_step = mean.per_step()) {
      sum += *per_step;
      ++counted;
    }
  }
  if (counted == 0) return std::nullopt;
  return sum / counted;
}

}  // namespace

WireBytes summarize_wire_bytes(const std::vector<json>& events) {
  WireBytes wire;
  std::map<int, RankMean> tx, headers;
  for (const json& event : events) {
    const std::string kind = event.value("event", std::string());
    if (kind == "start" && !wire.grad_bytes) {
      wire.params = number_of(event, "params");
      wire.grad_bytes = number_of(event, "grad_bytes");
      wire.world_size = number_of(event, "world_size");
    } else if (kind == "step") {
      const auto rank = number_of(event, "rank");
      const auto step = number_of(event, "step");
      if (!rank || !step) continue;
      // Null or absent when not measured (doc/metrics.md).
      if (const auto bytes = number_of(event, "tx_bytes")) {
        tx[static_cast<int>(*rank)].add(*step, *bytes);
      }
      if (const auto packets = number_of(event, "tx_packets")) {
        headers[static_cast<int>(*rank)].add(*step, *packets * kFrameHeaderBytes);
      }
    }
  }

  wire.tx_bytes_per_step = mean_over_ranks(tx);
  wire.header_bytes_per_step = mean_over_ranks(headers);
  if (wire.grad_bytes && wire.world_size && *wire.world_size > 1) {
    wire.ring_bytes = 2.0 * (*wire.world_size - 1) / *wire.world_size * *wire.grad_bytes;
  }
  if (wire.tx_bytes_per_step && wire.ring_bytes && *wire.ring_bytes > 0) {
    wire.wire_overhead = *wire.tx_bytes_per_step / *wire.ring_bytes - 1;
  }
  if (wire.tx_bytes_per_step && wire.params && *wire.params > 0) {
    wire.wire_bytes_per_param = *wire.tx_bytes_per_step / *wire.params;
  }
  return wire;
}

}  // namespace fabriclab::runner::report
